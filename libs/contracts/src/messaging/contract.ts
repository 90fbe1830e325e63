/**
 * One declaration per NATS subject: the subject, the class its payload is validated against, and
 * (as types only) what it answers. The typed client (`NatsRpcClient.call`/`stream`/`longCall`),
 * the handler decorator (`@Handles`), the event publisher and `consumes(...)` for `DurableConsumer`
 * take these declarations, so a payload or reply that does not match its subject fails to compile
 * on either side.
 */

/** A payload class (validated on receipt by the service's ValidationPipe). */
export type PayloadClass<P> = abstract new (...args: never[]) => P;

/** The payload of a subject that takes none (health checks, the JWKS). */
export type NoPayload = Record<string, never>;

/**
 * Carries the payload and reply types without any runtime value. Functions in both directions make
 * each type invariant, so neither a wider nor a narrower type passes for the declared one.
 */
interface Carries<P, R> {
  readonly __types?: { payload: (p: P) => P; reply: (r: R) => R };
}

/** A request answered by one reply. */
export interface RpcContract<P, R> extends Carries<P, R> {
  readonly kind: 'rpc';
  readonly subject: string;
  readonly payload?: PayloadClass<P>;
  /** Where the request goes when no process answers on `subject` (a lane's twin: the request's own subject). */
  readonly orElse?: string;
}

/** A request answered by a stream of replies (frames), the last one marked disposed. */
export interface StreamContract<P, F> extends Carries<P, F> {
  readonly kind: 'stream';
  readonly subject: string;
  readonly payload?: PayloadClass<P>;
  /** Where the request goes when no process answers on `subject` (a lane's twin: the request's own subject). */
  readonly orElse?: string;
}

/** An event published to a JetStream stream (or, for `notify`, to core NATS). */
export interface EventContract<P> extends Carries<P, void> {
  readonly kind: 'event';
  readonly subject: string;
  readonly payload: PayloadClass<P>;
  /** The JetStream stream that stores it. */
  readonly stream: string;
  /**
   * Whether a publisher may send several of these events as one message (a JSON array of payloads
   * under the EVENT_GROUP header, on the same subject); every DurableConsumer takes both.
   */
  readonly grouped?: boolean;
}

/** A fire-and-forget signal on a subject made per use (e.g. one stream's cancel subject). */
export interface SignalContract {
  readonly kind: 'signal';
  /** The subject for one use, from its key. */
  subject(key: string): string;
}

export type PayloadOf<C> = C extends Carries<infer P, unknown> ? P : never;
export type ReplyOf<C> = C extends RpcContract<unknown, infer R> ? R : never;
export type FrameOf<C> = C extends StreamContract<unknown, infer F> ? F : never;

/**
 * Declares a request-reply subject: `declareRpc(subject, PayloadClass).returns<Reply>()`. Without a class
 * the subject takes no payload.
 */
export function declareRpc<P = NoPayload>(
  subject: string,
  payload?: PayloadClass<P>,
): { returns<R>(): RpcContract<P, R> } {
  return { returns: () => ({ kind: 'rpc', subject, payload }) };
}

/** Declares a streamed request: `declareStream(subject, PayloadClass).frames<Frame>()`. */
export function declareStream<P>(subject: string, payload: PayloadClass<P>): { frames<F>(): StreamContract<P, F> } {
  return { frames: () => ({ kind: 'stream', subject, payload }) };
}

/**
 * A frame of a long call: pings while the work runs, so the caller can tell a service that died
 * from one still waiting on a model, then the reply.
 */
export type LongCallFrame<R> = { ping: true } | { reply: R };

/** How often a long call pings (ms), and the silence after which its caller takes the service for gone. */
export const LONG_CALL_PING_MS = 500;
export const LONG_CALL_PEER_TIMEOUT_MS = 2000;

/**
 * Declares a request whose answer may take longer than any RPC timeout (it waits on a model or a
 * provider): `declareLongCall(subject, PayloadClass).returns<Reply>()`. It travels as a stream of
 * `LongCallFrame`s; the typed client's `longCall` answers the reply.
 */
export function declareLongCall<P>(
  subject: string,
  payload: PayloadClass<P>,
): { returns<R>(): StreamContract<P, LongCallFrame<R>> } {
  return { returns: () => ({ kind: 'stream', subject, payload }) };
}

/** Declares an event with its payload class and the stream that stores it; `grouped`: see EventContract. */
export function declareEvent<P>(
  subject: string,
  payload: PayloadClass<P>,
  streamName: string,
  options: { grouped?: boolean } = {},
): EventContract<P> {
  return { kind: 'event', subject, payload, stream: streamName, ...(options.grouped ? { grouped: true } : {}) };
}

/** Declares a family of per-use signal subjects under `prefix`. */
export function declareSignal(prefix: string): SignalContract {
  return { kind: 'signal', subject: (key) => `${prefix}.${key}` };
}
