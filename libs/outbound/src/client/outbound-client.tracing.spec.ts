import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ReadableSpan, recordSpans, type RecordedSpans, tracer } from '@bastion/observability';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { createOutboundClient, type OutboundClient } from './outbound-client';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('OutboundClient tracing, against a local server', () => {
  let server: Server;
  let base: string;
  let seen: IncomingHttpHeaders[];
  let spans: RecordedSpans;
  let client: OutboundClient;

  beforeAll(async () => {
    spans = recordSpans('message-proxy');
    server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(req.url?.startsWith('/missing') ? 404 : 200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    client = createOutboundClient({ allowlist: '127.0.0.1' });
  });
  beforeEach(() => {
    seen = [];
    spans.reset();
  });
  afterAll(async () => {
    client.close();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await spans.stop();
  });

  it('sends traceparent upstream, for a CLIENT span that names the host and never the path or query', async () => {
    const parent = tracer().startSpan('tokens.token.get.v1 process');
    const res = await context.with(trace.setSpan(context.active(), parent), () =>
      client.request({
        method: 'post',
        url: `${base}/v1/messages/secret-path?key=sk-secret`,
        headers: { 'x-api-key': 'sk-secret' },
        body: '{}',
      }),
    );
    parent.end();
    expect(res.status).toBe(200);

    const [span] = spans.spans().filter((s) => s.kind === SpanKind.CLIENT);
    expect(span.name).toBe('HTTP POST');
    expect(span.attributes).toEqual({
      'http.request.method': 'POST',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(base).port),
      'http.response.status_code': 200,
    });
    expect(exported(span)).not.toMatch(/secret/);
    expect(span.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);

    // Upstream sees the CLIENT span as its parent; nothing else of ours was added.
    const [, traceId, parentId] = TRACEPARENT.exec(String(seen[0].traceparent)) ?? [];
    expect(traceId).toBe(span.spanContext().traceId);
    expect(parentId).toBe(span.spanContext().spanId);
    expect(Object.keys(seen[0]).filter((h) => /trace|baggage|request-id/.test(h))).toEqual(['traceparent']);
  });

  it('marks an error status from upstream, and ends a streamed exchange with its body', async () => {
    const res = await client.stream({ method: 'GET', url: `${base}/missing` });
    expect(spans.spans()).toEqual([]); // still reading
    for await (const _ of res.body) void _;
    const [span] = spans.spans();
    expect(span.attributes['http.response.status_code']).toBe(404);
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.parentSpanContext).toBeUndefined(); // no request around it: a trace of its own
  });

  it('records a failure to get a response by its kind', async () => {
    const closed = createOutboundClient({ allowlist: '127.0.0.1' });
    const port = await freePort();
    await expect(
      closed.request({ method: 'GET', url: `http://127.0.0.1:${port}/x?token=secret` }),
    ).rejects.toMatchObject({ kind: 'unreachable' });
    closed.close();
    const [span] = spans.spans();
    expect(span.attributes['error.type']).toBe('unreachable');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(exported(span)).not.toMatch(/secret/);
  });
});

/** What an exporter sends of a span, as text. */
function exported(span: ReadableSpan): string {
  const { name, attributes, events, links, status } = span;
  return JSON.stringify({ name, attributes, events, links, status });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}
