import { type AdmissionToken, decideAdmission, looksLikeJwt } from './admission-rules';

const now = new Date('2026-11-21T12:00:00Z');
const token = (over: Partial<AdmissionToken> = {}): AdmissionToken => ({
  uid: 'u',
  tenant: 't',
  namespace: 'system',
  name: 'n',
  state: 'VALID',
  disable: false,
  type: 'NORMAL',
  siteName: '',
  contentHash: '',
  expiresAt: null,
  maxRegistrations: null,
  usedRegistrations: 0,
  revision: 1,
  ...over,
});

describe('decideAdmission', () => {
  it('admits a VALID, enabled token', () => {
    expect(decideAdmission(token(), 'site-a', now)).toEqual({ admit: true });
  });

  it.each([
    ['no token', undefined, 'unknown_token'],
    ['EXPIRED state', token({ state: 'EXPIRED' }), 'not_valid'],
    ['UNKNOWN state', token({ state: 'UNKNOWN' }), 'not_valid'],
    ['disabled', token({ disable: true }), 'disabled'],
    ['past expiry', token({ expiresAt: new Date('2026-11-21T11:59:59Z') }), 'expired'],
    ['expiry exactly now', token({ expiresAt: now }), 'expired'],
    ['no registrations left', token({ maxRegistrations: 2, usedRegistrations: 2 }), 'registrations_exhausted'],
    ['a JWT bound to another site', token({ type: 'JWT', siteName: 'site-b' }), 'site_mismatch'],
  ])('refuses %s', (_what, t, reason) => {
    expect(decideAdmission(t, 'site-a', now)).toEqual({ admit: false, reason });
  });

  it('admits before expiry, with registrations left, and a JWT bound to this site', () => {
    expect(
      decideAdmission(
        token({ expiresAt: new Date('2026-11-21T12:00:01Z'), maxRegistrations: 2, usedRegistrations: 1 }),
        's',
        now,
      ),
    ).toEqual({
      admit: true,
    });
    expect(decideAdmission(token({ type: 'JWT', siteName: 'site-a' }), 'site-a', now)).toEqual({ admit: true });
    expect(decideAdmission(token({ type: 'JWT', siteName: '' }), 'any-site', now)).toEqual({ admit: true });
  });
});

describe('looksLikeJwt', () => {
  it('tells JWTs from uids', () => {
    expect(looksLikeJwt('eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJ4In0.c2ln')).toBe(true);
    expect(looksLikeJwt('c05edd2d-f6b2-4863-aa6e-5fa177e063e1')).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
  });
});
