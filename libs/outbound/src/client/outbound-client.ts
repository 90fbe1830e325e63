import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type * as http from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { Readable, Transform } from 'node:stream';
import * as zlib from 'node:zlib';
import { AddressGuard, type RefusalLog } from '../address/address-guard';
import { Allowlist, parseAllowlist } from '../address/allowlist';
import { systemResolver, type Resolver } from '../address/guarded-lookup';
import { OutboundError } from '../errors/outbound-error';
import { toOutboundError, type FailureContext } from '../errors/to-outbound-error';
import { createGuardedAgents, type GuardedAgents } from './guarded-agents';

export interface OutboundClientOptions {
  /** Non-public destinations to allow: an `OUTBOUND_ALLOWLIST` value or a parsed allowlist. */
  allowlist?: string | Allowlist;
  /** Deadline for the whole exchange, body included (default 30 s); each request may override it. */
  timeoutMs?: number;
  /** Largest response body, counted after decompression (default 10 MiB). */
  maxResponseBytes?: number;
  /** Largest request body (default 10 MiB). */
  maxRequestBytes?: number;
  /** Name resolution; tests inject a hostile one. */
  resolve?: Resolver;
  /** Where a refused host name's resolved address is written (it is kept out of error messages). */
  log?: RefusalLog;
}

export interface OutboundRequest {
  method: string;
  /** Absolute http(s) URL, query included. */
  url: string;
  headers?: Readonly<Record<string, string>>;
  /** Sent byte for byte (strings as UTF-8): the bytes a signature was computed over. */
  body?: string | Uint8Array;
  timeoutMs?: number;
  /** Cancels the request (e.g. when the client of the proxy goes away). */
  signal?: AbortSignal;
}

export interface OutboundResponseHead {
  status: number;
  statusText: string;
  /** Lowercase names; repeated headers joined with ", ". */
  headers: Record<string, string>;
}

export interface OutboundResponse extends OutboundResponseHead {
  body: Buffer;
}

export interface OutboundStreamResponse extends OutboundResponseHead {
  /** Fails with an OutboundError (too_large, timeout, ...) if the exchange breaks off mid-body. */
  body: Readable;
}

const DEFAULT_TIMEOUT_MS = 30_000;
/** URLs the client remembers as checked before it forgets them all and starts again. */
const CHECKED_URLS_MAX = 256;
/** Longer URLs are checked each time, not remembered. */
const CHECKED_URL_MAX_LENGTH = 512;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The platform's only way to make an outbound HTTP request (provider tester, message proxy): a
 * small class on Node's own HTTP client (an HTTP library's per-request configuration merging cost
 * the message proxy a tenth of its CPU), taking no per-request options that could switch off what
 * makes it safe (agents, proxy, redirects).
 *
 * - SSRF: every connection goes through guarded agents (see guarded-agents.ts); IP literals are
 *   also checked here, before any socket exists, for a fast and clear refusal.
 * - Redirects are not followed: a 3xx comes back as a response like any other status, so a
 *   public host cannot bounce the request to a private one, and the tester shows what happened.
 * - Proxies from the environment (HTTP_PROXY, ...) are ignored: the guard must see the real
 *   destination, not a proxy that would fetch anything for us.
 * - Every status is a response; only a failure to get one is an OutboundError. Bodies in gzip,
 *   deflate or brotli are decompressed, and counted against the cap after decompression.
 * - Tracing: one CLIENT span per request naming the host, never the path or query (they can hold
 *   secrets), and only `traceparent` added to what goes upstream.
 */
export class OutboundClient {
  private readonly agents: GuardedAgents;
  private readonly guard: AddressGuard;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxRequestBytes: number;
  /**
   * URLs already parsed and found allowed (the proxy sends to the same few all day): the guard's
   * verdict on an IP literal depends only on the URL and this client's allowlist. Read only, never changed.
   */
  private readonly checkedUrls = new Map<string, URL>();

  constructor(options: OutboundClientOptions = {}) {
    const allowlist =
      typeof options.allowlist === 'string'
        ? parseAllowlist(options.allowlist)
        : (options.allowlist ?? Allowlist.empty);
    this.guard = new AddressGuard(allowlist, options.log);
    this.agents = createGuardedAgents(this.guard, options.resolve ?? systemResolver);
    this.timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.maxResponseBytes = positive(options.maxResponseBytes, DEFAULT_MAX_BYTES, 'maxResponseBytes');
    this.maxRequestBytes = positive(options.maxRequestBytes, DEFAULT_MAX_BYTES, 'maxRequestBytes');
  }

  async request(req: OutboundRequest): Promise<OutboundResponse> {
    const { res, ctx, finish, origin } = await this.send(req);
    try {
      const body = await readBody(req.method, res, this.maxResponseBytes, origin);
      finish();
      return { ...head(res), body };
    } catch (err) {
      const failure = toOutboundError(err, ctx());
      finish(failure);
      throw failure;
    }
  }

  /** Like request, but hands over the body as it arrives (server-sent events from a model). */
  async stream(req: OutboundRequest): Promise<OutboundStreamResponse> {
    const { res, ctx, finish, origin } = await this.send(req);
    const body = decodedBody(req.method, res, this.maxResponseBytes, origin, (err) => toOutboundError(err, ctx()));
    // The deadline ends with the body, however it ends: read to its end, failed, or given up by its reader.
    body.once('error', (err) => finish(err instanceof OutboundError ? err : undefined));
    body.once('close', () => finish());
    return { ...head(res), body };
  }

  /** Closes pooled connections; in-flight requests fail. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /**
   * Sends the request on the guarded agents and resolves with the response, its body unread. The
   * deadline covers the body too; until `finish`, it (or the caller's signal) breaks the exchange off.
   */
  private async send(req: OutboundRequest) {
    const url = this.checkUrl(req.url);
    const timeoutMs =
      req.timeoutMs === undefined ? this.timeoutMs : positive(req.timeoutMs, this.timeoutMs, 'timeoutMs');
    const ctx = (): FailureContext => ({
      origin: url.origin,
      timeoutMs,
      maxResponseBytes: this.maxResponseBytes,
      maxRequestBytes: this.maxRequestBytes,
      timedOut,
    });
    const data = bodyOf(req.body, asciiOnly(req.headers));
    if (data && data.length > this.maxRequestBytes)
      throw new OutboundError('too_large', `the request body is larger than ${this.maxRequestBytes} bytes`);
    // The deadline calls abort itself: an AbortController and its event listener per request cost
    // more than the timer; only a caller's signal is listened to.
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      abort();
    }, timeoutMs);
    const signal = req.signal;
    const span = startClientSpan(req.method, url);
    let finished = false;
    let exchange: { req?: http.ClientRequest; res?: http.IncomingMessage } = {};
    const abort = () => {
      const cancelled = toOutboundError(Object.assign(new Error('cancelled'), { code: 'ERR_CANCELED' }), ctx());
      exchange.req?.destroy(cancelled);
      exchange.res?.destroy(cancelled);
    };
    /** Ends the exchange: once the body is read, or on failure. */
    const finish = (failure?: OutboundError) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
      exchange = {};
      if (failure) {
        span.setAttribute('error.type', failure.kind);
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
      }
      span.end();
    };
    try {
      signal?.addEventListener('abort', abort, { once: true });
      const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const https = url.protocol === 'https:';
        const outgoing = (https ? httpsRequest : httpRequest)(url, {
          method: req.method,
          headers: requestHeaders(req.headers, data, span),
          agent: https ? this.agents.https : this.agents.http,
        });
        exchange.req = outgoing;
        // Kept for the whole exchange: an abort after the response destroys the request too.
        outgoing.on('error', reject);
        outgoing.once('response', resolve);
        if (signal?.aborted) abort();
        outgoing.end(data?.bytes);
      });
      exchange.res = res;
      span.setAttribute('http.response.status_code', res.statusCode ?? 0);
      if ((res.statusCode ?? 0) >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return { res, ctx, finish, origin: url.origin };
    } catch (err) {
      const failure = toOutboundError(err, ctx());
      finish(failure);
      throw failure;
    }
  }

  private checkUrl(raw: string): URL {
    let url = this.checkedUrls.get(raw);
    if (url) return url;
    url = this.parseAndCheck(raw);
    // A URL may carry a prompt (a template's path or query): long ones are not kept.
    if (raw.length > CHECKED_URL_MAX_LENGTH) return url;
    if (this.checkedUrls.size >= CHECKED_URLS_MAX) this.checkedUrls.clear();
    this.checkedUrls.set(raw, url);
    return url;
  }

  private parseAndCheck(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundError('invalid_url', 'the URL is not a valid absolute URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new OutboundError('invalid_url', `only http and https URLs are allowed, not ${url.protocol.slice(0, -1)}`);
    }
    // The URL parser has already turned 0x7f000001, 2130706433 and 127.1 into 127.0.0.1.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (isIP(host)) {
      const refusal = this.guard.refusal(
        { host, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80) },
        host,
      );
      if (refusal) throw refusal;
    }
    return url;
  }
}

export function createOutboundClient(options?: OutboundClientOptions): OutboundClient {
  return new OutboundClient(options);
}

function head(res: http.IncomingMessage): OutboundResponseHead {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  // The body handed over is decompressed: its encoding is no longer the one the server named.
  if (encodingOf(res)) delete headers['content-encoding'];
  return { status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers };
}

/** The content encoding of the response this client decodes, if it has one (a body to decode). */
function encodingOf(res: http.IncomingMessage): 'unzip' | 'br' | undefined {
  if (res.statusCode === 204 || res.headers['content-length'] === '0') return undefined;
  switch (
    String(res.headers['content-encoding'] ?? '')
      .trim()
      .toLowerCase()
  ) {
    case 'gzip':
    case 'x-gzip':
    case 'deflate':
      return 'unzip';
    case 'br':
      return 'br';
    default:
      return undefined;
  }
}

/** A stream that turns the response's content encoding back into bytes, when it has one this client asked for. */
function decoderFor(res: http.IncomingMessage): Transform | undefined {
  // Flushing on every chunk, so a compressed event stream still arrives event by event, and a truncated body yields what it had.
  switch (encodingOf(res)) {
    case 'unzip':
      return zlib.createUnzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'br':
      return zlib.createBrotliDecompress({
        flush: zlib.constants.BROTLI_OPERATION_FLUSH,
        finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
      });
    default:
      return undefined;
  }
}

/**
 * The body as the caller reads it: decompressed, and failing with too_large past `max` bytes, or
 * with what `failure` makes of the connection's or decoder's error (the caller reads an
 * OutboundError). A reader that destroys it, or a cap that was hit, frees the connection.
 */
function decodedBody(
  method: string,
  res: http.IncomingMessage,
  max: number,
  origin: string,
  failure: (err: unknown) => Error = (err) => err as Error,
): Readable {
  const decoder = method.toUpperCase() === 'HEAD' ? undefined : decoderFor(res);
  let received = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      if (received > max) return done(tooLarge(origin, max));
      done(null, chunk);
    },
  });
  const fail = (err: Error) => capped.destroy(failure(err));
  res.on('error', fail);
  res.once('close', () => {
    if (!res.complete) fail(endedEarly());
  });
  if (decoder) {
    decoder.on('error', fail);
    res.pipe(decoder).pipe(capped);
  } else {
    res.pipe(capped);
  }
  // A reader that stops early (or a cap that was hit) frees the connection.
  capped.once('close', () => {
    // One read to its end but left unread is drained, so that its socket goes back to the pool.
    if (!res.complete) res.destroy();
    else res.resume();
    decoder?.destroy();
  });
  return capped;
}

/**
 * The whole body, decompressed and held to `max` bytes. One with no content encoding (what model
 * providers send) is gathered from the response's own events: a Transform, a pipe and an async
 * iterator per request cost the message proxy more than the rest of its HTTP client.
 */
function readBody(method: string, res: http.IncomingMessage, max: number, origin: string): Promise<Buffer> {
  if (method.toUpperCase() !== 'HEAD' && encodingOf(res)) return gather(decodedBody(method, res, max, origin));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    res.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= max) return void chunks.push(chunk);
      const failure = tooLarge(origin, max);
      reject(failure);
      // Frees the connection; the error it reports after this one changes nothing.
      res.destroy(failure);
    });
    res.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, received)));
    res.once('error', reject);
    res.once('close', () => {
      if (!res.complete) reject(endedEarly());
    });
  });
}

async function gather(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
}

/** A CLIENT span for one request, a child of the current one: the host, never the path or query. */
function startClientSpan(method: string, url: URL): Span {
  const upper = method.toUpperCase();
  return trace.getTracer('bastion').startSpan(`HTTP ${upper}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': upper,
      'server.address': url.hostname.replace(/^\[(.*)\]$/, '$1'),
      'server.port': Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
    },
  });
}

/**
 * The headers as the caller gave them (no content type added: a provider would read the body
 * wrongly and a signature would not cover it), the body's length, the encodings this client
 * decodes when the caller named none, and the span's `traceparent` (nothing when tracing is off),
 * and only that: no baggage, no tracestate.
 */
function requestHeaders(
  given: Readonly<Record<string, string>> = {},
  body: { length: number } | undefined,
  span: Span,
): Record<string, string> {
  const headers: Record<string, string> = { ...given };
  const names = new Set(Object.keys(given).map((n) => n.toLowerCase()));
  if (!names.has('accept')) headers.accept = 'application/json, text/plain, */*';
  if (!names.has('accept-encoding')) headers['accept-encoding'] = 'gzip, deflate, br';
  if (body && !names.has('content-length')) headers['content-length'] = String(body.length);
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  if (carrier.traceparent) headers.traceparent = carrier.traceparent;
  return headers;
}

/**
 * The body to send and its length in bytes. A string is handed to Node as it is, which writes it
 * as UTF-8 (the same bytes Buffer.from makes) in one write with the request's head; a Buffer would
 * leave in a second. Only with ASCII headers: Node writes the head of such a request in the body's
 * encoding, and a header character from U+0080 to U+00FF would go out as two bytes, not its one.
 */
function bodyOf(
  body: string | Uint8Array | undefined,
  asciiHeaders: boolean,
): { bytes: string | Buffer; length: number } | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string' && asciiHeaders) return { bytes: body, length: Buffer.byteLength(body, 'utf8') };
  const bytes =
    typeof body === 'string'
      ? Buffer.from(body, 'utf8')
      : Buffer.isBuffer(body)
        ? body
        : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return { bytes, length: bytes.length };
}

function tooLarge(origin: string, max: number): OutboundError {
  return new OutboundError('too_large', `the response from ${origin} is larger than ${max} bytes`);
}

/** A response cut short that reports no error of its own: read as the connection reset it was. */
function endedEarly(): Error {
  return Object.assign(new Error('the response ended early'), { code: 'ECONNRESET' });
}

function asciiOnly(headers: Readonly<Record<string, string>> = {}): boolean {
  for (const name in headers) if (NON_ASCII.test(headers[name])) return false;
  return true;
}

const NON_ASCII = /[^\p{ASCII}]/u;

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}
