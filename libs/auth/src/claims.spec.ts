import { lifetimeProblem, principalFromClaims } from './claims';

describe('principalFromClaims', () => {
  it('builds a principal from complete claims', () => {
    expect(principalFromClaims({ sub: 'u1', tenant: 'acme', roles: ['admin'], project: 'p1' })).toEqual({
      sub: 'u1',
      tenant: 'acme',
      roles: ['admin'],
      project: 'p1',
      credential: 'jwt',
    });
  });

  it.each([
    [{ tenant: 'acme', roles: ['admin'] }],
    [{ sub: 'u1', roles: ['admin'] }],
    [{ sub: 'u1', tenant: '', roles: ['admin'] }],
    [{ sub: 'u1', tenant: 'acme', roles: [] }],
    [{ sub: 'u1', tenant: 'acme', roles: ['root'] }],
    [{ sub: 'u1', tenant: 'acme', roles: 'admin' }],
    [{ sub: 'u1', tenant: 'acme', roles: ['viewer'], project: 7 }],
    [{ sub: 'u1', tenant: 'acme', roles: ['admin'], project: '' }],
    [{ sub: 'u1', tenant: 'acme', roles: ['admin'], project: '  ' }],
  ])('refuses %p', (claims) => {
    expect(principalFromClaims(claims)).toBeNull();
  });
});

describe('lifetimeProblem', () => {
  const now = 1_800_000_000;
  it('requires exp', () => expect(lifetimeProblem({ iat: now }, 3600, now)).toBe('the token has no exp'));
  it('takes a token within the maximum', () =>
    expect(lifetimeProblem({ iat: now, exp: now + 3600 }, 3600, now)).toBeNull());
  it('refuses a token issued to live longer', () =>
    expect(lifetimeProblem({ iat: now, exp: now + 3601 }, 3600, now)).toMatch(/longer than 3600/));
  it('measures from now when there is no iat', () => {
    expect(lifetimeProblem({ exp: now + 100 }, 3600, now)).toBeNull();
    expect(lifetimeProblem({ exp: now + 7200 }, 3600, now)).not.toBeNull();
  });
  it('cannot be fooled by an iat in the future', () =>
    expect(lifetimeProblem({ iat: now + 10_000, exp: now + 10_000 + 3600 }, 3600, now)).not.toBeNull());
});
