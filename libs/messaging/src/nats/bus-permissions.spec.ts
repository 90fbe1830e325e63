import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { natsServerAuthorization, passwordVariable } from './bus-permissions';

const root = join(__dirname, '../../../..');

describe('the committed nats-server configuration', () => {
  // deploy/ and docker-compose.yml run NATS with these files; `pnpm nats:config` writes them.
  it.each(['deploy/nats/auth.conf', 'deploy/overlays/dev/nats-auth.conf'])(
    '%s is what bus-permissions.ts renders',
    (file) => {
      const committed = readFileSync(join(root, file), 'utf8');
      expect(committed.slice(committed.indexOf('authorization {'))).toBe(natsServerAuthorization());
    },
  );

  it('names each password variable after its user', () => {
    expect(passwordVariable('message-proxy')).toBe('MESSAGE_PROXY_NATS_PASSWORD');
    expect(natsServerAuthorization()).toContain('password: $MESSAGE_PROXY_NATS_PASSWORD');
  });
});
