import type { EventContract } from '@bastion/contracts';
import { randomUUID } from 'node:crypto';
import type { EventPublisher } from '@bastion/messaging';
import pino, { type Logger } from 'pino';

export interface PublishedEvent {
  subject: string;
  payload: object;
  eventId: string;
  /** `notify` (no stream acknowledgement awaited) rather than `publish`. */
  notified: boolean;
}

/**
 * An in-memory EventPublisher for service-level specs: keeps what was published, in order, instead
 * of sending it to JetStream. `failNext` makes the next publish fail as an unreachable stream would.
 */
export class RecordingEventPublisher implements Pick<EventPublisher, 'publish' | 'notify'> {
  readonly published: PublishedEvent[] = [];
  private failure?: Error;

  async publish<P extends object>(
    event: EventContract<P>,
    payload: NoInfer<P>,
    eventId: string = randomUUID(),
  ): Promise<void> {
    const subject = event.subject;
    if (this.failure) {
      const err = this.failure;
      this.failure = undefined;
      throw err;
    }
    this.published.push({ subject, payload: structuredClone(payload), eventId, notified: false });
  }

  notify<P extends object>(event: EventContract<P>, payload: NoInfer<P>): void {
    this.published.push({
      subject: event.subject,
      payload: structuredClone(payload),
      eventId: randomUUID(),
      notified: true,
    });
  }

  failNext(err = new Error('stream unavailable')): void {
    this.failure = err;
  }

  subjects(): string[] {
    return this.published.map((e) => e.subject);
  }

  /** As the EventPublisher a service's constructor takes. */
  asPublisher(): EventPublisher {
    return this as unknown as EventPublisher;
  }
}

/** A logger that writes nothing, for services built by hand in specs. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
