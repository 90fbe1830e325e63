import { randomUUID } from 'node:crypto';
import type { EventContract } from '@bastion/contracts';

/**
 * Publishes JSON on the event's subject and resolves once the stream acknowledged it (EventPublisher's
 * durable path); `events` > 0: the JSON is an array of that many payloads (EVENT_GROUP_HEADER).
 */
type DurablePublish = (json: string, eventId: string, budgetMs: number, events: number) => Promise<void>;

interface Waiting {
  json: string;
  id: string;
  deadline: number;
  resolve(): void;
  reject(err: unknown): void;
}

/** At most this many events to a group message. */
export const MAX_GROUP_EVENTS = 100;
/** A group's JSON stays under this many characters: under the size from which a payload is compressed. */
export const MAX_GROUP_CHARS = 60_000;
/** An event whose JSON is longer than this leaves on its own (it may be compressed or go to the object store). */
export const MAX_GROUPED_EVENT_CHARS = 16_000;

/**
 * Makes events of one grouped contract durable, several to a message under load. While a publish
 * waits for the stream's acknowledgement, the events that arrive wait too; when it is acknowledged
 * they leave together as one message on the same subject (a JSON array of payloads under
 * EVENT_GROUP_HEADER, with an id of its own for the stream's duplicate check, re-sent as it was when
 * retried). An event
 * that finds nothing in flight leaves at once on its own subject, so an idle publisher adds no wait,
 * and a large one always leaves alone. Each caller's promise settles with its group: resolved once
 * the stream holds it, rejected (UNAVAILABLE) when the group could not be made durable within the
 * shortest budget among its events.
 *
 * What it saves: per record, a publish, a PubAck, a delivery to the consumer and the consumer's ack
 * become one each per group, in the publisher, nats-server and the consumer.
 */
export class EventGroups<P extends object> {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;

  constructor(
    private readonly event: EventContract<P>,
    private readonly publish: DurablePublish,
    private readonly maxInFlight = 1,
  ) {}

  /** At most this many events to a message (1: every event alone, as for an event not declared grouped). */
  maxEvents = MAX_GROUP_EVENTS;

  /** Resolves once the event is durable, alone or in a group; throws UNAVAILABLE when it could not be made so in `budgetMs`. */
  publishDurably(payload: P, eventId: string, budgetMs: number): Promise<void> {
    const json = JSON.stringify(payload);
    if (!this.event.grouped || this.maxEvents <= 1 || json.length > MAX_GROUPED_EVENT_CHARS)
      return this.publish(json, eventId, budgetMs, 0);
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ json, id: eventId, deadline: Date.now() + budgetMs, resolve, reject });
      this.pump();
    });
  }

  /** Events waiting for a publish to finish (for tests and metrics). */
  get backlog(): number {
    return this.waiting.length;
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.waiting.length > 0) {
      const group = this.nextGroup();
      this.inFlight++;
      void this.send(group).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The longest run of waiting events, oldest first, within `maxEvents` and MAX_GROUP_CHARS. */
  private nextGroup(): Waiting[] {
    let n = 1;
    let chars = this.waiting[0].json.length + 2;
    while (n < this.waiting.length && n < this.maxEvents && chars + this.waiting[n].json.length + 1 <= MAX_GROUP_CHARS)
      chars += this.waiting[n++].json.length + 1;
    return this.waiting.splice(0, n);
  }

  private async send(group: Waiting[]): Promise<void> {
    // The group lives as long as its most hurried event may wait.
    const budgetMs = Math.max(1, Math.min(...group.map((w) => w.deadline)) - Date.now());
    try {
      if (group.length === 1) await this.publish(group[0].json, group[0].id, budgetMs, 0);
      else await this.publish(`[${group.map((w) => w.json).join(',')}]`, randomUUID(), budgetMs, group.length);
      for (const w of group) w.resolve();
    } catch (err) {
      for (const w of group) w.reject(err);
    }
  }
}
