import { context, type Context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { requestContext } from '../logging/request-context';
import { flushLogsSync } from '../logging/logger';

/** Flushes pending spans and unregisters tracing; safe to call more than once. */
export type StopTracing = () => Promise<void>;

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];

/**
 * Turns tracing on for this process when `OTEL_EXPORTER_OTLP_ENDPOINT` (or its traces-only form
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set: spans go in batches to that OTLP/HTTP endpoint (the
 * exporter reads the standard `OTEL_EXPORTER_OTLP_*` variables; `OTEL_SERVICE_NAME` and
 * `OTEL_RESOURCE_ATTRIBUTES` apply too) and W3C `traceparent` carries the trace across processes.
 * When neither is set nothing is registered: the API's no-op tracer makes every span free. Call it
 * first thing in a main. Pending spans are flushed on SIGTERM/SIGINT once `stopOnSignals`
 * (libs/messaging) has closed the app and raised the signal again, or by calling the returned
 * function.
 */
export function initTracing(service: string): StopTracing {
  if (!process.env.OTEL_EXPORTER_OTLP_ENDPOINT && !process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
    return async () => {};
  const stop = registerTracing(service, new BatchSpanProcessor({ exporter: new OTLPTraceExporter() }));
  const unlisten = flushOnSignals(stop);
  return () => {
    unlisten();
    return stop();
  };
}

/** Registers a tracer provider with the given span processor, the context manager and the propagator. */
export function registerTracing(service: string, processor: SpanProcessor): StopTracing {
  const resource = defaultResource()
    .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: service }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new TracerProvider({ resource, spanProcessors: [processor] });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  let stopped: Promise<void> | undefined;
  return () =>
    (stopped ??= provider.shutdown().finally(() => {
      trace.disable();
      propagation.disable();
      context.disable();
    }));
}

/** The platform's tracer (a no-op one unless tracing was initialised). */
export function tracer(): Tracer {
  return trace.getTracer('bastion');
}

/**
 * The context new spans hang from: the active OpenTelemetry context when it carries a span (inside
 * a NATS handler), else the one the request context carries (the gateway's HTTP span, started in a
 * Fastify hook that cannot wrap the handler in `context.with`).
 */
export function currentContext(): Context {
  const active = context.active();
  if (trace.getSpan(active)) return active;
  return requestContext.getStore()?.trace ?? active;
}

/**
 * `stopOnSignals` (libs/messaging) closes the app on the signal, then raises it again once done.
 * This listener lets that happen first: while that listener is still there it only keeps the
 * process alive (an empty event loop would exit before the second signal arrives). Then it flushes
 * and raises the signal itself, so spans ended while draining are exported and the process still
 * ends the usual way.
 */
function flushOnSignals(stop: StopTracing): () => void {
  let keepAlive: NodeJS.Timeout | undefined;
  const unlisten = () => SIGNALS.forEach((s) => process.removeListener(s, onSignal));
  const onSignal = (signal: NodeJS.Signals) => {
    keepAlive ??= setInterval(() => {}, 60_000);
    if (process.listenerCount(signal) > 1) return;
    unlisten();
    void stop()
      .catch(() => undefined)
      .finally(() => {
        clearInterval(keepAlive);
        flushLogsSync();
        process.kill(process.pid, signal);
      });
  };
  SIGNALS.forEach((s) => process.on(s, onSignal));
  return unlisten;
}
