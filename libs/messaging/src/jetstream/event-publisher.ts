import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { constants as zlibConstants, gzip } from 'node:zlib';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import type { EventContract } from '@bastion/contracts';
import { Objm, type ObjectStore } from '@nats-io/obj';
import { headers, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { processState } from '../nats/connection-state';
import { FramesInbox } from '../nats/frames-inbox';
import { dataBytesPerMessage } from '../nats/packet';
import { EventGroups } from './event-groups';
import { REQUEST_ID_HEADER, requestContext, injectIntoNatsHeaders } from '@bastion/observability';

export interface StreamSpec {
  name: string;
  subjects: string[];
  /** How long events are kept (ms); default 7 days. */
  maxAgeMs?: number;
  /** Size cap (bytes); the oldest events go first. Default: none. */
  maxBytes?: number;
}

/**
 * Creates the stream, or brings an existing one to the spec: the service that owns a stream
 * declares it. Subjects are only ever added, never taken away, so that during a rolling upgrade a
 * replica of the earlier version (which knows fewer subjects) cannot take a subject from under the
 * newer ones; limits are set to the spec. Event subjects are listed one by one: a wildcard would
 * also capture the service's request subjects.
 */
export async function ensureStream(nc: NatsConnection, spec: StreamSpec): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const limits = {
    max_age: (spec.maxAgeMs ?? 7 * 24 * 3600 * 1000) * 1_000_000,
    max_bytes: spec.maxBytes ?? -1,
  };
  try {
    const info = await jsm.streams.info(spec.name);
    const current = info.config.subjects ?? [];
    const subjects = [...new Set([...current, ...spec.subjects])];
    if (
      subjects.length !== current.length ||
      info.config.max_age !== limits.max_age ||
      info.config.max_bytes !== limits.max_bytes
    ) {
      await jsm.streams.update(spec.name, { ...info.config, ...limits, subjects });
    }
  } catch (err) {
    if (!isStreamNotFound(err)) throw err;
    await jsm.streams.add({ name: spec.name, subjects: spec.subjects, ...limits });
  }
}

function isStreamNotFound(err: unknown): boolean {
  return err instanceof Error && /stream not found/i.test(err.message);
}

/** Publishes domain events to JetStream, with the request id and trace context of the work that raised them. */
export class EventPublisher {
  private readonly inbox: FramesInbox;

  constructor(private readonly nc: NatsConnection) {
    this.inbox = new FramesInbox(nc);
  }

  /**
   * Publishes without waiting for the stream's acknowledgement: the stream still stores the event,
   * but a lost one goes unnoticed. For notifications whose durable record lives elsewhere (e.g.
   * admissions, recorded in Postgres) on paths where an ack round trip per event costs too much.
   */
  notify<P extends object>(
    event: EventContract<P>,
    payload: NoInfer<P>,
    extraHeaders: Record<string, string> = {},
  ): void {
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
  async publish<P extends object>(
    event: EventContract<P>,
    payload: NoInfer<P>,
    eventId: string = randomUUID(),
    extraHeaders: Record<string, string> = {},
  ): Promise<void> {
    const h = headers();
    for (const [k, v] of Object.entries(extraHeaders)) h.set(k, v);
    const requestId = requestContext.getStore()?.requestId;
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    injectIntoNatsHeaders(h);
    h.set(MSG_ID_HEADER, eventId);
    await this.acknowledged(event.subject, new TextEncoder().encode(JSON.stringify(payload)), h, PUBLISH_TIMEOUT_MS);
  }

  /**
   * Makes the event durable or fails: resolves only once the stream acknowledged it, retrying
   * (the event id makes the stream store it once) through a NATS outage for up to `budgetMs`, then
   * throws UNAVAILABLE. An event larger than what the server takes in one message goes to the
   * object store bucket `EVENT_PAYLOAD_BUCKET` under its id, and the stream gets a reference that
   * `DurableConsumer` resolves. A payload over COMPRESS_FROM_BYTES is gzipped first (header
   * PAYLOAD_ENCODING_HEADER): a recorded stream is mostly repeated event framing, so it shrinks
   * several times and usually stays inline, where the object store would hash and chunk it.
   */
  publishDurably<P extends object>(
    event: EventContract<P>,
    payload: NoInfer<P>,
    eventId: string,
    budgetMs: number,
  ): Promise<void> {
    return this.durably(event.subject, JSON.stringify(payload), eventId, budgetMs);
  }

  /**
   * `publishDurably` for an event declared grouped, in groups (`EventGroups`, at most `maxEvents` to a
   * message): what waits while a publish of the event is unacknowledged leaves with the next one, as
   * one message. One EventGroups per subject: the first call's `maxEvents` holds.
   */
  grouped<P extends object>(event: EventContract<P>, maxEvents?: number): EventGroups<P> {
    const known = this.groups.get(event.subject) as EventGroups<P> | undefined;
    if (known) return known;
    const groups = new EventGroups<P>(
      event,
      (json, id, budgetMs, events) => this.durably(event.subject, json, id, budgetMs, events),
      maxEvents,
    );
    this.groups.set(event.subject, groups);
    return groups;
  }

  private readonly groups = new Map<string, unknown>();

  /** `publishDurably` of a payload already in JSON, on `subject`; `group`: how many events the JSON array holds. */
  private async durably(subject: string, json: string, eventId: string, budgetMs: number, group = 0): Promise<void> {
    const deadline = Date.now() + budgetMs;
    const h = headers();
    if (group > 0) h.set(EVENT_GROUP_HEADER, String(group));
    const requestId = requestContext.getStore()?.requestId;
    if (requestId) h.set(REQUEST_ID_HEADER, requestId);
    injectIntoNatsHeaders(h);
    let data: Uint8Array = new TextEncoder().encode(json);
    if (data.length > COMPRESS_FROM_BYTES) {
      data = await gzipAsync(data, { level: zlibConstants.Z_BEST_SPEED });
      h.set(PAYLOAD_ENCODING_HEADER, 'gzip');
    }
    const large = data.length > dataBytesPerMessage(this.nc.info?.max_payload);
    h.set(MSG_ID_HEADER, eventId);
    let lastError: unknown;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      try {
        if (!processState.isConnected(this.nc)) throw new Error('NATS connection down');
        const remaining = Math.max(250, deadline - Date.now());
        if (large) {
          await withTimeout((await this.payloadStore()).putBlob({ name: eventId }, data), remaining);
          h.set(PAYLOAD_OBJECT_HEADER, `${EVENT_PAYLOAD_BUCKET}/${eventId}`);
        }
        await this.acknowledged(subject, large ? EMPTY_OBJECT : data, h, Math.min(remaining, DURABLE_TRY_MS));
        return;
      } catch (err) {
        lastError = err;
        await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 500, Math.max(0, deadline - Date.now()))));
      }
    }
    const reason = lastError instanceof Error ? lastError.message : String(lastError);
    throw new DomainError(ErrorCode.UNAVAILABLE, `the record could not be stored (${reason}); retry shortly`, [], 2);
  }

  /**
   * Publishes and waits for the stream's PubAck, which comes to the publisher's frames inbox under
   * JETSTREAM_ANSWERER (no bus user may publish under that name): the JetStream client's request
   * path builds an Error (a stack trace) for every publish, even one that succeeds.
   */
  private async acknowledged(subject: string, data: Uint8Array, h: MsgHdrs, timeoutMs: number): Promise<void> {
    const call = this.inbox.open(JETSTREAM_ANSWERER);
    try {
      this.nc.publish(subject, data, { headers: h, reply: call.subject });
      const err = pubAckError(await withTimeout(call.frames.next(), timeoutMs));
      if (err) throw err;
    } finally {
      call.close();
    }
  }

  private store?: Promise<ObjectStore>;
  private payloadStore(): Promise<ObjectStore> {
    this.store ??= openPayloadStore(this.nc).catch((err: unknown) => {
      this.store = undefined;
      throw err;
    });
    return this.store;
  }
}

/** JetStream stores a message once per id (within the stream's duplicate window). */
const MSG_ID_HEADER = 'Nats-Msg-Id';
/** How long `publish` waits for the stream's acknowledgement (ms); `publishDurably` retries within its budget, 2 s a try. */
const PUBLISH_TIMEOUT_MS = 5000;
const DURABLE_TRY_MS = 2000;
const EMPTY_OBJECT = new TextEncoder().encode('{}');
/** The answerer token of PubAcks in a frames inbox: JetStream, not a bus user. */
const JETSTREAM_ANSWERER = '$jetstream';
const decoder = new TextDecoder();

/** What is wrong with a stream's answer to a publish, or undefined for a PubAck (`{"stream": ..., "seq": ...}`). */
function pubAckError(msg: Msg): Error | undefined {
  // A status instead of an answer: 503 when no stream takes the subject (or JetStream is down).
  if (msg.headers?.hasError)
    return new Error(`JetStream did not take it (${msg.headers.code} ${msg.headers.description})`);
  let ack: { stream?: unknown; error?: { description?: string; code?: number } };
  try {
    ack = JSON.parse(decoder.decode(msg.data)) as typeof ack;
  } catch {
    return new Error('JetStream answered with something other than a PubAck');
  }
  if (ack.error)
    return new Error(`JetStream refused it: ${ack.error.description ?? ack.error.code ?? 'no reason given'}`);
  if (typeof ack.stream !== 'string' || ack.stream === '')
    return new Error('JetStream answered with an invalid PubAck');
  return undefined;
}

/** Object store bucket of event payloads too large for one NATS message (kept as long as the streams keep events). */
export const EVENT_PAYLOAD_BUCKET = 'event-payloads';
/** Header of an event whose payload lives in the object store: `<bucket>/<name>`. */
export const PAYLOAD_OBJECT_HEADER = 'Bastion-Payload-Object';
/** Header of a message that holds several events of its subject, a JSON array of that many payloads (EventGroups). */
export const EVENT_GROUP_HEADER = 'Bastion-Event-Group';
/** Header of an event whose payload (inline or in the object store) is compressed: `gzip`. */
export const PAYLOAD_ENCODING_HEADER = 'Bastion-Payload-Encoding';
/** Payloads larger than this are gzipped before they are published (bytes of JSON). */
export const COMPRESS_FROM_BYTES = 64 * 1024;

const gzipAsync = promisify(gzip);

export function openPayloadStore(nc: NatsConnection): Promise<ObjectStore> {
  return new Objm(nc).create(EVENT_PAYLOAD_BUCKET, { ttl: 7 * 24 * 3600 * 1_000_000_000 });
}

async function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
