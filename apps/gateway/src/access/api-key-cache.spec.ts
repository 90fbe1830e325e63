import { randomUUID } from 'node:crypto';
import {
  apiKeyHashesMatch,
  DomainError,
  hashApiKeySecret,
  newApiKey,
  parseApiKey,
  type ResolvedApiKey,
} from '@bastion/contracts';
import type { NatsRpcClient } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import { API_KEY_MISS_MAX_ENTRIES, API_KEY_MISS_TTL_MS, ApiKeyCache } from './api-key-cache';

/** A projects service that knows the keys in `known` and counts the lookups it answers. */
function fakeProjects() {
  const known = new Map<string, ResolvedApiKey>();
  const asked: { id: string; secretHash?: string }[] = [];
  const rpc = {
    call: async (_contract: unknown, query: { id: string; secretHash?: string }) => {
      asked.push(query);
      const key = known.get(query.id);
      if (!key) throw DomainError.notFound('no such key');
      return key;
    },
  } as unknown as NatsRpcClient;
  const cache = new ApiKeyCache(rpc, {} as NatsConnection);
  const make = () => {
    const id = randomUUID();
    const { value, hash } = newApiKey(id);
    const key: ResolvedApiKey = { id, tenant: 't', projectId: null, role: 'member', hash, expiresAt: null };
    return { id, value, key };
  };
  return { known, asked, cache, make };
}

describe('ApiKeyCache', () => {
  it('asks once about an unknown key however often it comes within the miss TTL, then asks again', async () => {
    const { asked, cache, make } = fakeProjects();
    const { value } = make();
    const t0 = 1_000_000;
    for (let i = 0; i < 20; i++) expect(await cache.principal(value, t0 + i * 100)).toBeNull();
    expect(asked).toHaveLength(1);
    expect(await cache.principal(value, t0 + API_KEY_MISS_TTL_MS)).toBeNull();
    expect(asked).toHaveLength(2);
  });

  it('remembers a bounded number of unknown ids, dropping the oldest', async () => {
    const { asked, cache, make } = fakeProjects();
    const first = make().value;
    await cache.principal(first, 0);
    for (let i = 0; i < API_KEY_MISS_MAX_ENTRIES; i++) await cache.principal(make().value, 0);
    const before = asked.length;
    await cache.principal(first, 1);
    expect(asked).toHaveLength(before + 1);
  });

  it('takes a key made after its id was looked up and found unknown, once the creating gateway forgets the id', async () => {
    const { known, cache, make } = fakeProjects();
    const { id, value, key } = make();
    expect(await cache.principal(value, 0)).toBeNull();
    known.set(id, key);
    cache.forget(id);
    expect(await cache.principal(value, 1)).toMatchObject({ sub: `key:${id}`, credential: 'key' });
  });

  it('counts the first right use after a wrong secret filled the cache, once', async () => {
    const { known, asked, cache, make } = fakeProjects();
    const { id, value, key } = make();
    known.set(id, key);
    const wrong = `${value.slice(0, -4)}AAAA`;
    expect(await cache.principal(wrong, 0)).toBeNull();
    expect(asked).toHaveLength(1);
    // Served from the cache the wrong secret filled: the right secret's hash is sent once on its own.
    for (let i = 1; i <= 5; i++) expect(await cache.principal(value, i)).not.toBeNull();
    await new Promise((r) => setImmediate(r));
    const right = hashApiKeySecret(parseApiKey(value)!.secret);
    expect(asked.map((a) => a.secretHash === right)).toEqual([false, true]);
  });

  it('lets the request through when counting the use fails (NATS down): the count is fire and forget', async () => {
    const { known, cache, make } = fakeProjects();
    const { id, value, key } = make();
    known.set(id, key);
    const rpc = (cache as unknown as { rpc: { call: (...a: unknown[]) => Promise<unknown> } }).rpc;
    expect(await cache.principal(`${value.slice(0, -4)}AAAA`, 0)).toBeNull();
    rpc.call = () => Promise.reject(new Error('NATS is down'));
    const rejections: unknown[] = [];
    const onRejection = (e: unknown) => rejections.push(e);
    process.on('unhandledRejection', onRejection);
    try {
      expect(await cache.principal(value, 1)).toMatchObject({ sub: `key:${id}` });
      await new Promise((r) => setImmediate(r));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('does not count a use again when the fetch carried the right secret', async () => {
    const { known, asked, cache, make } = fakeProjects();
    const { id, value, key } = make();
    known.set(id, key);
    for (let i = 0; i < 5; i++) expect(await cache.principal(value, i)).not.toBeNull();
    await new Promise((r) => setImmediate(r));
    expect(asked).toHaveLength(1);
  });

  it('sends the hash of the presented secret, so the service can tell a use from a guess', async () => {
    const { known, asked, cache, make } = fakeProjects();
    const { id, value, key } = make();
    known.set(id, key);
    expect(await cache.principal(value)).not.toBeNull();
    const sent = asked[0].secretHash!;
    expect(sent).toBe(hashApiKeySecret(parseApiKey(value)!.secret));
    expect(apiKeyHashesMatch(sent, key.hash)).toBe(true);
    expect(value).not.toContain(sent);
  });
});
