/**
 * The phases of a proxied request, as `Server-Timing` reports them:
 * - `auth`: checking the caller's token at the gateway;
 * - `rpc`: the NATS round trip to the message proxy, less the phases the proxy reports itself
 *   (so transport, queueing and the proxy's own bookkeeping);
 * - `guard`: the project's scanners, both ways (reported by the proxy);
 * - `upstream`: the model provider, request sent to answer read (reported by the proxy);
 * - `record`: recording the prompt (reported by the proxy).
 */
export const PHASES = ['auth', 'rpc', 'guard', 'upstream', 'record'] as const;
export type Phase = (typeof PHASES)[number];
export type PhaseTimings = Partial<Record<Phase, number>>;

/** The phases the message proxy may report in a reply's optional `timing` field, in ms. */
export const REMOTE_PHASES = ['guard', 'upstream', 'record'] as const;
export type RemoteTimings = Partial<Record<(typeof REMOTE_PHASES)[number], number>>;

/** The proxy's `timing` field, keeping only finite, non-negative numbers; absent or malformed is `{}`. */
export function remoteTimings(value: unknown): RemoteTimings {
  const out: RemoteTimings = {};
  if (value === null || typeof value !== 'object') return out;
  for (const phase of REMOTE_PHASES) {
    const ms = (value as Record<string, unknown>)[phase];
    if (typeof ms === 'number' && Number.isFinite(ms) && ms >= 0) out[phase] = ms;
  }
  return out;
}

/**
 * The round trip of an RPC split into what the proxy reports and the rest (`rpc`), which never goes
 * below zero when the proxy's clock and ours disagree slightly.
 */
export function splitRoundTrip(roundTripMs: number, remote: RemoteTimings): PhaseTimings {
  const reported = REMOTE_PHASES.reduce((sum, p) => sum + (remote[p] ?? 0), 0);
  return { rpc: Math.max(0, roundTripMs - reported), ...remote };
}

/** `auth;dur=0.42, rpc;dur=1.3, ...` in phase order, or undefined when there is nothing to say. */
export function serverTimingHeader(timings: PhaseTimings): string | undefined {
  const parts = PHASES.filter((p) => timings[p] !== undefined).map((p) => `${p};dur=${round(timings[p] as number)}`);
  return parts.length ? parts.join(', ') : undefined;
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
