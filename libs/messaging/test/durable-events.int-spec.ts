import { testNatsLogin } from '@bastion/testing';
import type { EventContract } from '@bastion/contracts';
import { randomBytes, randomUUID } from 'node:crypto';
import { ErrorCode } from '@bastion/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { IsOptional, IsString } from 'class-validator';
import pino from 'pino';
import { DurableConsumer } from '../src/jetstream/durable-consumer';
import {
  ensureStream,
  EventPublisher,
  PAYLOAD_ENCODING_HEADER,
  PAYLOAD_OBJECT_HEADER,
} from '../src/jetstream/event-publisher';
import { connectNats } from '../src/nats/nats-connection';

class Rec {
  @IsString()
  id!: string;

  @IsOptional()
  @IsString()
  big?: string;
}

const logger = pino({ level: 'silent' });

async function until(check: () => boolean, ms: number): Promise<number> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
  return Date.now() - started;
}

/** An event declaration for a test subject (the payload is a plain object). */
function eventOn(subject: string): EventContract<object> {
  return { kind: 'event', subject, payload: Object, stream: '' };
}

describe('durable events (JetStream)', () => {
  let nc: NatsConnection;
  let stream: string;
  let subject: string;

  beforeEach(async () => {
    nc ??= await connectNats(testNatsLogin(), { name: 'durable-test' });
    const tag = randomUUID().slice(0, 8);
    stream = `TEST_DURABLE_${tag}`;
    subject = `test.${tag}.recorded.v1`;
    await ensureStream(nc, { name: stream, subjects: [subject], maxAgeMs: 600_000 });
  });
  afterEach(async () => (await jetstreamManager(nc)).streams.delete(stream));
  afterAll(() => nc?.close());

  it('hands the batch handler up to `size` events per call, each stored once', async () => {
    const events = new EventPublisher(nc);
    const ids = Array.from({ length: 500 }, () => randomUUID());
    await Promise.all(ids.map((id) => events.publishDurably(eventOn(subject), { id }, id, 10_000)));
    // A retried publish (same id) is stored once.
    await events.publishDurably(eventOn(subject), { id: ids[0] }, ids[0], 10_000);
    const batches: number[] = [];
    const seen: string[] = [];
    const consumer = await DurableConsumer.start(nc, {
      stream,
      durable: 'store',
      subjects: [subject],
      payload: Rec,
      logger,
      handler: async (e) => void seen.push(e.id),
      // Delivered events wait unacknowledged while their batch fills: far longer than that wait.
      ackWaitMs: 30_000,
      batch: {
        handler: async (es) => void (batches.push(es.length), seen.push(...es.map((e) => e.id))),
        // All 500 are stored before the consumer starts: a batch waits for its 200 as long as it takes
        // (a stalled process must not cut one short), and only the last, of 100, waits the whole 5 s.
        size: 200,
        waitMs: 5000,
      },
    });
    await until(() => seen.length >= 500, 20_000);
    await consumer.stop();
    expect(new Set(seen).size).toBe(500);
    expect(seen).toHaveLength(500);
    expect(Math.max(...batches)).toBe(200);
    expect(batches.length).toBeLessThanOrEqual(6);
  });

  /** The one event a durable consumer of the test's subject receives. */
  async function receiveOne(): Promise<Rec> {
    const got: Rec[] = [];
    const consumer = await DurableConsumer.start(nc, {
      stream,
      durable: 'store',
      subjects: [subject],
      payload: Rec,
      logger,
      handler: async (e) => void got.push(e),
    });
    await until(() => got.length === 1, 15_000);
    await consumer.stop();
    return got[0];
  }

  it('stores a record larger than max_payload, even compressed, through the object store', async () => {
    const events = new EventPublisher(nc);
    // Random text: gzip leaves it about as large as it was.
    const big = randomBytes(Math.ceil(((nc.info?.max_payload ?? 1_048_576) * 1.5 * 3) / 4)).toString('base64');
    const id = randomUUID();
    await events.publishDurably(eventOn(subject), { id, big }, id, 5000);
    const got = await receiveOne();
    expect(got.id).toBe(id);
    expect(got.big).toHaveLength(big.length);
  });

  it('compresses a large record, which then stays inline instead of going to the object store', async () => {
    const events = new EventPublisher(nc);
    // A recorded stream: the same framing again and again, twice max_payload in all.
    const frame =
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"sixteen chars.. "}}\n\n';
    const big = frame.repeat(Math.ceil((2 * (nc.info?.max_payload ?? 1_048_576)) / frame.length));
    const id = randomUUID();
    await events.publishDurably(eventOn(subject), { id, big }, id, 5000);
    const stored = await (await jetstreamManager(nc)).streams.getMessage(stream, { last_by_subj: subject });
    expect(stored!.header.get(PAYLOAD_ENCODING_HEADER)).toBe('gzip');
    expect(stored!.header.get(PAYLOAD_OBJECT_HEADER)).toBe('');
    expect(stored!.data.length).toBeLessThan(big.length / 10);
    expect(await receiveOne()).toEqual({ id, big });
  });

  it('delivers again within seconds what a crashed consumer had not acknowledged', async () => {
    const id = randomUUID();
    await new EventPublisher(nc).publishDurably(eventOn(subject), { id }, id, 5000);
    const crashing = await connectNats(testNatsLogin(), { name: 'durable-test-crashing' });
    let received = false;
    await DurableConsumer.start(crashing, {
      stream,
      durable: 'store',
      subjects: [subject],
      payload: Rec,
      logger,
      ackWaitMs: 2000,
      handler: () => {
        received = true;
        return new Promise(() => undefined); // never finishes: the process "dies" holding it
      },
    });
    await until(() => received, 15_000);
    await crashing.close();
    const crashedAt = Date.now();
    const got: string[] = [];
    const consumer = await DurableConsumer.start(nc, {
      stream,
      durable: 'store',
      subjects: [subject],
      payload: Rec,
      logger,
      ackWaitMs: 2000,
      handler: async (e) => void got.push(e.id),
    });
    await until(() => got.length === 1, 20_000);
    await consumer.stop();
    expect(got).toEqual([id]);
    // The 2 s ack wait, with room for a loaded machine; NATS's own default would take 30 s.
    expect(Date.now() - crashedAt).toBeLessThan(15_000);
  });

  it('answers UNAVAILABLE when the record cannot be made durable in its budget', async () => {
    const events = new EventPublisher(nc);
    const started = Date.now();
    // The publisher retries the 503 until its budget is spent and reports the last try's failure:
    // a budget long enough that a stalled process or server still gets its last try answered.
    const err = await events
      .publishDurably(eventOn('test.nobody.stores.this.v1'), { id: 'x' }, randomUUID(), 5000)
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.UNAVAILABLE });
    // The server's answer (no stream takes the subject), not a timeout.
    expect((err as Error).message).toMatch(/503/);
    // Given up at the end of the budget.
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('fails a publish waiting for its acknowledgement as soon as the connection closes', async () => {
    // Something listens on the subject but never answers: no 503, no acknowledgement.
    const silent = `test.${randomUUID().slice(0, 8)}.silent.v1`;
    const listener = nc.subscribe(silent);
    const own = await connectNats(testNatsLogin(), { name: 'durable-test-closing' });
    const started = Date.now();
    const waiting = new EventPublisher(own).publish(eventOn(silent), { id: 'x' }).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 100));
    await own.close();
    expect(await waiting).toMatchObject({ message: expect.stringMatching(/connection closed/) });
    // Before publish's 5 s wait for the acknowledgement would have ended it.
    expect(Date.now() - started).toBeLessThan(4500);
    listener.unsubscribe();
  });

  it('stores an event once however often it is published under its id, and waits for the stream', async () => {
    const events = new EventPublisher(nc);
    const id = randomUUID();
    await events.publishDurably(eventOn(subject), { id }, id, 2000);
    await events.publishDurably(eventOn(subject), { id }, id, 2000);
    await events.publish(eventOn(subject), { id }, id);
    await events.publish(eventOn(subject), { id: 'other' });
    // Resolved only once stored: the stream holds them now.
    const info = await (await jetstreamManager(nc)).streams.info(stream);
    expect(info.state.messages).toBe(2);
  });
});
