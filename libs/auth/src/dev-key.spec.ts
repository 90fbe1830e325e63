import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { devPrivateKey, devPublicKey, isDevelopmentKey } from './dev-key';

describe('isDevelopmentKey', () => {
  const body = devPublicKey()
    .replace(/-----[^-]+-----/g, '')
    .replace(/\s+/g, '');
  it.each([
    ['as shipped', devPublicKey()],
    ['with CRLF line ends', devPublicKey().replace(/\n/g, '\r\n')],
    ['on one line of base64', `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`],
    [
      'rewrapped at 76 columns',
      `-----BEGIN PUBLIC KEY-----\n${body.match(/.{1,76}/g)!.join('\n')}\n-----END PUBLIC KEY-----`,
    ],
    [
      'as its JWK-equivalent re-exported PEM',
      createPublicKey(devPublicKey()).export({ type: 'spki', format: 'pem' }).toString(),
    ],
    ['as the private key', devPrivateKey()],
  ])('knows the development key %s', (_, pem) => expect(isDevelopmentKey(pem)).toBe(true));

  it('does not mistake another key for it', () => {
    const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(isDevelopmentKey(publicKey.export({ type: 'spki', format: 'pem' }).toString())).toBe(false);
    expect(isDevelopmentKey('not a key')).toBe(false);
  });
});
