import {
  AckPolicy,
  DeliverPolicy,
  jetstream,
  jetstreamManager,
  type ConsumerMessages,
  type JsMsg,
} from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Logger } from 'pino';
import type { ObjectStore } from '@nats-io/obj';
import { OutageLog, REQUEST_ID_HEADER, requestContext } from '@bastion/observability';
import { isDatabaseUnavailable } from '@bastion/persistence';
import { reconnectDelay } from '../nats/connection-state';
import {
  EVENT_GROUP_HEADER,
  openPayloadStore,
  PAYLOAD_ENCODING_HEADER,
  PAYLOAD_OBJECT_HEADER,
} from './event-publisher';

const DEFAULT_PARK_AFTER_FAILURES = 50;
const MAX_TRACKED_FAILURES = 10_000;

export interface EventMeta {
  subject: string;
  streamSequence: number;
  redelivered: boolean;
}

export interface DurableConsumerOptions<T extends object> {
  stream: string;
  /** The consumer's durable name: the server remembers its position under it while it is away. */
  durable: string;
  subjects: string[];
  /** Payload class, validated on receipt; an invalid event is logged and terminated, not retried. */
  payload: new () => T;
  /**
   * For events from a publisher of this platform: a check of the decoded JSON that replaces
   * class-transformer and class-validator (the field that breaks a rule, or undefined). It must
   * keep the payload class's rules; the handler then receives the plain object.
   */
  check?: (raw: unknown) => string | undefined;
  handler: (event: T, meta: EventMeta) => Promise<void>;
  logger: Logger;
  /** Delay before a failed event is delivered again (ms). */
  retryDelayMs?: number;
  /**
   * Where a consumer created now starts: `all` (default) replays what the stream holds, `new`
   * starts at the next event. Either way, once created it resumes where it stopped.
   */
  startAt?: 'all' | 'new';
  /**
   * Handles events in batches (up to `size`, or what arrived within `waitMs`), for stores where
   * one write per event costs more than the event. Events of a failed batch go one by one through
   * `handler`, so one bad event cannot hold the others back.
   */
  batch?: { handler: (events: T[]) => Promise<void>; size?: number; waitMs?: number };
  /** How long a delivered event may go unacknowledged before the server delivers it again (ms); default 5 s. */
  ackWaitMs?: number;
  /**
   * Failures after which a message is parked (default 50; at least 1): logged as an error with its
   * stream sequence and last error, and no longer delivered. It stays in the stream until the
   * stream's max age, for an operator to replay. Only failures specific to the message count: its
   * handler failed that many times in a row on this replica, never for a database outage, while
   * other messages were handled and acknowledged meanwhile. A failure that meets every message
   * (an outage, a store that refuses every insert) parks nothing and is retried as long as it lasts.
   */
  parkAfterFailures?: number;
  /** Called for each message parked (for a metric). */
  onParked?: () => void;
}

/**
 * A JetStream durable pull consumer with explicit acks: an event is acknowledged only after its
 * handler succeeded, so a consumer that was stopped or crashed receives, on restart, every event it
 * had not finished; an event delivered but never acknowledged (a crashed replica) comes again after
 * `ackWaitMs` (5 s), while a slow handler keeps its events with progress acks. With `batch`, the
 * events already delivered (up to `size`, waiting at most `waitMs` for more) go to the batch handler
 * in one call and are acknowledged together. A message of a group (EVENT_GROUP_HEADER, EventGroups)
 * brings several events: it is acknowledged once all of them were handled, and an invalid event in
 * it is logged and dropped while its siblings are handled. A message whose handler fails
 * `parkAfterFailures` times in a row for a reason of its own is parked (see there). If the subscription ends (NATS away longer than the
 * client's pull could survive, a consumer deleted), it is opened again with backoff, forever.
 */
export class DurableConsumer<T extends object> {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;
  private stopped = false;
  private readonly outages: OutageLog;
  private payloads?: Promise<ObjectStore>;
  /** Messages acknowledged so far, and each failing message's failures in a row (by stream sequence). */
  private acked = 0;
  private readonly failing = new Map<number, { failures: number; ackedBefore: number }>();

  private constructor(
    private readonly nc: NatsConnection,
    private readonly options: DurableConsumerOptions<T>,
  ) {
    this.outages = new OutageLog(options.logger);
  }

  static async start<T extends object>(
    nc: NatsConnection,
    options: DurableConsumerOptions<T>,
  ): Promise<DurableConsumer<T>> {
    const consumer = new DurableConsumer(nc, options);
    consumer.messages = await consumer.open();
    consumer.loop = consumer.run(consumer.messages);
    return consumer;
  }

  private async open(): Promise<ConsumerMessages> {
    const { stream, durable, subjects } = this.options;
    const jsm = await jetstreamManager(this.nc);
    // One subject uses `filter_subject`, which NATS servers before 2.10 (Debian's 2.9) understand too.
    const filter = subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects };
    const ackWait = (this.options.ackWaitMs ?? 5000) * 1_000_000;
    try {
      await jsm.consumers.info(stream, durable);
      await jsm.consumers.update(stream, durable, { ...filter, ack_wait: ackWait });
    } catch {
      await jsm.consumers.add(stream, {
        durable_name: durable,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: this.options.startAt === 'new' ? DeliverPolicy.New : DeliverPolicy.All,
        ack_wait: ackWait,
        ...filter,
      });
    }
    const consumer = await jetstream(this.nc).consumers.get(stream, durable);
    return consumer.consume({ max_messages: Math.max(256, 2 * (this.options.batch?.size ?? 1)) });
  }

  /** Runs the subscription; when it ends without a stop, opens it again with backoff. */
  private async run(first: ConsumerMessages): Promise<void> {
    let messages: ConsumerMessages | undefined = first;
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        if (!messages) {
          messages = await this.open();
          this.messages = messages;
          if (this.stopped) await messages.close();
          attempt = 0;
        }
        await this.drain(messages);
      } catch (err) {
        this.outages.report('jetstream consumer', err);
      }
      messages = undefined;
      // A closed connection never comes back: whoever closed it is stopping.
      if (this.nc.isClosed()) return;
      if (!this.stopped) await sleep(reconnectDelay(attempt));
    }
  }

  private async drain(messages: ConsumerMessages): Promise<void> {
    const size = this.options.batch ? (this.options.batch.size ?? 100) : 1;
    const waitMs = this.options.batch?.waitMs ?? 10;
    const it = messages[Symbol.asyncIterator]();
    let pending: Promise<IteratorResult<JsMsg>> | undefined;
    for (;;) {
      const first = await (pending ?? it.next());
      pending = undefined;
      if (first.done) return;
      const batch = [first.value];
      // A group's message brings its events' count in a header: a batch holds `size` events, not messages.
      let events = eventsIn(first.value);
      let done = false;
      if (size > 1) {
        // One timer for the batch, not one per event: each would wake the process once more.
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs)));
        try {
          while (events < size) {
            pending = it.next();
            const next = await Promise.race([pending, waited]);
            if (next === null) break;
            pending = undefined;
            if (next.done) {
              done = true;
              break;
            }
            batch.push(next.value);
            events += eventsIn(next.value);
          }
        } finally {
          clearTimeout(timer);
        }
      }
      await this.handle(batch);
      if (done) return;
    }
  }

  /** Decodes, validates and handles delivered events; acks what succeeded, naks what failed. */
  private async handle(msgs: JsMsg[]): Promise<void> {
    const { handler, batch, retryDelayMs = 1000 } = this.options;
    const progress = setInterval(
      () => msgs.forEach((m) => m.working()),
      Math.max(500, (this.options.ackWaitMs ?? 5000) / 2),
    );
    try {
      const decoded: Array<{ m: JsMsg; events: T[] }> = [];
      for (const m of msgs) {
        const events = await this.decode(m);
        if (events) decoded.push({ m, events });
      }
      const all = decoded.flatMap((d) => d.events);
      if (batch && all.length > 1) {
        try {
          // Messages of groups may bring more events than a batch takes: in slices of `size`.
          const size = batch.size ?? 100;
          const requestId = `events-${decoded[0].m.seq}-${decoded.at(-1)!.m.seq}`;
          for (let i = 0; i < all.length; i += size)
            await requestContext.run({ requestId }, () => batch.handler(all.slice(i, i + size)));
          // One ack each, not waiting for the server to confirm it (as for events handled one by one):
          // a lost ack brings the event again, which handlers must take as they take any redelivery.
          for (const d of decoded) this.ack(d.m);
          return;
        } catch (err) {
          // One by one below, so one bad event cannot hold the others back.
          this.failure(err, decoded[0].m);
        }
      }
      for (const { m, events } of decoded) {
        const requestId = m.headers?.get(REQUEST_ID_HEADER) || `event-${m.seq}`;
        await requestContext.run({ requestId }, async () => {
          // Every event of a group is handled, whatever happens to the others; the message comes
          // again, all of it, when one failed (handlers take redeliveries).
          let failed = false;
          let outage = false;
          let lastError: unknown;
          for (const event of events) {
            try {
              await handler(event, { subject: m.subject, streamSequence: m.seq, redelivered: m.redelivered });
            } catch (err) {
              failed = true;
              lastError = err;
              outage = this.failure(err, m) || outage;
            }
          }
          if (!failed) this.ack(m);
          else if (this.parks(m, outage)) this.park(m, lastError);
          else m.nak(retryDelayMs);
        });
      }
    } finally {
      clearInterval(progress);
    }
  }

  private ack(m: JsMsg): void {
    m.ack();
    this.acked++;
    this.failing.delete(m.seq);
  }

  /**
   * Counts a failure of `m`; true when it is the message's own (see `parkAfterFailures`): no outage, and
   * failing `parkAfterFailures` times in a row while other messages were acknowledged.
   */
  private parks(m: JsMsg, outage: boolean): boolean {
    if (outage) {
      this.failing.delete(m.seq);
      return false;
    }
    // Messages another replica acknowledged leave entries behind: bounded, and forgetting one only delays a park.
    if (this.failing.size >= MAX_TRACKED_FAILURES) this.failing.clear();
    const entry = this.failing.get(m.seq) ?? { failures: 0, ackedBefore: this.acked };
    entry.failures++;
    this.failing.set(m.seq, entry);
    const limit = Math.max(1, this.options.parkAfterFailures ?? DEFAULT_PARK_AFTER_FAILURES);
    return entry.failures >= limit && this.acked > entry.ackedBefore;
  }

  /** A message whose handler failed at every delivery: stop delivering it; the stream keeps it. */
  private park(m: JsMsg, err: unknown): void {
    this.failing.delete(m.seq);
    this.options.logger.error(
      { err, subject: m.subject, stream: this.options.stream, seq: m.seq, deliveries: m.info.deliveryCount },
      'event handler failed at every delivery while other events were stored; parking the event (no longer delivered, kept in the stream until its max age)',
    );
    m.term();
    this.options.onParked?.();
  }

  /** Logs a handler's failure (a database outage once per outage); true when it was one. */
  private failure(err: unknown, m: JsMsg): boolean {
    const outage = isDatabaseUnavailable(err);
    if (outage) this.outages.report('database', err);
    else this.options.logger.warn({ err, subject: m.subject, seq: m.seq }, 'event handler failed');
    return outage;
  }

  /** The message's events, validated; a malformed message is logged and terminated (null). */
  private async decode(m: JsMsg): Promise<T[] | null> {
    const { logger } = this.options;
    try {
      const ref = m.headers?.get(PAYLOAD_OBJECT_HEADER);
      const gzipped = m.headers?.get(PAYLOAD_ENCODING_HEADER) === 'gzip';
      let raw: object;
      if (!ref && !gzipped) raw = m.json<object>();
      else {
        const stored = ref ? await this.fetchPayload(ref) : m.data;
        const bytes = gzipped ? await gunzipAsync(stored, { maxOutputLength: MAX_PAYLOAD_BYTES }) : stored;
        raw = JSON.parse(new TextDecoder().decode(bytes)) as object;
      }
      if (!m.headers?.has(EVENT_GROUP_HEADER)) return [await this.valid(raw)];
      if (!Array.isArray(raw) || raw.length === 0) throw new Error('invalid payload: a group is a non-empty array');
      const events: T[] = [];
      for (const [index, one] of raw.entries()) {
        try {
          events.push(await this.valid(one));
        } catch (err) {
          logger.error({ err, subject: m.subject, seq: m.seq, index }, 'dropping malformed event of a group');
        }
      }
      return events;
    } catch (err) {
      if (err instanceof PayloadUnavailable) {
        this.outages.report('object store', err);
        m.nak(this.options.retryDelayMs ?? 1000);
        return null;
      }
      logger.error({ err, subject: m.subject, seq: m.seq }, 'dropping malformed event');
      // No reason text: NATS servers before 2.10 ignore `+TERM <reason>`, and the event would
      // come back every ack wait, forever.
      m.term();
      return null;
    }
  }

  private async valid(raw: unknown): Promise<T> {
    if (this.options.check) {
      const broken = this.options.check(raw);
      if (broken !== undefined) throw new Error(`invalid payload: ${broken}`);
      return raw as T;
    }
    const event = plainToInstance(this.options.payload, raw);
    const errors = await validate(event);
    if (errors.length > 0) throw new Error(`invalid payload: ${errors.map((e) => e.property).join(', ')}`);
    return event;
  }

  private async fetchPayload(ref: string): Promise<Uint8Array> {
    const name = ref.slice(ref.indexOf('/') + 1);
    let data: Uint8Array | null;
    try {
      this.payloads ??= openPayloadStore(this.nc);
      data = await (await this.payloads).getBlob(name);
    } catch (err) {
      this.payloads = undefined;
      throw new PayloadUnavailable(err instanceof Error ? err.message : String(err));
    }
    if (!data) throw new Error(`payload object ${ref} is missing`);
    return data;
  }

  /** Stops pulling; unacknowledged events stay on the server for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.messages?.close();
    await this.loop;
  }
}

class PayloadUnavailable extends Error {}

/** The events a delivered message brings: a group's count (EVENT_GROUP_HEADER), else one. */
function eventsIn(m: JsMsg): number {
  return Math.max(1, Number(m.headers?.get(EVENT_GROUP_HEADER)) || 1);
}

/** The largest payload a compressed event may expand to (bytes); past it the event is malformed. */
const MAX_PAYLOAD_BYTES = 256 * 1024 * 1024;
const gunzipAsync = promisify(gunzip);

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
