import { expiryMs, VerifiedTokenCache } from './verified-token-cache';

const jwt = (claims: Record<string, unknown>) => `h.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`;
const NOW = 1_800_000_000_000;
const inSeconds = (s: number) => Math.floor(NOW / 1000) + s;

describe('VerifiedTokenCache', () => {
  it('answers a stored token until its exp', () => {
    const cache = new VerifiedTokenCache<string>(10, 3_600_000);
    const token = jwt({ exp: inSeconds(60) });
    cache.set(token, 'alice', NOW);
    expect(cache.get(token, NOW + 59_000)).toBe('alice');
    expect(cache.get(token, NOW + 60_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps no entry longer than its maximum age, whatever the exp', () => {
    const cache = new VerifiedTokenCache<string>(10, 5_000);
    const token = jwt({ exp: inSeconds(3600) });
    cache.set(token, 'alice', NOW);
    expect(cache.get(token, NOW + 4_999)).toBe('alice');
    expect(cache.get(token, NOW + 5_000)).toBeUndefined();
  });

  it('does not store a token without exp, or already expired', () => {
    const cache = new VerifiedTokenCache<string>(10, 60_000);
    cache.set(jwt({ sub: 'x' }), 'a', NOW);
    cache.set(jwt({ exp: inSeconds(-1) }), 'b', NOW);
    cache.set('not-a-jwt', 'c', NOW);
    expect(cache.size).toBe(0);
  });

  it('holds at most its bound, dropping the oldest first', () => {
    const cache = new VerifiedTokenCache<number>(2, 60_000);
    const tokens = [1, 2, 3].map((n) => jwt({ exp: inSeconds(60), n }));
    tokens.forEach((t, i) => cache.set(t, i, NOW));
    expect(cache.size).toBe(2);
    expect(cache.get(tokens[0], NOW)).toBeUndefined();
    expect(cache.get(tokens[2], NOW)).toBe(2);
  });

  it('treats a token that differs by a character as another token', () => {
    const cache = new VerifiedTokenCache<string>(10, 60_000);
    const token = jwt({ exp: inSeconds(60) });
    cache.set(token, 'alice', NOW);
    expect(cache.get(`${token}x`, NOW)).toBeUndefined();
  });

  it('stores nothing when disabled', () => {
    const cache = new VerifiedTokenCache<string>(10, 0);
    cache.set(jwt({ exp: inSeconds(60) }), 'alice', NOW);
    expect(cache.size).toBe(0);
  });
});

describe('expiryMs', () => {
  it('reads exp in ms', () => {
    expect(expiryMs(jwt({ exp: 1700000000 }))).toBe(1_700_000_000_000);
  });

  it.each(['', 'a', 'a.!!!.c', jwt({ exp: '1700000000' })])('is null for %p', (token) => {
    expect(expiryMs(token)).toBeNull();
  });
});
