import { randomUUID } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { headers, type NatsConnection } from '@nats-io/transport-node';
import type { EventContract } from '@bastion/contracts';
import { REQUEST_ID_HEADER, requestContext } from '../logging/request-context';
import { injectIntoNatsHeaders } from '../tracing/spans';

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** How long events are kept (ms); default 7 days. */
  maxAgeMs?: number;
  /** Size cap (bytes); the oldest events go first. Default: none. */
  maxBytes?: number;
}

/**
 * Creates the stream, or brings an existing one to the spec (subjects and limits): the service
 * that owns a stream declares it. Event subjects are listed one by one: a wildcard would also
 * capture the service's request subjects.
 */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const wanted = {
    subjects: spec.subjects,
    max_age: (spec.maxAgeMs ?? 7 * 24 * 3600 * 1000) * 1_000_000,
    max_bytes: spec.maxBytes ?? -1,
  };
  try {
    const info = await jsm.streams.info(spec.name);
    const current = { subjects: info.config.subjects ?? [], max_age: info.config.max_age, max_bytes: info.config.max_bytes };
    if (JSON.stringify([...current.subjects].sort()) !== JSON.stringify([...wanted.subjects].sort()) || current.max_age !== wanted.max_age || current.max_bytes !== wanted.max_bytes) {
      await jsm.streams.update(spec.name, { ...info.config, ...wanted });
    }
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    await jsm.streams.add({ name: spec.name, ...wanted });
  }
}

function isStreamNotFound(err: unknown): boolean {
  return err instanceof Error && /stream not found/i.test(err.message);
}

/** Publishes domain events to JetStream, with the request id and trace context of the work that raised them. */
export class EventPublisher {
  private readonly js: JetStreamClient;

  constructor(private readonly nc: NatsConnection) {
    this.js = jetstream(nc);
  }

  /**
   * Publishes without waiting for the stream's acknowledgement: the stream still stores the event,
   * but a lost one goes unnoticed. For notifications whose durable record lives elsewhere (e.g.
   * admissions, recorded in Postgres) on paths where an ack round trip per event costs too much.
   */
  notify<P extends object>(event: EventContract<P>, payload: NoInfer<P>, extraHeaders: Record<string, string> = {}): void {
    const h = headers();
    for (const [k, v] of Object.entries(extraHeaders)) h.set(k, v);
    const requestId = requestContext.getStore()?.requestId;
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    injectIntoNatsHeaders(h);
    this.nc.publish(event.subject, JSON.stringify(payload), { headers: h });
  }

  /**
   * Waits for the stream's acknowledgement. `eventId` doubles as the JetStream message id, so a
   * retried publish is stored once.
   */
  async publish<P extends object>(event: EventContract<P>, payload: NoInfer<P>, eventId: string = randomUUID(), extraHeaders: Record<string, string> = {}): Promise<void> {
    const h = headers();
    for (const [k, v] of Object.entries(extraHeaders)) h.set(k, v);
    const requestId = requestContext.getStore()?.requestId;
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    injectIntoNatsHeaders(h);
    await this.js.publish(event.subject, JSON.stringify(payload), { msgID: eventId, headers: h });
  }
}
