import { principalFromClaims } from './claims';

describe('principalFromClaims', () => {
  it('builds a principal from complete claims', () => {
    expect(principalFromClaims({ sub: 'u1', tenant: 'acme', roles: ['admin'], project: 'p1' })).toEqual({
      sub: 'u1',
      tenant: 'acme',
      roles: ['admin'],
      project: 'p1',
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
  ])('refuses %p', (claims) => {
    expect(principalFromClaims(claims)).toBeNull();
  });
});
