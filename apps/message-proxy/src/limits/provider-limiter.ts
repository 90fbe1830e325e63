export interface ProviderLimits {
  maxRequestsPerSecond: number | null;
  requestConcurrencyLimit: { requests: number; decayPerSecond: number } | null;
}

export type LimitDecision = { ok: true } | { ok: false; retryAfter: number; reason: string };

interface State {
  tokens: number;
  refilledAt: number;
  level: number;
  decayedAt: number;
}

/**
 * A provider's limits, per proxy replica. `maxRequestsPerSecond` is a token bucket holding one
 * second of requests. `requestConcurrencyLimit` is a leaky bucket: each request adds one, the
 * bucket holds `requests` and drains at `decayPerSecond`, so bursts of in-flight work are capped
 * and recover at the provider's pace. A refused request takes nothing from either bucket.
 */
export class ProviderLimiter {
  private readonly states = new Map<string, State>();

  constructor(private readonly nowSeconds: () => number = () => performance.now() / 1000) {}

  acquire(key: string, limits: ProviderLimits): LimitDecision {
    const now = this.nowSeconds();
    let s = this.states.get(key);
    if (!s) {
      s = { tokens: limits.maxRequestsPerSecond ?? 0, refilledAt: now, level: 0, decayedAt: now };
      this.states.set(key, s);
    }
    const rate = limits.maxRequestsPerSecond;
    if (rate !== null && rate > 0) {
      s.tokens = Math.min(rate, s.tokens + (now - s.refilledAt) * rate);
      s.refilledAt = now;
    }
    const c = limits.requestConcurrencyLimit;
    if (c) {
      s.level = Math.max(0, s.level - (now - s.decayedAt) * c.decayPerSecond);
      s.decayedAt = now;
    }
    if (rate !== null && rate > 0 && s.tokens < 1) {
      return { ok: false, retryAfter: (1 - s.tokens) / rate, reason: `more than ${rate} requests per second` };
    }
    if (c && s.level + 1 > c.requests) {
      return { ok: false, retryAfter: (s.level + 1 - c.requests) / c.decayPerSecond, reason: `more than ${c.requests} requests in flight` };
    }
    if (rate !== null && rate > 0) s.tokens -= 1;
    if (c) s.level += 1;
    return { ok: true };
  }

  /** Forget a provider's state (its limits changed). */
  reset(keyPrefix: string): void {
    for (const k of this.states.keys()) if (k.startsWith(keyPrefix)) this.states.delete(k);
  }
}
