import { randomUUID } from 'node:crypto';
import { connectNats, natsLogin } from '@bastion/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import { SharedProviderLimiter } from '../src/limits/shared-provider-limiter';

const natsUrl = () => process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * Three message-proxy replicas (each its own NATS connection and limiter) share one provider's
 * limits through JetStream KV: what they admit together stays at the limit, not three times it.
 */
describe('provider limits across replicas (JetStream KV)', () => {
  let conns: NatsConnection[];
  let replicas: SharedProviderLimiter[];

  beforeAll(async () => {
    // Each as the message proxy's own NATS user: its permissions must cover the bucket.
    conns = await Promise.all(
      [0, 1, 2].map(() =>
        connectNats(natsLogin({ NATS_URL: natsUrl(), NATS_PASSWORD: '', NODE_ENV: 'test' }, 'message-proxy')),
      ),
    );
    replicas = conns.map((nc) => new SharedProviderLimiter(nc));
  });

  afterAll(async () => {
    await Promise.all((conns ?? []).map((nc) => nc.close()));
  });

  it('admits 50 requests per second in total, within 10%, however the load is spread', async () => {
    const key = `t-${randomUUID()}:p`;
    const limits = { maxRequestsPerSecond: 50, requestConcurrencyLimit: null };
    const admittedAt: number[] = [];
    const started = Date.now();
    // Each replica offers about 60 requests per second (180 in all) for 3.2 s.
    await Promise.all(
      replicas.map(async (r) => {
        while (Date.now() - started < 3200) {
          const d = await r.acquire(key, limits);
          if (d.ok) admittedAt.push(Date.now() - started);
          await new Promise((res) => setTimeout(res, 16));
        }
      }),
    );
    // After the first second's burst (the bucket starts full), the steady rate is the limit.
    const steady = admittedAt.filter((t) => t >= 1000 && t < 3000).length / 2;
    expect(steady).toBeGreaterThanOrEqual(45);
    expect(steady).toBeLessThanOrEqual(55);
  });

  it('never lets more than `requests` in at once across replicas', async () => {
    const key = `t-${randomUUID()}:p`;
    const limits = { maxRequestsPerSecond: null, requestConcurrencyLimit: { requests: 20, decayPerSecond: 0.001 } };
    const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => replicas[i % 3].acquire(key, limits)));
    expect(decisions.filter((d) => d.ok)).toHaveLength(20);
    expect(decisions.find((d) => !d.ok)).toMatchObject({ reason: 'more than 20 requests in flight' });
  });
});
