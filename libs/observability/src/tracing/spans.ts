import { ErrorCode, HTTP_STATUS, isErrorCode } from '@bastion/contracts';
import {
  type Context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapGetter,
  type TextMapSetter,
} from '@opentelemetry/api';
import type { MsgHdrs } from '@nats-io/transport-node';
import { currentContext, tracer } from './tracing';

const natsSetter: TextMapSetter<MsgHdrs> = { set: (h, key, value) => h.set(key, value) };
const natsGetter: TextMapGetter<MsgHdrs | undefined> = {
  keys: (h) => (h ? [...h.keys()] : []),
  get: (h, key) => h?.get(key) || undefined,
};

/** Writes the trace context (`traceparent`, `tracestate`) of `ctx` into NATS message headers. */
export function injectIntoNatsHeaders(h: MsgHdrs, ctx: Context = currentContext()): void {
  propagation.inject(ctx, h, natsSetter);
}

/** The trace context a NATS message carries (the root context when it carries none). */
export function extractFromNatsHeaders(h: MsgHdrs | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, h, natsGetter);
}

/** A CLIENT span for one NATS request, a child of the current context, and the context to inject. */
export function startNatsClientSpan(subject: string): { span: Span; ctx: Context } {
  const parent = currentContext();
  const span = tracer().startSpan(
    `${subject} send`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.operation.type': 'send',
      },
    },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

/** A SERVER span for handling one NATS request, a child of the caller's span when the message names one. */
export function startNatsServerSpan(subject: string, h: MsgHdrs | undefined): { span: Span; ctx: Context } {
  const parent = extractFromNatsHeaders(h);
  const span = tracer().startSpan(
    `${subject} process`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.operation.type': 'process',
      },
    },
    parent,
  );
  return { span, ctx: trace.setSpan(parent, span) };
}

/**
 * Notes a failure on a span: `error.type` is the domain error code (INTERNAL for anything else).
 * Only faults of the server side (what the gateway answers with a 5xx) set the error status and
 * an exception event; a NOT_FOUND or INVALID_ARGUMENT is an answer, not a broken span.
 */
export function recordFailure(span: Span, err: unknown): void {
  if (!span.isRecording()) return;
  const given = (err as { code?: unknown } | null)?.code;
  const code = isErrorCode(given) ? given : ErrorCode.INTERNAL;
  span.setAttribute('error.type', code);
  if (HTTP_STATUS[code] < 500) return;
  if (err instanceof Error) span.recordException(err);
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(code) });
}

export interface HttpServerSpan {
  /** The context with the span in it, for the work the request does. */
  ctx: Context;
  /** False when the span records nothing (tracing off, or a caller's trace not sampled). */
  recording: boolean;
  /** Ends the span with the response status; later calls do nothing. */
  end(status: number): void;
}

/**
 * A SERVER span for one HTTP request, continuing the caller's trace when it sent a `traceparent`.
 * `route` is the pattern (`/tokens/:name`), never the URL; `path` is the URL without its query.
 */
export function startHttpServerSpan(
  method: string,
  route: string | undefined,
  path: string,
  headers: Record<string, unknown>,
): HttpServerSpan {
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  const span = tracer().startSpan(
    route ? `${method} ${route}` : method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': method, ...(route ? { 'http.route': route } : {}), 'url.path': path },
    },
    parent,
  );
  let ended = false;
  return {
    ctx: trace.setSpan(parent, span),
    recording: span.isRecording(),
    end(status) {
      if (ended) return;
      ended = true;
      span.setAttribute('http.response.status_code', status);
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}
