import { randomUUID } from 'node:crypto';
import { declareEvent } from '@bastion/contracts';
import { testNatsLogin } from '@bastion/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { IsString } from 'class-validator';
import pino, { type Logger } from 'pino';
import { DurableConsumer, type DurableConsumerOptions } from '../src/jetstream/durable-consumer';
import { MAX_GROUP_EVENTS, MAX_GROUPED_EVENT_CHARS } from '../src/jetstream/event-groups';
import { ensureStream, EVENT_GROUP_HEADER, EventPublisher } from '../src/jetstream/event-publisher';
import { consumes } from '../src/nats/handles';
import { connectNats } from '../src/nats/nats-connection';

class Rec {
  @IsString()
  id!: string;
}

const logger = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** A logger that keeps its error lines, and the consumer's park lines among them. */
function errorLog() {
  const lines: Array<{ msg: string; seq?: number; deliveries?: number; err?: { message: string } }> = [];
  const logger = pino({ level: 'error' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, parks: () => lines.filter((l) => l.msg.startsWith('event handler failed at every delivery')) };
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('grouped events (against the real NATS JetStream)', () => {
  let nc: NatsConnection;
  let stream: string;
  let event: ReturnType<typeof declareEvent<Rec>>;

  beforeEach(async () => {
    nc ??= await connectNats(testNatsLogin(), { name: 'event-groups-test' });
    const tag = randomUUID().slice(0, 8);
    stream = `TEST_GROUPS_${tag}`;
    event = declareEvent(`test.${tag}.recorded.v1`, Rec, stream, { grouped: true });
    await ensureStream(nc, { name: stream, subjects: [event.subject], maxAgeMs: 600_000 });
  });
  afterEach(async () => (await jetstreamManager(nc)).streams.delete(stream));
  afterAll(() => nc?.close());

  /** The durable consumer `store` of the test's stream, with the test's logger unless one is given. */
  const startStore = (
    options: Omit<DurableConsumerOptions<Rec>, 'stream' | 'subjects' | 'payload' | 'durable' | 'logger'> & {
      logger?: Logger;
    },
  ) => DurableConsumer.start<Rec>(nc, { ...consumes(event), durable: 'store', logger, ...options });

  /**
   * Every event the consumer of the test's stream hands its handlers, until `count` arrived: to a
   * batch handler (of `batchSize`; each batch's size goes to `slices`), or `oneByOne` without one.
   */
  async function consumeAll(
    count: number,
    { oneByOne = false, batchSize, slices = [] }: { oneByOne?: boolean; batchSize?: number; slices?: number[] } = {},
  ) {
    const seen: string[] = [];
    const batch = {
      handler: async (es: Rec[]) => void (slices.push(es.length), seen.push(...es.map((e) => e.id))),
      size: batchSize,
    };
    const consumer = await startStore({
      handler: async (e) => void seen.push(e.id),
      ...(oneByOne ? {} : { batch }),
    });
    await until(() => seen.length >= count, 10_000);
    await new Promise((r) => setTimeout(r, 100)); // nothing more comes
    await consumer.stop();
    return seen;
  }

  const messagesIn = async () => (await (await jetstreamManager(nc)).streams.info(stream)).state.messages;

  it('sends one event alone when nothing is in flight, and what waits meanwhile as groups', async () => {
    const groups = new EventPublisher(nc).grouped(event);
    const first = randomUUID();
    await groups.publishDurably({ id: first }, first, 5000);
    expect(await messagesIn()).toBe(1);

    const ids = Array.from({ length: 300 }, () => randomUUID());
    await Promise.all(ids.map((id) => groups.publishDurably({ id }, id, 5000)));
    const messages = (await messagesIn()) - 1;
    // The first leaves alone; the others wait for it and leave at most MAX_GROUP_EVENTS to a message.
    expect(messages).toBeGreaterThanOrEqual(1 + Math.ceil(299 / MAX_GROUP_EVENTS));
    expect(messages).toBeLessThan(20);
    expect(groups.backlog).toBe(0);

    const seen = await consumeAll(301);
    expect(seen).toHaveLength(301);
    expect(new Set(seen)).toEqual(new Set([first, ...ids]));
  });

  it('hands a group to a consumer without a batch handler event by event, and acknowledges it once', async () => {
    const groups = new EventPublisher(nc).grouped(event);
    const ids = Array.from({ length: 40 }, () => randomUUID());
    await Promise.all(ids.map((id) => groups.publishDurably({ id }, id, 5000)));
    expect(await messagesIn()).toBeLessThan(40);
    expect((await consumeAll(40, { oneByOne: true })).sort()).toEqual([...ids].sort());
    const info = await (await jetstreamManager(nc)).consumers.info(stream, 'store');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_pending).toBe(0);
  });

  it('sends an event too large for a group on its own', async () => {
    const groups = new EventPublisher(nc).grouped(event);
    const big = { id: randomUUID(), pad: 'x'.repeat(MAX_GROUPED_EVENT_CHARS) } as Rec;
    const small = Array.from({ length: 10 }, () => randomUUID());
    await Promise.all([
      groups.publishDurably(big, big.id, 5000),
      ...small.map((id) => groups.publishDurably({ id }, id, 5000)),
    ]);
    // The large one, the first small one (nothing was in flight) and the other nine as a group.
    expect(await messagesIn()).toBe(3);
    expect((await consumeAll(11)).sort()).toEqual([big.id, ...small].sort());
  });

  it('takes a group larger than its batch handler takes at once, in slices', async () => {
    const groups = new EventPublisher(nc).grouped(event);
    const ids = Array.from({ length: 250 }, () => randomUUID());
    await Promise.all(ids.map((id) => groups.publishDurably({ id }, id, 5000)));
    const slices: number[] = [];
    const seen = await consumeAll(250, { batchSize: 30, slices });
    expect(Math.max(...slices)).toBeLessThanOrEqual(30);
    expect(seen.sort()).toEqual([...ids].sort());
  });

  it('drops a malformed event of a group and stores its siblings; an array that is no group is dropped whole', async () => {
    const good = [randomUUID(), randomUUID()];
    const asGroup = (payload: unknown) => {
      const h = headers();
      h.set(EVENT_GROUP_HEADER, '3');
      return nc.request(event.subject, JSON.stringify(payload), { headers: h, timeout: 5000 });
    };
    const ack = await asGroup([{ id: good[0] }, { id: 42 }, { id: good[1] }]);
    expect(JSON.parse(ack.string())).toMatchObject({ stream });
    await asGroup({ id: 'not-an-array' });
    await asGroup([]);
    const seen = await consumeAll(2);
    expect(seen.sort()).toEqual([...good].sort());
    const info = await (await jetstreamManager(nc)).consumers.info(stream, 'store');
    expect(info.num_ack_pending).toBe(0);
  });

  it('redelivers a whole group when one of its events fails, to a handler that stores each once', async () => {
    const groups = new EventPublisher(nc).grouped(event);
    const ids = Array.from({ length: 20 }, () => randomUUID());
    await Promise.all(ids.map((id) => groups.publishDurably({ id }, id, 5000)));
    const stored = new Set<string>();
    let failedOnce = false;
    const consumer = await startStore({
      retryDelayMs: 50,
      handler: async (e) => {
        if (!failedOnce && e.id === ids[10]) {
          failedOnce = true;
          throw new Error('the store is away for a moment');
        }
        stored.add(e.id);
      },
    });
    await until(() => stored.size === 20, 10_000);
    await consumer.stop();
    expect(failedOnce).toBe(true);
    expect([...stored].sort()).toEqual([...ids].sort());
  });

  it('parks an event that fails again and again while others are stored, not while it fails alone', async () => {
    const groups = new EventPublisher(nc).grouped(event);
    const poison = randomUUID();
    const others = Array.from({ length: 5 }, () => randomUUID());
    const stored = new Set<string>();
    let tries = 0;
    let parkedCount = 0;
    const log = errorLog();
    const outage = Object.assign(new Error("Can't reach database server"), { code: 'P1001' });
    const consumer = await startStore({
      logger: log.logger,
      retryDelayMs: 20,
      parkAfterFailures: 3,
      onParked: () => parkedCount++,
      handler: async (e) => {
        if (e.id !== poison) return void stored.add(e.id);
        tries++;
        // Its second delivery meets a database outage, which never counts toward parking.
        throw tries === 2 ? outage : new Error('the store refuses this row');
      },
    });
    const parkedLine = () => log.parks()[0];
    try {
      await groups.publishDurably({ id: poison }, poison, 5000);
      await until(() => tries >= 6, 10_000);
      // Failing with nothing else stored meanwhile, it is not parked: the fault may be the store's.
      expect(parkedLine()).toBeUndefined();
      await Promise.all(others.map((id) => groups.publishDurably({ id }, id, 5000)));
      await until(() => stored.size === 5 && parkedLine() !== undefined, 10_000);
      const parkedAt = tries;
      await new Promise((r) => setTimeout(r, 500));
      expect(tries).toBe(parkedAt);
    } finally {
      await consumer.stop();
    }
    expect([...stored].sort()).toEqual([...others].sort());
    const parked = parkedLine()!;
    expect(parked.err?.message).toBe('the store refuses this row');
    expect(parked.seq).toBeGreaterThan(0);
    expect(parked.deliveries).toBe(tries);
    expect(parkedCount).toBe(1);
  });

  it('parks nothing when every event fails, past the limit, and stores them all once the store takes them', async () => {
    const groups = new EventPublisher(nc).grouped(event);
    const ids = Array.from({ length: 8 }, () => randomUUID());
    await Promise.all(ids.map((id) => groups.publishDurably({ id }, id, 5000)));
    const stored = new Set<string>();
    let refusing = true;
    let failures = 0;
    const log = errorLog();
    const consumer = await startStore({
      logger: log.logger,
      retryDelayMs: 20,
      parkAfterFailures: 2,
      // A store that refuses every row for a while (a bad migration, say), not an outage it names as one.
      batch: {
        handler: async (es) => {
          if (refusing) throw new Error('column "x" does not exist');
          es.forEach((e) => stored.add(e.id));
        },
      },
      handler: async (e) => {
        if (refusing) {
          failures++;
          throw new Error('column "x" does not exist');
        }
        stored.add(e.id);
      },
    });
    try {
      await until(() => failures >= 8 * 4, 10_000);
      refusing = false;
      await until(() => stored.size === 8, 10_000);
    } finally {
      await consumer.stop();
    }
    expect(log.parks()).toEqual([]);
  });
});
