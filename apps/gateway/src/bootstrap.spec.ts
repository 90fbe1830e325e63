import { createPublicKey } from 'node:crypto';
import { devPublicKey } from '@bastion/auth';
import { createLogger } from '@bastion/observability';
import { loadConfig } from '@bastion/platform';
import { createGateway } from './bootstrap';
import { GatewayConfig } from './config';

describe('createGateway in production', () => {
  const body = devPublicKey()
    .replace(/-----[^-]+-----/g, '')
    .replace(/\s+/g, '');
  it.each([
    ['unset', undefined],
    ['as shipped', devPublicKey()],
    ['re-wrapped on one line', `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----`],
    [
      're-exported',
      createPublicKey(devPublicKey()).export({ type: 'spki', format: 'pem' }).toString().replace(/\n/g, '\r\n'),
    ],
  ])('refuses the development key (%s)', async (_, pem) => {
    const config = loadConfig(GatewayConfig, { NODE_ENV: 'production', ...(pem ? { AUTH_PUBLIC_KEY: pem } : {}) });
    await expect(createGateway(config, createLogger('gateway', 'silent'))).rejects.toThrow(/development key is public/);
  });
});
