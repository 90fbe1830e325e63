import { randomUUID } from 'node:crypto';
import { DomainError, ErrorCode, type EventContract } from '@bastion/contracts';
import { requestContext, type RequestContext } from '@bastion/observability';
import { context as otelContext, type Context, ROOT_CONTEXT } from '@opentelemetry/api';

/**
 * Publishes JSON on the event's subject and resolves once the stream acknowledged it (EventPublisher's
 * durable path); `events` > 0: the JSON is an array of that many payloads (EVENT_GROUP_HEADER).
 */
type DurablePublish = (json: string, eventId: string, budgetMs: number, events: number) => Promise<void>;

interface Waiting {
  json: string;
  id: string;
  deadline: number;
  /** The caller's request and trace context: a record sent alone goes under its own. */
  request: RequestContext | undefined;
  trace: Context;
  settled: boolean;
  timer: NodeJS.Timeout;
  resolve(): void;
  reject(err: unknown): void;
}

/** At most this many events to a group message. */
export const MAX_GROUP_EVENTS = 100;
/** A group's JSON stays under this many characters (under the size from which ASCII payloads are compressed). */
export const MAX_GROUP_CHARS = 60_000;
/** An event whose JSON is longer than this leaves on its own (it may be compressed or go to the object store). */
export const MAX_GROUPED_EVENT_CHARS = 16_000;
/** Publishes of full groups in flight at once, besides the one any waiting event may start. */
const MAX_IN_FLIGHT = 8;

/**
 * Makes events of one grouped contract durable, several to a message under load. While a publish
 * waits for the stream's acknowledgement, the events that arrive wait too; when it is acknowledged
 * they leave together as one message on the same subject (a JSON array of payloads under
 * EVENT_GROUP_HEADER, with an id of its own for the stream's duplicate check, re-sent as it was when
 * retried). A full group does not wait: it leaves at once, up to MAX_IN_FLIGHT publishes at a time.
 * An event that finds nothing in flight leaves at once, alone and under its caller's request id, so
 * an idle publisher adds no wait; a large one always leaves alone.
 *
 * Each caller's promise settles on its own terms: resolved once the stream holds its event,
 * rejected (UNAVAILABLE) when that did not happen within its own budget, however long its group's
 * publish goes on (an event stored after its caller gave up is stored once, as with any retry).
 *
 * What it saves: per record, a publish, a PubAck, a delivery to the consumer and the consumer's ack
 * become one each per group, in the publisher, nats-server and the consumer.
 */
export class EventGroups<P extends object> {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;

  /** `maxEvents`: at most this many events to a message (1: every event alone, as for an event not declared grouped). */
  constructor(
    private readonly event: EventContract<P>,
    private readonly publish: DurablePublish,
    private readonly maxEvents = MAX_GROUP_EVENTS,
  ) {}

  /** Resolves once the event is durable, alone or in a group; throws UNAVAILABLE when it could not be made so in `budgetMs`. */
  publishDurably(payload: P, eventId: string, budgetMs: number): Promise<void> {
    const json = JSON.stringify(payload);
    if (!this.event.grouped || this.maxEvents <= 1 || json.length > MAX_GROUPED_EVENT_CHARS)
      return this.publish(json, eventId, budgetMs, 0);
    return new Promise<void>((resolve, reject) => {
      const w: Waiting = {
        json,
        id: eventId,
        deadline: Date.now() + budgetMs,
        request: requestContext.getStore(),
        trace: otelContext.active(),
        settled: false,
        timer: setTimeout(() => {
          const at = this.waiting.indexOf(w);
          if (at >= 0) this.waiting.splice(at, 1);
          settle(
            w,
            new DomainError(ErrorCode.UNAVAILABLE, 'the record could not be stored in time; retry shortly', [], 2),
          );
        }, budgetMs),
        resolve,
        reject,
      };
      this.waiting.push(w);
      this.pump();
    });
  }

  /** Events waiting for a publish to finish (for tests and metrics). */
  get backlog(): number {
    return this.waiting.length;
  }

  private pump(): void {
    while (this.waiting.length > 0 && (this.inFlight === 0 || (this.inFlight < MAX_IN_FLIGHT && this.groupIsFull()))) {
      const group = this.nextGroup();
      this.inFlight++;
      void this.send(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** Whether a whole message's worth waits (the next group leaves some behind, or is as large as allowed). */
  private groupIsFull(): boolean {
    const size = this.nextGroupSize();
    return size >= this.maxEvents || size < this.waiting.length;
  }

  /** How many waiting events, oldest first, fit one message within `maxEvents` and MAX_GROUP_CHARS. */
  private nextGroupSize(): number {
    let n = 1;
    let chars = this.waiting[0].json.length + 2;
    while (n < this.waiting.length && n < this.maxEvents && chars + this.waiting[n].json.length + 1 <= MAX_GROUP_CHARS)
      chars += this.waiting[n++].json.length + 1;
    return n;
  }

  private nextGroup(): Waiting[] {
    return this.waiting.splice(0, this.nextGroupSize());
  }

  private async send(group: Waiting[]): Promise<void> {
    // As long as its most patient event may wait: each other one gives up on its own timer.
    const budgetMs = Math.max(1, Math.max(...group.map((w) => w.deadline)) - Date.now());
    try {
      if (group.length === 1) {
        const [w] = group;
        const alone = () => otelContext.with(w.trace, () => this.publish(w.json, w.id, budgetMs, 0));
        await (w.request ? requestContext.run(w.request, alone) : requestContext.exit(alone));
      } else {
        // Under no one request's id or trace: the group is many requests' work.
        const json = `[${group.map((w) => w.json).join(',')}]`;
        await requestContext.exit(() =>
          otelContext.with(ROOT_CONTEXT, () => this.publish(json, randomUUID(), budgetMs, group.length)),
        );
      }
      for (const w of group) settle(w);
    } catch (err) {
      for (const w of group) settle(w, err);
    }
  }
}

function settle(w: Waiting, err?: unknown): void {
  if (w.settled) return;
  w.settled = true;
  clearTimeout(w.timer);
  if (err === undefined) w.resolve();
  else w.reject(err);
}
