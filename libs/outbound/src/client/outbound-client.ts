import { context, propagation, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import axios, {
  type AxiosInstance,
  type AxiosResponse,
  type RawAxiosResponseHeaders,
  type AxiosResponseHeaders,
} from 'axios';
import { isIP } from 'node:net';
import { Readable } from 'node:stream';
import { AddressGuard } from '../address/address-guard';
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
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The platform's only way to make an outbound HTTP request (provider tester, message proxy). A
 * small class around axios rather than an axios instance, so no caller can switch off what makes
 * it safe (agents, proxy, redirects, adapter) through per-request config.
 *
 * - SSRF: every connection goes through guarded agents (see guarded-agents.ts); IP literals are
 *   also checked here, before any socket exists, for a fast and clear refusal.
 * - Redirects are not followed: a 3xx comes back as a response like any other status, so a
 *   public host cannot bounce the request to a private one, and the tester shows what happened.
 * - Proxies from the environment (HTTP_PROXY, ...) are ignored: the guard must see the real
 *   destination, not a proxy that would fetch anything for us.
 * - Every status is a response; only a failure to get one is an OutboundError.
 * - Tracing: one CLIENT span per request naming the host, never the path or query (they can hold
 *   secrets), and only `traceparent` added to what goes upstream.
 */
export class OutboundClient {
  private readonly http: AxiosInstance;
  private readonly agents: GuardedAgents;
  private readonly guard: AddressGuard;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;
  private readonly maxRequestBytes: number;

  constructor(options: OutboundClientOptions = {}) {
    const allowlist =
      typeof options.allowlist === 'string'
        ? parseAllowlist(options.allowlist)
        : (options.allowlist ?? Allowlist.empty);
    this.guard = new AddressGuard(allowlist);
    this.agents = createGuardedAgents(this.guard, options.resolve ?? systemResolver);
    this.timeoutMs = positive(options.timeoutMs, DEFAULT_TIMEOUT_MS, 'timeoutMs');
    this.maxResponseBytes = positive(options.maxResponseBytes, DEFAULT_MAX_BYTES, 'maxResponseBytes');
    this.maxRequestBytes = positive(options.maxRequestBytes, DEFAULT_MAX_BYTES, 'maxRequestBytes');
    this.http = axios.create({
      adapter: 'http',
      httpAgent: this.agents.http,
      httpsAgent: this.agents.https,
      proxy: false,
      maxRedirects: 0,
      maxContentLength: this.maxResponseBytes,
      maxBodyLength: this.maxRequestBytes,
      validateStatus: () => true,
      // Bytes in, bytes out: no JSON guessing, so signatures and the tester see what was sent.
      transformRequest: [],
      transformResponse: [],
    });
  }

  async request(req: OutboundRequest): Promise<OutboundResponse> {
    const { res, finish } = await this.send(req, 'arraybuffer');
    finish();
    return { ...head(res), body: res.data as Buffer };
  }

  /** Like request, but hands over the body as it arrives (server-sent events from a model). */
  async stream(req: OutboundRequest): Promise<OutboundStreamResponse> {
    const { res, ctx, finish } = await this.send(req, 'stream');
    return { ...head(res), body: relay(res.data as Readable, ctx, finish) };
  }

  /** Closes pooled connections; in-flight requests fail. */
  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async send(req: OutboundRequest, responseType: 'arraybuffer' | 'stream') {
    const url = this.checkUrl(req.url);
    const timeoutMs =
      req.timeoutMs === undefined ? this.timeoutMs : positive(req.timeoutMs, this.timeoutMs, 'timeoutMs');
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const ctx = (): FailureContext => ({
      origin: url.origin,
      timeoutMs,
      maxResponseBytes: this.maxResponseBytes,
      maxRequestBytes: this.maxRequestBytes,
      timedOut: deadline.signal.aborted,
    });
    const span = startClientSpan(req.method, url);
    let finished = false;
    /** Ends the exchange: once the body is read, or on failure. */
    const finish = (failure?: OutboundError) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (failure) {
        span.setAttribute('error.type', failure.kind);
        span.setStatus({ code: SpanStatusCode.ERROR, message: failure.message });
      }
      span.end();
    };
    try {
      const res = await this.http.request({
        method: req.method,
        url: url.href,
        headers: withTraceParent(withoutDefaultContentType(req.headers), span),
        data: toBuffer(req.body),
        responseType,
        signal: req.signal ? AbortSignal.any([deadline.signal, req.signal]) : deadline.signal,
      });
      span.setAttribute('http.response.status_code', res.status);
      if (res.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return { res, ctx, finish };
    } catch (err) {
      const failure = toOutboundError(err, ctx());
      finish(failure);
      throw failure;
    }
  }

  private checkUrl(raw: string): URL {
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

function head(res: AxiosResponse): OutboundResponseHead {
  return { status: res.status, statusText: res.statusText ?? '', headers: flattenHeaders(res.headers) };
}

function flattenHeaders(headers: RawAxiosResponseHeaders | AxiosResponseHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || value === null) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** Re-emits the body, turning a mid-body failure into an OutboundError and ending the deadline with the body. */
function relay(source: Readable, ctx: () => FailureContext, finish: (failure?: OutboundError) => void): Readable {
  async function* chunks(): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of source) yield chunk as Buffer;
    } catch (err) {
      const failure = toOutboundError(err, ctx());
      finish(failure);
      throw failure;
    } finally {
      finish();
    }
  }
  const body = Readable.from(chunks(), { objectMode: false });
  // A consumer that gives up before reading must still free the connection and the timer.
  body.once('close', () => {
    source.destroy();
    finish();
  });
  return body;
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

/** Adds the span's `traceparent` (nothing when tracing is off), and only that: no baggage, no tracestate. */
function withTraceParent<H extends Record<string, string | false>>(headers: H, span: Span): H {
  const carrier: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), carrier);
  return carrier.traceparent ? { ...headers, traceparent: carrier.traceparent } : headers;
}

/**
 * Axios gives POST/PUT/PATCH a form content type when none is set; a provider would read the
 * body wrongly and a signature would not cover it. `false` tells axios to leave the header out.
 */
function withoutDefaultContentType(headers: Readonly<Record<string, string>> = {}): Record<string, string | false> {
  const hasType = Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
  return hasType ? { ...headers } : { ...headers, 'Content-Type': false };
}

function toBuffer(body: string | Uint8Array | undefined): Buffer | undefined {
  if (body === undefined || Buffer.isBuffer(body)) return body;
  return typeof body === 'string'
    ? Buffer.from(body, 'utf8')
    : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number`);
  return value;
}
