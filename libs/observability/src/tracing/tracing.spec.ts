import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { context, propagation, ProxyTracerProvider, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { initTracing, tracer } from './tracing';

/** What the global API does right now: a real tracer, context manager and propagator, or none. */
function registered() {
  const span = tracer().startSpan('probe');
  const recording = span.isRecording();
  const active = context.with(trace.setSpan(ROOT_CONTEXT, span), () => trace.getSpan(context.active()));
  span.end();
  return {
    provider: (trace.getTracerProvider() as ProxyTracerProvider).getDelegateTracer('bastion') !== undefined,
    recording,
    contextManager: active === span,
    propagator: propagation.fields().includes('traceparent'),
  };
}
const NOTHING = { provider: false, recording: false, contextManager: false, propagator: false };

describe('initTracing', () => {
  const KEYS = ['OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'] as const;
  const saved = KEYS.map((k) => process.env[k]);
  afterEach(() =>
    KEYS.forEach((k, i) => {
      if (saved[i] === undefined) delete process.env[k];
      else process.env[k] = saved[i];
    }),
  );

  it('registers nothing when OTEL_EXPORTER_OTLP_ENDPOINT is not set', async () => {
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    const listeners = process.listenerCount('SIGTERM');
    const stop = initTracing('tokens');
    expect(registered()).toEqual(NOTHING);
    expect(process.listenerCount('SIGTERM')).toBe(listeners);
    await stop();
  });

  it('exports to the endpoint when set, and flushes when stopped', async () => {
    const received: { url?: string; type?: string; body: string }[] = [];
    const collector = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          url: req.url,
          type: req.headers['content-type'],
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    try {
      delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
      const listeners = process.listenerCount('SIGTERM');
      const stop = initTracing('tokens');
      expect(registered()).toEqual({ provider: true, recording: true, contextManager: true, propagator: true });
      expect(process.listenerCount('SIGTERM')).toBe(listeners + 1);
      tracer().startSpan('tokens.token.get.v1 process').end();
      expect(received).toEqual([]); // batched, not sent yet

      await stop();
      expect(received).toHaveLength(1);
      expect(received[0].url).toBe('/v1/traces');
      expect(received[0].body).toContain('"tokens.token.get.v1 process"');
      expect(received[0].body).toContain('"stringValue":"tokens"'); // service.name
      expect(registered()).toEqual(NOTHING);
      expect(process.listenerCount('SIGTERM')).toBe(listeners);
    } finally {
      collector.closeAllConnections();
      await new Promise<void>((resolve) => collector.close(() => resolve()));
    }
  });
});
