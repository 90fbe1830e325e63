import { refusal, TENANT_KINDS } from './access-policy';

describe('refusal', () => {
  const user = { sub: 'u', tenant: 't', roles: ['member' as const] };
  it('lets a principal of an allowed kind with the role through', () =>
    expect(refusal({ role: 'member', kinds: TENANT_KINDS }, user)).toBeNull());
  it('refuses a lesser role', () =>
    expect(refusal({ role: 'admin', kinds: TENANT_KINDS }, user)).toBe('this operation needs the admin role'));
  it('refuses a project-scoped principal where only tenant principals go', () => {
    expect(refusal({ role: 'viewer', kinds: TENANT_KINDS }, { ...user, project: 'p1' })).toMatch(
      /scoped to project p1/,
    );
    expect(refusal({ role: 'viewer', kinds: TENANT_KINDS }, { ...user, project: 'p1', credential: 'key' })).toMatch(
      /key is scoped/,
    );
  });
  it('tells a tenant key from a user', () =>
    expect(refusal({ role: 'viewer', kinds: ['user-jwt'] }, { ...user, credential: 'key' })).toBe(
      'a tenant-key cannot call this route',
    ));
  it('lets anyone call a public route', () => expect(refusal({ public: true }, user)).toBeNull());
});
