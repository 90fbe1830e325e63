import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Logger } from 'pino';
import { REQUEST_ID_HEADER, requestContext } from '../logging/request-context';

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
}

/**
 * A JetStream durable pull consumer with explicit acks: an event is acknowledged only after its
 * handler succeeded, so a consumer that was stopped or crashed receives, on restart, every event it
 * had not finished.
 */
export class DurableConsumer<T extends object> {
  private messages?: ConsumerMessages;
  private loop?: Promise<void>;

  private constructor(
    private readonly nc: NatsConnection,
    private readonly options: DurableConsumerOptions<T>,
  ) {}

  static async start<T extends object>(nc: NatsConnection, options: DurableConsumerOptions<T>): Promise<DurableConsumer<T>> {
    const consumer = new DurableConsumer(nc, options);
    await consumer.open();
    return consumer;
  }

  private async open(): Promise<void> {
    const { stream, durable, subjects } = this.options;
    const jsm = await jetstreamManager(this.nc);
    // One subject uses `filter_subject`, which NATS servers before 2.10 (Debian's 2.9) understand too.
    const filter = subjects.length === 1 ? { filter_subject: subjects[0] } : { filter_subjects: subjects };
    const ackWait = 30_000_000_000;
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
    this.messages = await consumer.consume({ max_messages: 256 });
    this.loop = this.run(this.messages);
  }

  private async run(messages: ConsumerMessages): Promise<void> {
    const { payload, handler, logger, retryDelayMs = 1000 } = this.options;
    for await (const m of messages) {
      const requestId = m.headers?.get(REQUEST_ID_HEADER) || `event-${m.seq}`;
      await requestContext.run({ requestId }, async () => {
        let event: T;
        try {
          event = plainToInstance(payload, m.json<object>());
          const errors = await validate(event);
          if (errors.length > 0) throw new Error(`invalid payload: ${errors.map((e) => e.property).join(', ')}`);
        } catch (err) {
          logger.error({ err, subject: m.subject, seq: m.seq }, 'dropping malformed event');
          // No reason text: NATS servers before 2.10 ignore `+TERM <reason>`, and the event would
          // come back every ack wait, forever.
          m.term();
          return;
        }
        try {
          await handler(event, { subject: m.subject, streamSequence: m.seq, redelivered: m.redelivered });
          m.ack();
        } catch (err) {
          logger.warn({ err, subject: m.subject, seq: m.seq }, 'event handler failed; will retry');
          m.nak(retryDelayMs);
        }
      });
    }
  }

  /** Stops pulling; unacknowledged events stay on the server for the next start. */
  async stop(): Promise<void> {
    await this.messages?.close();
    await this.loop;
  }
}
