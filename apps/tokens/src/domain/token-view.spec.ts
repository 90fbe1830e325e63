import type { AdmissionToken } from './admission-rules';
import { secretsEqual, TokenView } from './token-view';

const token = (uid: string, revision = 1, over: Partial<AdmissionToken> = {}): AdmissionToken => ({
  uid,
  tenant: 't',
  namespace: 'system',
  name: uid,
  state: 'VALID',
  disable: false,
  type: 'NORMAL',
  siteName: '',
  contentHash: '',
  expiresAt: null,
  maxRegistrations: null,
  usedRegistrations: 0,
  revision,
  ...over,
});

describe('TokenView', () => {
  it('finds a token by its secret and nothing by a near miss', () => {
    const v = new TokenView();
    v.upsert(token('c05edd2d-f6b2-4863-aa6e-5fa177e063e1'));
    expect(v.findBySecret('c05edd2d-f6b2-4863-aa6e-5fa177e063e1')?.name).toBe('c05edd2d-f6b2-4863-aa6e-5fa177e063e1');
    expect(v.findBySecret('c05edd2d-f6b2-4863-aa6e-5fa177e063e2')).toBeUndefined();
    expect(v.findBySecret('')).toBeUndefined();
  });

  it('keeps the newest revision whatever order events arrive in', () => {
    const v = new TokenView();
    v.upsert(token('a', 3, { state: 'EXPIRED' }));
    v.upsert(token('a', 2, { state: 'VALID' }));
    expect(v.get('a')?.state).toBe('EXPIRED');
    v.upsert(token('a', 4, { state: 'VALID' }));
    expect(v.get('a')?.state).toBe('VALID');
  });

  it('never brings a deleted token back', () => {
    const v = new TokenView();
    v.upsert(token('a', 1));
    v.remove('a');
    v.upsert(token('a', 5));
    expect(v.get('a')).toBeUndefined();
    expect(v.findBySecret('a')).toBeUndefined();
    expect(v.size).toBe(0);
  });
});

describe('secretsEqual', () => {
  it('compares exactly', () => {
    expect(secretsEqual('abc', 'abc')).toBe(true);
    expect(secretsEqual('abc', 'abd')).toBe(false);
    expect(secretsEqual('abc', 'abcd')).toBe(false);
  });
});
