import { ProviderLimiter, take } from './provider-limiter';

describe('ProviderLimiter', () => {
  let t = 0;
  const limiter = () => new ProviderLimiter(() => t);
  beforeEach(() => (t = 100));

  it('allows maxRequestsPerSecond per second, then says when to retry', () => {
    const l = limiter();
    const limits = { maxRequestsPerSecond: 3, requestConcurrencyLimit: null };
    for (let i = 0; i < 3; i++) expect(l.acquire('p', limits)).toEqual({ ok: true });
    const refused = l.acquire('p', limits);
    expect(refused).toMatchObject({ ok: false, reason: 'more than 3 requests per second' });
    expect((refused as { retryAfter: number }).retryAfter).toBeCloseTo(1 / 3);
    t += 0.34;
    expect(l.acquire('p', limits)).toEqual({ ok: true });
  });

  it('caps the leaky bucket at `requests`, draining at decayPerSecond', () => {
    const l = limiter();
    const limits = { maxRequestsPerSecond: null, requestConcurrencyLimit: { requests: 2, decayPerSecond: 1 } };
    expect(l.acquire('p', limits).ok).toBe(true);
    expect(l.acquire('p', limits).ok).toBe(true);
    const refused = l.acquire('p', limits);
    expect(refused).toMatchObject({ ok: false, reason: 'more than 2 requests in flight', retryAfter: 1 });
    t += 1;
    expect(l.acquire('p', limits).ok).toBe(true);
  });

  it('keeps providers apart and lets everything through without limits', () => {
    const l = limiter();
    expect(l.acquire('a', { maxRequestsPerSecond: 1, requestConcurrencyLimit: null }).ok).toBe(true);
    expect(l.acquire('b', { maxRequestsPerSecond: 1, requestConcurrencyLimit: null }).ok).toBe(true);
    for (let i = 0; i < 100; i++)
      expect(l.acquire('c', { maxRequestsPerSecond: null, requestConcurrencyLimit: null }).ok).toBe(true);
  });
});

describe('take (a lease of admissions)', () => {
  const limits = { maxRequestsPerSecond: 10, requestConcurrencyLimit: { requests: 4, decayPerSecond: 1 } };

  it('grants as many as fit under both limits, counting each like one admission', () => {
    const first = take(undefined, limits, 100, 3);
    expect(first.granted).toBe(3);
    expect(first.next).toMatchObject({ tokens: 7, level: 3 });
    const second = take(first.next, limits, 100, 3);
    expect(second.granted).toBe(1);
    const third = take(second.next, limits, 100, 3);
    expect(third).toMatchObject({ granted: 0, refusal: { reason: 'more than 4 requests in flight', retryAfter: 1 } });
  });

  it('takes back what a lease did not spend before granting again', () => {
    const full = take(undefined, limits, 100, 4).next;
    const renewed = take(full, limits, 100, 2, 2);
    expect(renewed.granted).toBe(2);
    expect(renewed.next).toMatchObject({ tokens: 6, level: 4 });
    expect(take(full, limits, 100, 0, 3)).toMatchObject({ granted: 0, next: { tokens: 9, level: 1 } });
  });
});
