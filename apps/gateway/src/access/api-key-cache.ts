import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  API_KEY_CACHE_TTL_MS,
  ApiKeyEvents,
  apiKeyHashesMatch,
  ApiKeyRpc,
  DomainError,
  ErrorCode,
  hashApiKeySecret,
  parseApiKey,
  type Principal,
  type ResolvedApiKey,
} from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

interface Entry {
  key: ResolvedApiKey;
  fetchedAt: number;
  /**
   * Whether a use with the right secret was counted since the fetch: the fetch itself counts one
   * when it carried the right secret's hash; else the first right use sends its hash on its own
   * (`count`), so a wrong secret that happened to fill the cache does not keep the key looking unused.
   */
  counted: boolean;
}

/** How long an id the projects service does not know is answered "no" without asking again (ms). */
export const API_KEY_MISS_TTL_MS = 5_000;
/** At most this many unknown ids are remembered; the oldest go first. */
export const API_KEY_MISS_MAX_ENTRIES = 10_000;

/**
 * The API keys this gateway has seen, resolved once over NATS and then checked in memory: no
 * database round trip per request. A revoked key is dropped when its event arrives (every replica
 * hears it: a plain subscription, no queue group); entries older than the TTL are fetched again,
 * and the whole cache is dropped when the NATS connection comes back, in case events were missed.
 * Expiry is checked on every use.
 *
 * Ids the projects service does not know are remembered for API_KEY_MISS_TTL_MS (at most
 * API_KEY_MISS_MAX_ENTRIES of them), so a client repeating a deleted or made-up key costs one NATS
 * request and one query per few seconds, not one per request. A new key is not held up by this: its
 * id is a random UUID nobody could have sent before the create answer named it, and the gateway
 * that relays a create forgets the id anyway (`forget`).
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<Entry | null>>();
  /** Unknown ids and until when they stay unknown, oldest first (a Map keeps insertion order). */
  private readonly misses = new Map<string, number>();
  private sub?: Subscription;
  /** Grows with every revocation: a fetch that began before one does not fill the cache. */
  private generation = 0;
  private stopped = false;

  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  onModuleInit(): void {
    this.sub = this.nc.subscribe(ApiKeyEvents.revoked, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const id = (msg.json() as { id?: unknown }).id;
          if (typeof id === 'string') this.forget(id);
        } catch {
          // not an event of ours
        }
      },
    });
    void (async () => {
      for await (const s of this.nc.status()) {
        if (this.stopped) break;
        if (s.type === 'reconnect') {
          this.generation++;
          this.entries.clear();
          this.misses.clear();
        }
      }
    })();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    this.sub?.unsubscribe();
  }

  /** Drops what is known of the id, either way: the next use asks the projects service. */
  forget(id: string): void {
    this.generation++;
    this.entries.delete(id.toLowerCase());
    this.misses.delete(id.toLowerCase());
  }

  /** The principal of a valid key; null for an unknown, wrong, expired or revoked one. */
  async principal(value: string, now = Date.now()): Promise<Principal | null> {
    const parsed = parseApiKey(value);
    if (!parsed) return null;
    const secretHash = hashApiKeySecret(parsed.secret);
    const entry = await this.lookup(parsed.id, secretHash, now);
    const key = entry?.key;
    if (!entry || !key || !apiKeyHashesMatch(secretHash, key.hash)) return null;
    if (key.expiresAt && Date.parse(key.expiresAt) <= now) return null;
    if (!entry.counted) {
      entry.counted = true;
      this.count(key.id, secretHash);
    }
    return {
      sub: `key:${key.id}`,
      tenant: key.tenant,
      roles: [key.role],
      ...(key.projectId ? { project: key.projectId } : {}),
      credential: 'key',
    };
  }

  /** `secretHash` lets the projects service count the lookup as a use only when the secret is right. */
  private async lookup(id: string, secretHash: string, now: number): Promise<Entry | null> {
    const hit = this.entries.get(id);
    if (hit && now - hit.fetchedAt < API_KEY_CACHE_TTL_MS) return hit;
    const missUntil = this.misses.get(id);
    if (missUntil !== undefined) {
      if (now < missUntil) return null;
      this.misses.delete(id);
    }
    let p = this.pending.get(id);
    if (!p) {
      p = this.fetch(id, secretHash, now).finally(() => this.pending.delete(id));
      this.pending.set(id, p);
    }
    return p;
  }

  /** Tells the projects service of a use with the right secret (it writes lastUsedAt at most once a minute). */
  private count(id: string, secretHash: string): void {
    this.rpc.call(ApiKeyRpc.resolve, { id, secretHash }, `key-${id.slice(0, 8)}`).catch(() => undefined);
  }

  private async fetch(id: string, secretHash: string, now: number): Promise<Entry | null> {
    const generation = this.generation;
    try {
      const key = await this.rpc.call(ApiKeyRpc.resolve, { id, secretHash }, `key-${id.slice(0, 8)}`);
      const entry = { key, fetchedAt: Date.now(), counted: apiKeyHashesMatch(secretHash, key.hash) };
      if (generation === this.generation) this.entries.set(id, entry);
      return entry;
    } catch (err) {
      if (err instanceof DomainError && err.code === ErrorCode.NOT_FOUND) {
        this.entries.delete(id);
        if (generation === this.generation) this.rememberMiss(id, now);
        return null;
      }
      throw err;
    }
  }

  private rememberMiss(id: string, now: number): void {
    this.misses.delete(id);
    while (this.misses.size >= API_KEY_MISS_MAX_ENTRIES) {
      const oldest = this.misses.keys().next().value;
      if (oldest === undefined) break;
      this.misses.delete(oldest);
    }
    this.misses.set(id, now + API_KEY_MISS_TTL_MS);
  }
}
