import { PROVIDER_LIMITS_BUCKET } from '@bastion/contracts';
import { JetStreamApiCodes, JetStreamApiError, jetstream } from '@nats-io/jetstream';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { processState } from '@bastion/messaging';
import {
  hasLimits,
  type LimitDecision,
  type LimitState,
  ProviderLimiter,
  type ProviderLimits,
  take,
} from './provider-limiter';

/** How long a replica may keep admissions it took from the shared count before it gives back what it did not spend (s). */
export const LEASE_SECONDS = 0.1;

/** The largest lease, as a share of the provider's room (its rate, or its concurrency `requests`). */
export const LEASE_SHARE = 0.1;

/** Compare-and-set attempts before a request is refused as contended (a short Retry-After). */
const MAX_ATTEMPTS = 25;

/** A KV operation slower than this is taken for an unreachable bucket (ms); one takes well under a millisecond. */
const KV_TIMEOUT_MS = 1000;

/** Admissions one replica took from the shared count of one provider. */
interface Lease {
  /** Left to spend here until `expiresAt`. */
  units: number;
  /** How many the last renewal asked for. */
  size: number;
  /** Seconds, on the limiter's clock. */
  expiresAt: number;
  /** Whether the last lease was all spent (the next one asks for twice as many) or expired with some left (half). */
  spentAll: boolean;
  /** Gives back what is left when the lease expires. */
  timer?: NodeJS.Timeout;
  /** The entry as this replica last wrote it: the next compare-and-set tries it before reading again. */
  entry?: { revision: number; state: LimitState | undefined };
}

/**
 * A provider's limits counted once across every message-proxy replica. The buckets live in a
 * JetStream KV entry, and a replica takes admissions from it in leases: one compare-and-set (read,
 * `take` up to the lease's size, write only if nobody wrote in between; otherwise read again) takes
 * a batch that this replica then spends locally, so a busy replica touches the KV once per lease
 * rather than twice per request. A lease starts at one admission, doubles each time it is spent
 * before it expires and halves when it expires unspent, never past LEASE_SHARE of the limit; what
 * is left after LEASE_SECONDS goes back to the entry (in the next renewal's write, or on its own).
 *
 * Tolerance, against a single exact count:
 * - a leased admission is counted when the lease is taken and spent up to LEASE_SECONDS later, so
 *   across replicas a rate limit admits at most `maxRequestsPerSecond x (1 + T + LEASE_SECONDS)`
 *   requests in any T seconds (the exact bucket: `x (1 + T)`), and the leaky bucket may hold up to
 *   `decayPerSecond x LEASE_SECONDS` more than `requests`, having drained from the lease's time;
 * - admissions other replicas hold unspent (at most LEASE_SHARE of the limit each, for at most
 *   LEASE_SECONDS) are missing from the count: a request may be refused although they would have
 *   let it in, until they come back.
 *
 * Clocks are wall-clock seconds, the one clock every replica shares. A provider without limits
 * costs nothing here. A renewal that loses the race MAX_ATTEMPTS times is refused with a short
 * Retry-After (never let through uncounted). When the bucket cannot be reached (NATS down), the
 * decision falls back to this replica's own count, so an outage degrades the limit to per replica
 * instead of refusing every request.
 */
export class SharedProviderLimiter {
  private kv?: Promise<KV>;
  private readonly local = new ProviderLimiter(() => Date.now() / 1000);
  private readonly leases = new Map<string, Lease>();
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly nc: NatsConnection,
    private readonly nowSeconds: () => number = () => Date.now() / 1000,
  ) {}

  /**
   * From this replica's lease when it has admissions left; otherwise one renewal at a time per
   * provider in this process (the requests of one replica would only race each other on the
   * entry), the replicas' compare-and-set settling the rest.
   */
  acquire(key: string, limits: ProviderLimits): Promise<LimitDecision> {
    if (!hasLimits(limits)) return Promise.resolve({ ok: true });
    if (this.spend(key)) return Promise.resolve({ ok: true });
    return this.serially(key, () => (this.spend(key) ? { ok: true } : this.decide(key, limits)));
  }

  private serially<T>(key: string, step: () => T | Promise<T>): Promise<T> {
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(step);
    const settled = next.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  /** Takes one admission from this replica's lease, if it has one left in time. */
  private spend(key: string): boolean {
    const lease = this.leases.get(key);
    if (!lease || lease.units <= 0 || this.nowSeconds() >= lease.expiresAt) return false;
    lease.units--;
    if (lease.units === 0) lease.spentAll = true;
    return true;
  }

  private async decide(key: string, limits: ProviderLimits): Promise<LimitDecision> {
    if (processState.isConnected(this.nc)) {
      try {
        return await this.renew(key, limits);
      } catch {
        this.kv = undefined;
      }
    }
    return this.local.acquire(key, limits);
  }

  /**
   * One compare-and-set on the provider's entry: gives back what an expired lease left and takes a
   * new lease (or, with `want` 0, only gives back). Spends one admission of it at once.
   */
  private async renew(key: string, limits: ProviderLimits, want?: number): Promise<LimitDecision> {
    const lease = this.leases.get(key) ?? { units: 0, size: 0, expiresAt: 0, spentAll: true };
    this.leases.set(key, lease);
    const size =
      want ?? Math.min(maxLease(limits), Math.max(1, lease.spentAll ? lease.size * 2 : Math.ceil(lease.size / 2)));
    const giveBack = lease.units;
    lease.units = 0;
    clearTimeout(lease.timer);
    try {
      return await this.compareAndSet(key, lease, limits, size, giveBack);
    } catch (err) {
      // Not given back: it stays with the (expired) lease for the next renewal.
      lease.units = giveBack;
      throw err;
    }
  }

  private async compareAndSet(
    key: string,
    lease: Lease,
    limits: ProviderLimits,
    size: number,
    giveBack: number,
  ): Promise<LimitDecision> {
    const name = key.replace(/[^A-Za-z0-9_=-]/g, '_');
    const kv = await this.bucket();
    let entry = lease.entry;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const cached = entry !== undefined;
      if (!cached) entry = await read(kv, name);
      const now = this.nowSeconds();
      const { granted, refusal, next } = take(entry?.state, limits, now, size, giveBack);
      if (granted === 0 && giveBack === 0) return refusal ? { ok: false, ...refusal } : { ok: true };
      try {
        const revision = entry
          ? await kv.update(name, JSON.stringify(next), entry.revision)
          : await kv.create(name, JSON.stringify(next));
        lease.entry = { revision, state: next };
      } catch (err) {
        if (!isConflict(err)) throw err;
        // Another replica wrote first: read again; after a fresh read lost too, back off a little, at random.
        entry = undefined;
        lease.entry = undefined;
        if (!cached) await new Promise((r) => setTimeout(r, Math.random() * 2 * (attempt + 1)));
        continue;
      }
      if (granted === 0) return refusal ? { ok: false, ...refusal } : { ok: true };
      lease.size = size;
      lease.units = granted - 1;
      lease.spentAll = lease.units === 0;
      lease.expiresAt = now + LEASE_SECONDS;
      if (lease.units > 0) lease.timer = setTimeout(() => void this.expire(key, limits), LEASE_SECONDS * 1000).unref();
      return { ok: true };
    }
    lease.units = giveBack;
    return { ok: false, retryAfter: 0.05, reason: 'the provider limit is contended' };
  }

  /** A lease ran out of time with admissions left: they go back to the shared count. */
  private expire(key: string, limits: ProviderLimits): Promise<unknown> {
    return this.serially(key, async () => {
      const lease = this.leases.get(key);
      if (!lease || lease.units <= 0 || this.nowSeconds() < lease.expiresAt) return;
      lease.spentAll = false;
      if (!processState.isConnected(this.nc)) return;
      await this.renew(key, limits, 0).catch(() => (this.kv = undefined));
    });
  }

  private bucket(): Promise<KV> {
    // Entries expire after a minute unused: an idle provider's buckets are full again by then anyway.
    this.kv ??= new Kvm(jetstream(this.nc, { timeout: KV_TIMEOUT_MS })).create(PROVIDER_LIMITS_BUCKET, {
      history: 1,
      ttl: 60_000,
    });
    return this.kv;
  }
}

/** The most one lease may take: LEASE_SHARE of the tightest limit, at least one. */
function maxLease(limits: ProviderLimits): number {
  const rate =
    limits.maxRequestsPerSecond !== null && limits.maxRequestsPerSecond > 0 ? limits.maxRequestsPerSecond : Infinity;
  const room = Math.min(rate, limits.requestConcurrencyLimit?.requests ?? Infinity);
  return Math.max(1, Math.floor(room * LEASE_SHARE));
}

async function read(kv: KV, name: string): Promise<{ revision: number; state: LimitState | undefined } | undefined> {
  const e = await kv.get(name);
  if (!e) return undefined;
  return {
    revision: e.revision,
    state: e.operation === 'PUT' && e.length > 0 ? (e.json<LimitState>() ?? undefined) : undefined,
  };
}

/** The write lost a compare-and-set (the entry changed, or appeared, since it was read). */
function isConflict(err: unknown): boolean {
  return (
    err instanceof JetStreamApiError &&
    (err.code === (JetStreamApiCodes.StreamWrongLastSequence as number) ||
      err.code === (JetStreamApiCodes.StreamWrongLastSequenceUnknown as number))
  );
}
