import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  API_KEY_CACHE_TTL_MS,
  ApiKeyEvents,
  apiKeySecretMatches,
  ApiKeyRpc,
  DomainError,
  ErrorCode,
  parseApiKey,
  type Principal,
  type ResolvedApiKey,
} from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';

interface Entry {
  key: ResolvedApiKey;
  fetchedAt: number;
}

/**
 * The API keys this gateway has seen, resolved once over NATS and then checked in memory: no
 * database round trip per request. A revoked key is dropped when its event arrives (every replica
 * hears it: a plain subscription, no queue group); entries older than the TTL are fetched again,
 * and the whole cache is dropped when the NATS connection comes back, in case events were missed.
 * Expiry is checked on every use.
 */
@Injectable()
export class ApiKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, Promise<ResolvedApiKey | null>>();
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
        }
      }
    })();
  }

  onModuleDestroy(): void {
    this.stopped = true;
    this.sub?.unsubscribe();
  }

  forget(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }

  /** The principal of a valid key; null for an unknown, wrong, expired or revoked one. */
  async principal(value: string, now = Date.now()): Promise<Principal | null> {
    const parsed = parseApiKey(value);
    if (!parsed) return null;
    const key = await this.lookup(parsed.id, now);
    if (!key || !apiKeySecretMatches(parsed.secret, key.hash)) return null;
    if (key.expiresAt && Date.parse(key.expiresAt) <= now) return null;
    return {
      sub: `key:${key.id}`,
      tenant: key.tenant,
      roles: [key.role],
      ...(key.projectId ? { project: key.projectId } : {}),
      credential: 'key',
    };
  }

  private async lookup(id: string, now: number): Promise<ResolvedApiKey | null> {
    const hit = this.entries.get(id);
    if (hit && now - hit.fetchedAt < API_KEY_CACHE_TTL_MS) return hit.key;
    let p = this.pending.get(id);
    if (!p) {
      p = this.fetch(id).finally(() => this.pending.delete(id));
      this.pending.set(id, p);
    }
    return p;
  }

  private async fetch(id: string): Promise<ResolvedApiKey | null> {
    const generation = this.generation;
    try {
      const key = await this.rpc.call(ApiKeyRpc.resolve, { id }, `key-${id.slice(0, 8)}`);
      if (generation === this.generation) this.entries.set(id, { key, fetchedAt: Date.now() });
      return key;
    } catch (err) {
      if (err instanceof DomainError && err.code === ErrorCode.NOT_FOUND) {
        this.entries.delete(id);
        return null;
      }
      throw err;
    }
  }
}
