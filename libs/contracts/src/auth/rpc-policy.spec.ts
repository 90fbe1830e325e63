import { ApiKeySubjects } from '../keys/api-key.subjects';
import { refusal } from './access-policy';
import type { Principal } from './principal';
import { rpcRule } from './rpc-policy';

describe('RPC_POLICY for API keys', () => {
  const userAdmin: Principal = { sub: 'u', tenant: 't', roles: ['admin'] };
  const tenantAdminKey: Principal = { sub: 'key:k', tenant: 't', roles: ['admin'], credential: 'key' };

  it.each([ApiKeySubjects.create, ApiKeySubjects.delete])(
    'lets an admin JWT call %s, and refuses a tenant admin key (a key minting keys would outlive its own revocation)',
    (subject) => {
      expect(refusal(rpcRule(subject), userAdmin)).toBeNull();
      expect(refusal(rpcRule(subject), tenantAdminKey)).toBe('a tenant-key cannot call this route');
    },
  );

  it.each([ApiKeySubjects.list, ApiKeySubjects.get])('lets a tenant key read (%s)', (subject) =>
    expect(refusal(rpcRule(subject), tenantAdminKey)).toBeNull(),
  );
});
