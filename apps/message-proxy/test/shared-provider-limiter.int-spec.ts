import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kvm } from '@nats-io/kv';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { PROVIDER_LIMITS_BUCKET } from '@bastion/contracts';
import { loginOptions, processState, resilientOptions } from '@bastion/messaging';
import { freePort, serviceNatsLogin, startNatsServer, waitFor } from '@bastion/testing';
import { LEASE_SECONDS, SharedProviderLimiter } from '../src/limits/shared-provider-limiter';

const natsUrl = () => process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
/** The message proxy's own NATS user: its permissions must cover the bucket. */
const asProxy = (url: string) => loginOptions(serviceNatsLogin('message-proxy', url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Message-proxy replicas (each its own NATS connection and limiter) share one provider's limits
 * through JetStream KV: what they admit together stays at the limit, not a multiple of it, although
 * each takes its admissions in leases.
 */
describe('provider limits across replicas (JetStream KV)', () => {
  let conns: NatsConnection[];
  let replicas: SharedProviderLimiter[];

  beforeAll(async () => {
    conns = await Promise.all([0, 1, 2].map(() => connect(asProxy(natsUrl()))));
    replicas = conns.map((nc) => new SharedProviderLimiter(nc));
  });

  afterAll(async () => {
    await Promise.all((conns ?? []).map((nc) => nc.close()));
  });

  it('admits 50 requests per second in total, however the load is spread', async () => {
    const key = `t-${randomUUID()}:p`;
    const limits = { maxRequestsPerSecond: 50, requestConcurrencyLimit: null };
    // Decisions a replica took alone, its KV operation having timed out (a process stalled past the
    // KV timeout): each may admit one request the shared count does not see.
    const alone = replicas.map((r) =>
      jest.spyOn((r as unknown as { local: { acquire(...a: unknown[]): unknown } }).local, 'acquire'),
    );
    let admitted = 0;
    const started = Date.now();
    // Each replica offers about 60 requests per second (180 in all) for 3.2 s.
    await Promise.all(
      replicas.map(async (r) => {
        while (Date.now() - started < 3200) {
          if ((await r.acquire(key, limits)).ok) admitted++;
          await sleep(16);
        }
      }),
    );
    const seconds = (Date.now() - started) / 1000;
    const local = alone.reduce((n, spy) => n + spy.mock.calls.length, 0);
    alone.forEach((spy) => spy.mockRestore());
    // The limiter's own bound over the whole run, a stalled process or not (a stall only offers fewer
    // requests, and the bucket holds at most one second's worth): at most 50 x (1 + T + LEASE_SECONDS)
    // in T seconds. A limiter admitting twice the rate would let about 420 through here, against 215.
    expect(admitted).toBeLessThanOrEqual(50 * (1 + seconds + LEASE_SECONDS) + local);
    // The limit is what is let in, not far less: the full bucket and most of 3.2 s of refills (about
    // 210 here), with room for stalls, during which nothing is offered.
    expect(admitted).toBeGreaterThanOrEqual(100);
  });

  it('never lets more than `requests` in at once across replicas, and what a lease left unspent comes back', async () => {
    const key = `t-${randomUUID()}:p`;
    const limits = { maxRequestsPerSecond: null, requestConcurrencyLimit: { requests: 20, decayPerSecond: 0.001 } };
    const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => replicas[i % 3].acquire(key, limits)));
    const admitted = burst.filter((d) => d.ok).length;
    expect(admitted).toBeLessThanOrEqual(20);
    // Held unspent by other replicas' leases: at most 10% of the limit each.
    expect(admitted).toBeGreaterThanOrEqual(20 - 2 * 2);
    expect(burst.find((d) => !d.ok)).toMatchObject({ reason: 'more than 20 requests in flight' });
    // Once the leases expired, what they left is back in the shared count, and no more than that:
    // the shared level comes down to what was admitted (it decays by 0.001 a second) once every
    // replica wrote its give-back.
    const kv = await new Kvm(conns[0]).open(PROVIDER_LIMITS_BUCKET);
    const level = async () => (await kv.get(key.replace(':', '_')))!.json<{ level: number }>().level;
    await waitFor(async () => ((await level()) < admitted + 1 ? true : undefined), 10_000, 'the leases given back');
    const later = await Promise.all(Array.from({ length: 30 }, (_, i) => replicas[i % 3].acquire(key, limits)));
    expect(admitted + later.filter((d) => d.ok).length).toBe(20);
  });

  it('lets two replicas share a limit, each writing the shared entry once per lease, not per request', async () => {
    const key = `t-${randomUUID()}:p`;
    const name = key.replace(':', '_');
    const limits = { maxRequestsPerSecond: null, requestConcurrencyLimit: { requests: 1000, decayPerSecond: 0.001 } };
    const [a, b] = replicas;
    const kv = await new Kvm(conns[0]).open(PROVIDER_LIMITS_BUCKET);
    const decisions = [];
    for (let i = 0; i < 200; i++) decisions.push(await (i % 4 === 0 ? b : a).acquire(key, limits));
    expect(decisions.every((d) => d.ok)).toBe(true);
    const before = (await kv.get(name))!.revision;
    for (let i = 0; i < 200; i++) expect((await a.acquire(key, limits)).ok).toBe(true);
    const after = (await kv.get(name))!;
    // 400 admitted between them, plus what their leases still hold (at most 10% of the limit each).
    const { level } = after.json<{ level: number }>();
    expect(level).toBeGreaterThanOrEqual(399);
    expect(level).toBeLessThanOrEqual(400 + 2 * 100);
    // Revisions count the bucket's writes: 200 admissions took a handful (leases double up to 100);
    // one write per request would be 200. Room for leases that a stalled process let expire (each a
    // give-back, and the next lease half as large).
    expect(after.revision - before).toBeLessThan(100);
  });
});

describe('provider limits when the KV is out of reach', () => {
  const store = mkdtempSync(join(tmpdir(), 'limiter-nats-'));
  let server: Awaited<ReturnType<typeof startNatsServer>>;
  let nc: NatsConnection;

  beforeAll(async () => {
    server = await startNatsServer(store, await freePort());
    const options = resilientOptions();
    nc = await connect({ ...asProxy(server.url), ...options, reconnectDelayHandler: () => 200 });
    processState.track(nc, 'limiter-test', undefined, options.attempts);
  });

  afterAll(async () => {
    await nc?.close();
    await server?.stop();
    rmSync(store, { recursive: true, force: true });
  });

  it('counts in this replica alone while NATS is down, at once rather than after a timeout', async () => {
    const limiter = new SharedProviderLimiter(nc);
    const limits = { maxRequestsPerSecond: 3, requestConcurrencyLimit: null };
    expect((await limiter.acquire('t:shared', limits)).ok).toBe(true);
    expect(await new Kvm(nc).open(PROVIDER_LIMITS_BUCKET).then((kv) => kv.get('t_shared'))).not.toBeNull();

    await server.stop();
    await waitFor(() => (processState.isConnected(nc) ? undefined : true), 5000, 'the connection down');
    // No KV operation is tried while disconnected: each would wait for its timeout (1 s).
    const renew = jest.spyOn(limiter as unknown as { renew(...a: unknown[]): Promise<unknown> }, 'renew');
    const started = performance.now();
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push(await limiter.acquire('t:local', limits));
    expect(renew).not.toHaveBeenCalled();
    expect(performance.now() - started).toBeLessThan(1000);
    // The local count still holds the limit: three per second, then a refusal.
    expect(decisions.map((d) => d.ok)).toEqual([true, true, true, false]);
    expect(decisions[3]).toMatchObject({ reason: 'more than 3 requests per second' });
  });
});
