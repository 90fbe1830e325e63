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
  const { granted, refusal, next } = take(state, limits, now, 1);
  return { decision: granted === 1 ? { ok: true } : { ok: false, ...refusal! }, next };
}

/**
 * `admit` for up to `want` requests at once (a lease a replica spends on its own), after giving
 * back `giveBack` admissions taken earlier and not spent: each granted admission takes one token
 * and adds one to the leaky bucket, exactly as `want` separate admissions would; fewer than `want`
 * are granted when fewer fit, and none with the refusal of the limit that is full.
 */
export function take(
  state: LimitState | undefined,
  limits: ProviderLimits,
  now: number,
  want: number,
  giveBack = 0,
): { granted: number; refusal?: { retryAfter: number; reason: string }; next: LimitState } {
  const s: LimitState = state
    ? { ...state }
    : { tokens: limits.maxRequestsPerSecond ?? 0, refilledAt: now, level: 0, decayedAt: now };
  const rate =
    limits.maxRequestsPerSecond !== null && limits.maxRequestsPerSecond > 0 ? limits.maxRequestsPerSecond : null;
  if (rate !== null) {
    s.tokens = Math.min(rate, s.tokens + Math.max(0, now - s.refilledAt) * rate + giveBack);
    s.refilledAt = now;
  }
  const c = limits.requestConcurrencyLimit;
  if (c) {
    s.level = Math.max(0, s.level - Math.max(0, now - s.decayedAt) * c.decayPerSecond - giveBack);
    s.decayedAt = now;
  }
  let granted = want;
  if (rate !== null) granted = Math.min(granted, Math.floor(s.tokens));
  if (c) granted = Math.min(granted, Math.floor(c.requests - s.level));
  if (want <= 0) return { granted: 0, next: s };
  if (granted <= 0) {
    if (rate !== null && s.tokens < 1)
      return {
        granted: 0,
        refusal: { retryAfter: (1 - s.tokens) / rate, reason: `more than ${rate} requests per second` },
        next: s,
      };
    return {
      granted: 0,
      refusal: {
        retryAfter: (s.level + 1 - c!.requests) / c!.decayPerSecond,
        reason: `more than ${c!.requests} requests in flight`,
      },
      next: s,
    };
  }
  if (rate !== null) s.tokens -= granted;
  if (c) s.level += granted;
  return { granted, next: s };
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
