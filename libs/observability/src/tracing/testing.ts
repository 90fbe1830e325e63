import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { registerTracing } from './tracing';

export type { ReadableSpan };
export { SpanKind, SpanStatusCode } from '@opentelemetry/api';

export interface RecordedSpans {
  /** The spans ended so far, in the order they ended. */
  spans(): ReadableSpan[];
  reset(): void;
  /** Unregisters tracing; call it in afterAll. */
  stop(): Promise<void>;
}

/** For tests: registers tracing like initTracing does, but keeps every ended span in memory. */
export function recordSpans(service = 'test'): RecordedSpans {
  const exporter = new InMemorySpanExporter();
  const stop = registerTracing(service, new SimpleSpanProcessor({ exporter }));
  return { spans: () => exporter.getFinishedSpans(), reset: () => exporter.reset(), stop };
}
