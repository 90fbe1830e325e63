export interface ProviderLimits {
  maxRequestsPerSecond: number | null;
  requestConcurrencyLimit: { requests: number; decayPerSecond: number } | null;
}

export type LimitDecision = { ok: true } | { ok: false; retryAfter: number; reason: string };

/** Both buckets of one provider, at a moment (seconds). */
export interface LimitState {
  tokens: number;
  refilledAt: number;
  level: number;
  decayedAt: number;
}

/** True when the provider has a limit at all (otherwise nothing needs counting). */
export function hasLimits(limits: ProviderLimits): boolean {
  return (limits.maxRequestsPerSecond ?? 0) > 0 || limits.requestConcurrencyLimit !== null;
}

/**
 * One admission decision, as a pure step from the buckets' state: `maxRequestsPerSecond` is a
 * token bucket holding one second of requests; `requestConcurrencyLimit` a leaky bucket: each
 * request adds one, the bucket holds `requests` and drains at `decayPerSecond`, so bursts of
 * in-flight work are capped and recover at the provider's pace. A refused request takes nothing.
 */
export function admit(
  state: LimitState | undefined,
  limits: ProviderLimits,
  now: number,
): { decision: LimitDecision; next: LimitState } {
  const s: LimitState = state
    ? { ...state }
    : { tokens: limits.maxRequestsPerSecond ?? 0, refilledAt: now, level: 0, decayedAt: now };
  const rate = limits.maxRequestsPerSecond;
  if (rate !== null && rate > 0) {
    s.tokens = Math.min(rate, s.tokens + Math.max(0, now - s.refilledAt) * rate);
    s.refilledAt = now;
  }
  const c = limits.requestConcurrencyLimit;
  if (c) {
    s.level = Math.max(0, s.level - Math.max(0, now - s.decayedAt) * c.decayPerSecond);
    s.decayedAt = now;
  }
  if (rate !== null && rate > 0 && s.tokens < 1) {
    return {
      decision: { ok: false, retryAfter: (1 - s.tokens) / rate, reason: `more than ${rate} requests per second` },
      next: s,
    };
  }
  if (c && s.level + 1 > c.requests) {
    return {
      decision: {
        ok: false,
        retryAfter: (s.level + 1 - c.requests) / c.decayPerSecond,
        reason: `more than ${c.requests} requests in flight`,
      },
      next: s,
    };
  }
  if (rate !== null && rate > 0) s.tokens -= 1;
  if (c) s.level += 1;
  return { decision: { ok: true }, next: s };
}

/** A provider's limits counted in this process alone (the fallback when the shared count is out of reach). */
export class ProviderLimiter {
  private readonly states = new Map<string, LimitState>();

  constructor(private readonly nowSeconds: () => number = () => performance.now() / 1000) {}

  acquire(key: string, limits: ProviderLimits): LimitDecision {
    const { decision, next } = admit(this.states.get(key), limits, this.nowSeconds());
    this.states.set(key, next);
    return decision;
  }
}
