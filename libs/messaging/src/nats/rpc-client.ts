import {
  DomainError,
  ErrorCode,
  LONG_CALL_PEER_TIMEOUT_MS,
  type LongCallFrame,
  type RpcContract,
  type StreamContract,
} from '@bastion/contracts';
import {
  headers,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  RequestError,
  TimeoutError,
} from '@nats-io/transport-node';
import { REQUEST_ID_HEADER, injectIntoNatsHeaders, recordFailure, startNatsClientSpan } from '@bastion/observability';
import { processState } from './connection-state';
import { answererOf } from './bus-permissions';
import { FramesInbox } from './frames-inbox';
import { encodeRequest, MAX_REPLY_PARTS, PACKET_HEADER, PART_HEADER, type Wire } from './packet';

export type { Wire } from './packet';

/** Where a request goes: a contract's subject, and where to when nobody answers there. */
type Destination = Pick<RpcContract<unknown, unknown>, 'subject' | 'orElse'>;

interface NestReply<T> {
  err?: unknown;
  response?: T;
}

/**
 * Requests to a Nest NATS microservice. `call` waits for one reply on the connection's shared reply
 * inbox; `stream` and `longCall` get a reply subject of their own per call under
 * `<inbox prefix>.frames`, where the answering service may publish (one subscription, FramesInbox). Speaks Nest's packet format (`{pattern, data, id}` in,
 * `{err | response}` back) and turns transport failures into the platform's error codes: nobody
 * listening is UNAVAILABLE, no answer in time is DEADLINE_EXCEEDED.
 */
export class NatsRpcClient {
  private readonly framesInbox: FramesInbox;

  /** Bytes of replies in parts this client is joining at once, across its calls (see MAX_JOINING_BYTES). */
  private joining = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly timeoutMs: number,
    private readonly maxJoiningBytes = MAX_JOINING_BYTES,
  ) {
    coalesceWrites(nc);
    this.framesInbox = new FramesInbox(nc);
  }

  /** Sends `payload` on the contract's subject; the reply has the contract's reply type. */
  call<P, R>(contract: RpcContract<P, R>, payload: NoInfer<Wire<P>>, requestId: string): Promise<R> {
    return this.request<R>(contract, payload, requestId);
  }

  /**
   * One request, one reply, through the frames inbox like a stream's first frame: nats.js's own
   * request builds a stack-traced error per call even when it succeeds, which profiles of the
   * gateway showed among its costs per request.
   */
  private async request<T>(to: Destination, data: unknown, requestId: string): Promise<T> {
    for await (const response of this.frames<T>(to, data, requestId, this.timeoutMs, this.timeoutMs, true))
      return response;
    throw new DomainError(ErrorCode.INTERNAL, `${to.subject} answered nothing`);
  }

  /**
   * A request answered by a stream of replies (a Nest handler returning an Observable): yields each
   * response until the service marks the stream disposed. The first reply must come within the
   * RPC timeout, each next one within `idleTimeoutMs`.
   */
  stream<P, F>(
    contract: StreamContract<P, F>,
    payload: NoInfer<Wire<P>>,
    requestId: string,
    idleTimeoutMs: number,
  ): AsyncGenerator<F> {
    return this.frames<F>(contract, payload, requestId, idleTimeoutMs);
  }

  /**
   * A long call: waits for its reply as long as the service keeps pinging, so a slow model is not
   * cut off by the RPC timeout while a service that died is noticed within `peerTimeoutMs`.
   */
  async longCall<P, R>(
    contract: StreamContract<P, LongCallFrame<R>>,
    payload: NoInfer<Wire<P>>,
    requestId: string,
    peerTimeoutMs = LONG_CALL_PEER_TIMEOUT_MS,
  ): Promise<R> {
    // The service pings within LONG_CALL_PING_MS of taking the call, so silence means it is gone from the first frame on.
    for await (const frame of this.frames<LongCallFrame<R>>(
      contract,
      payload,
      requestId,
      peerTimeoutMs,
      peerTimeoutMs,
    )) {
      if ('reply' in frame) return frame.reply;
    }
    throw new DomainError(ErrorCode.INTERNAL, `${contract.subject} ended without a reply`);
  }

  private async *frames<T>(
    to: Destination,
    data: unknown,
    requestId: string,
    idleTimeoutMs: number,
    firstTimeoutMs = this.timeoutMs,
    /** A plain request: its one reply is the answer, whatever it holds. */
    single = false,
  ): AsyncGenerator<T> {
    this.assertConnected();
    let subject = to.subject;
    const { span, ctx } = startNatsClientSpan(subject);
    let call = this.framesInbox.open(answererOf(subject));
    const h = headers();
    h.set(REQUEST_ID_HEADER, requestId);
    injectIntoNatsHeaders(h, ctx);
    const packet = encodeRequest(subject, data, h);
    const send = () => {
      try {
        this.nc.publish(subject, packet, { reply: call.subject, headers: h });
      } catch (err) {
        // The connection closed or draining since it was checked: an outage, as for any caller.
        throw transportError(subject, err);
      }
    };
    try {
      this.assertFits(packet, h);
      send();
    } catch (err) {
      call.close();
      recordFailure(span, err);
      span.end();
      throw err;
    }
    let timeoutMs = firstTimeoutMs;
    // The parts of a reply that came in several messages so far, how many it has, and by when all must be in.
    const parts: Uint8Array[] = [];
    let partsOf = 0;
    let partsBy = 0;
    // What this call holds of the client's joining budget.
    let reserved = 0;
    try {
      for (;;) {
        const wait = parts.length ? Math.max(1, partsBy - performance.now()) : timeoutMs;
        const msg: Msg = await withTimeout(call.frames.next(), wait, subject);
        if (msg.headers?.code === 503 || (msg.data.length === 0 && msg.headers)) {
          // Nobody on a lane: the request's own subject, with the same packet (handlers go by subject).
          if (to.orElse !== undefined && subject !== to.orElse) {
            call.close();
            subject = to.orElse;
            span.updateName(`${subject} send`).setAttribute('messaging.destination.name', subject);
            this.assertConnected();
            call = this.framesInbox.open(answererOf(subject));
            send();
            continue;
          }
          throw transportError(subject, new RequestError('no responders', { cause: 'no responders' }), true);
        }
        const part = msg.headers?.get(PART_HEADER);
        if (part || parts.length) {
          const [at, of] = (part ?? '').split('/').map(Number);
          // A part larger than the first would outgrow what was reserved for the whole.
          if (
            at !== parts.length + 1 ||
            !(of >= at) ||
            of > MAX_REPLY_PARTS ||
            (parts.length && (of !== partsOf || msg.data.length > parts[0].length))
          )
            throw new DomainError(ErrorCode.INTERNAL, `${subject} answered in parts that do not fit together`);
          // One reply's parts share the wait for it: a slow answerer cannot stretch it part by part.
          if (at === 1) {
            [partsOf, partsBy] = [of, performance.now() + timeoutMs];
            // Every part but the last is as large as the first: the whole is reserved before more arrives.
            reserved = this.reserve(subject, of * msg.data.length);
          }
          parts.push(msg.data);
          if (at < of) continue;
        }
        const reply = (parts.length ? JSON.parse(joinParts(parts.splice(0))) : msg.json()) as NestReply<T> & {
          isDisposed?: boolean;
        };
        this.joining -= reserved;
        reserved = 0;
        if (reply.err !== undefined && reply.err !== null) {
          throw DomainError.fromPayload(reply.err) ?? new DomainError(ErrorCode.INTERNAL, 'internal error');
        }
        if (single) return yield reply.response as T;
        if (reply.response !== undefined && reply.response !== null) yield reply.response;
        if (reply.isDisposed) return;
        timeoutMs = idleTimeoutMs;
      }
    } catch (err) {
      recordFailure(span, err);
      throw err;
    } finally {
      this.joining -= reserved;
      call.close();
      span.end();
    }
  }

  /**
   * A request larger than the server takes in one message (its max_payload, headers included) is
   * the caller's to shrink: refused as invalid, naming both sizes, instead of failing in the client.
   */
  private assertFits(packet: string | Uint8Array, h: MsgHdrs): void {
    const max = this.nc.info?.max_payload;
    if (max === undefined) return;
    // Three bytes of UTF-8 at most per UTF-16 unit; headers besides the packet header (request id,
    // trace context) stay under 4 KiB: most requests need no count, and no header string is built.
    const packetHeader = h.get(PACKET_HEADER).length;
    const bytesAtMost = typeof packet === 'string' ? packet.length * 3 : packet.length;
    if (bytesAtMost + packetHeader + 4096 < max) return;
    const size = (typeof packet === 'string' ? Buffer.byteLength(packet) : packet.length) + h.toString().length;
    if (size > max) {
      throw DomainError.invalid(
        `the request is too large to pass on: ${size} bytes with its envelope, at most ${max}`,
        [{ loc: ['body'], msg: `at most ${max} bytes with its envelope`, type: 'too_large' }],
      );
    }
  }

  /**
   * Takes `bytes` of the joining budget for a reply in parts, or refuses it: one larger than the
   * whole budget as INVALID_ARGUMENT (ask for less at once), one that does not fit beside the replies
   * being joined now as RESOURCE_EXHAUSTED (retry shortly).
   */
  private reserve(subject: string, bytes: number): number {
    if (bytes > this.maxJoiningBytes)
      throw DomainError.invalid(
        `the answer of ${subject} is too large to pass on (about ${bytes} bytes, at most ${this.maxJoiningBytes}); ask for less at once`,
      );
    if (this.joining + bytes > this.maxJoiningBytes)
      throw new DomainError(
        ErrorCode.RESOURCE_EXHAUSTED,
        'too many large answers are on their way at once; retry shortly',
        [],
        OUTAGE_RETRY_AFTER_S,
      );
    this.joining += bytes;
    return bytes;
  }

  /**
   * While the connection is down a request would sit in the client's buffer for the whole timeout:
   * fail at once instead, as an outage the caller may retry.
   */
  private assertConnected(): void {
    if (!processState.isConnected(this.nc)) {
      throw new DomainError(
        ErrorCode.UNAVAILABLE,
        'the messaging system is not reachable; retry shortly',
        [],
        OUTAGE_RETRY_AFTER_S,
      );
    }
  }
}

/** Seconds a caller should wait before retrying a request that met an outage. */
export const OUTAGE_RETRY_AFTER_S = 2;

/**
 * Bytes of replies in parts (Bastion-Part) a client joins at once, across its calls: each such reply
 * is held about three times over while it is joined and parsed, so without a bound a few listings of
 * megabyte prompts, or a hostile upstream's large answers, would take the caller's memory. A single
 * reply larger than this is refused as too large.
 */
export const MAX_JOINING_BYTES = 32 * 1024 * 1024;

interface ProtocolInternals {
  outbound: { length(): number; size(): number; fill(...parts: Uint8Array[]): void };
  pendingLimit: number;
  flushPending(): void;
  sendCommand(cmd: string | Uint8Array, ...payloads: Uint8Array[]): void;
  [COALESCED]?: true;
}
const COALESCED = Symbol('bastion.coalescedWrites');
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The text of a reply that came in parts. */
function joinParts(parts: Uint8Array[]): string {
  return decoder.decode(Buffer.concat(parts));
}

/**
 * nats.js writes what was queued at the end of every microtask checkpoint: under load, one socket
 * write per request, which profiles of the gateway and services showed as their largest single
 * cost. This lets a connection write once per event-loop turn instead (setImmediate runs right
 * after the turn's I/O callbacks), so the requests of one turn leave in one write. Order is kept;
 * large buffers are still written at once. A no-op if the client's internals are not as expected.
 */
export function coalesceWrites(nc: NatsConnection): void {
  const protocol = (nc as unknown as { protocol?: ProtocolInternals }).protocol;
  if (
    !protocol ||
    protocol[COALESCED] ||
    typeof protocol.sendCommand !== 'function' ||
    typeof protocol.flushPending !== 'function' ||
    !protocol.outbound
  )
    return;
  protocol[COALESCED] = true;
  protocol.sendCommand = function sendCommand(cmd, ...payloads) {
    const queued = this.outbound.length();
    this.outbound.fill(typeof cmd === 'string' ? encoder.encode(cmd) : cmd, ...payloads);
    if (queued === 0) setImmediate(() => this.flushPending());
    else if (this.outbound.size() >= this.pendingLimit) this.flushPending();
  };
}

async function withTimeout<T>(promise: Promise<T>, ms: number, subject: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(transportError(subject, new TimeoutError())), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function transportError(subject: string, err: unknown, noResponders = false): DomainError {
  const service = subject.split('.')[0];
  if (noResponders || (err instanceof RequestError && err.isNoResponders())) {
    return new DomainError(ErrorCode.UNAVAILABLE, `the ${service} service is not available`, [], OUTAGE_RETRY_AFTER_S);
  }
  if (err instanceof TimeoutError || (err instanceof Error && err.cause instanceof TimeoutError)) {
    return new DomainError(ErrorCode.DEADLINE_EXCEEDED, `the ${service} service did not answer in time`);
  }
  return new DomainError(
    ErrorCode.UNAVAILABLE,
    `the ${service} service could not be reached`,
    [],
    OUTAGE_RETRY_AFTER_S,
  );
}
