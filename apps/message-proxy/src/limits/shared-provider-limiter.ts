import { PROVIDER_LIMITS_BUCKET } from '@bastion/contracts';
import { type KV, Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import {
  admit,
  hasLimits,
  type LimitDecision,
  type LimitState,
  ProviderLimiter,
  type ProviderLimits,
} from './provider-limiter';

/** Compare-and-set attempts before a request is refused as contended (a short Retry-After). */
const MAX_ATTEMPTS = 25;

/**
 * A provider's limits counted once across every message-proxy replica: the buckets live in a
 * JetStream KV entry, and each decision is a compare-and-set on it (read, decide with `admit`,
 * write only if nobody wrote in between; otherwise read again). Clocks are wall-clock seconds, the
 * one clock every replica shares. A provider without limits costs nothing here. A request that loses
 * the race MAX_ATTEMPTS times is refused with a short Retry-After (never let through uncounted).
 * When the bucket cannot be reached (NATS down), the decision falls back to this replica's own
 * count, so an outage degrades the limit to per replica instead of refusing every request.
 */
export class SharedProviderLimiter {
  private kv?: Promise<KV>;
  private readonly local = new ProviderLimiter(() => Date.now() / 1000);

  constructor(
    private readonly nc: NatsConnection,
    private readonly nowSeconds: () => number = () => Date.now() / 1000,
  ) {}

  private readonly queues = new Map<string, Promise<unknown>>();

  /**
   * One decision at a time per provider in this process (the requests of one replica would only
   * race each other on the entry); the replicas' compare-and-set settles the rest.
   */
  acquire(key: string, limits: ProviderLimits): Promise<LimitDecision> {
    if (!hasLimits(limits)) return Promise.resolve({ ok: true });
    const previous = this.queues.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.decide(key, limits));
    const settled = next.catch(() => undefined);
    this.queues.set(key, settled);
    void settled.then(() => {
      if (this.queues.get(key) === settled) this.queues.delete(key);
    });
    return next;
  }

  private async decide(key: string, limits: ProviderLimits): Promise<LimitDecision> {
    const name = key.replace(/[^A-Za-z0-9_=-]/g, '_');
    try {
      const kv = await this.bucket();
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        const entry = await kv.get(name);
        const current =
          entry && entry.operation === 'PUT' && entry.length > 0 ? (entry.json<LimitState>() ?? undefined) : undefined;
        const { decision, next } = admit(current, limits, this.nowSeconds());
        if (!decision.ok) return decision;
        try {
          if (entry && entry.revision > 0) await kv.update(name, JSON.stringify(next), entry.revision);
          else await kv.create(name, JSON.stringify(next));
          return decision;
        } catch {
          // Another replica (or request) wrote first: back off a little, at random, and decide again on what it wrote.
          await new Promise((r) => setTimeout(r, Math.random() * 2 * (attempt + 1)));
        }
      }
      return { ok: false, retryAfter: 0.05, reason: 'the provider limit is contended' };
    } catch {
      this.kv = undefined;
    }
    return this.local.acquire(key, limits);
  }

  private bucket(): Promise<KV> {
    // Entries expire after a minute unused: an idle provider's buckets are full again by then anyway.
    this.kv ??= new Kvm(this.nc).create(PROVIDER_LIMITS_BUCKET, { history: 1, ttl: 60_000 });
    return this.kv;
  }
}
