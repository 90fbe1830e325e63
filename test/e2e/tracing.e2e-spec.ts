import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { TokenSubjects } from '@bastion/contracts';
import { type ReadableSpan, recordSpans, type RecordedSpans, SpanKind, SpanStatusCode } from '@bastion/observability';
import { bearer, uniqueTenant, waitFor } from '@bastion/testing';
import { http, startGateway, startTokensService } from '../support/stack';

const TOKENS = '/api/register/namespaces/system/tokens';
const ROUTE = '/api/register/namespaces/:namespace/tokens';

/**
 * One request through the real gateway and tokens service (in this process, over the real NATS),
 * with spans kept in memory: gateway SERVER -> NATS CLIENT -> tokens SERVER, one trace.
 */
// Starting services and the gateway takes more than jest's default 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('tracing across gateway -> NATS -> service', () => {
  let spans: RecordedSpans;
  let tokens: INestMicroservice;
  let gateway: INestApplication;
  let base: string;

  beforeAll(async () => {
    spans = recordSpans('bastion-e2e');
    tokens = await startTokensService();
    ({ app: gateway, url: base } = await startGateway());
  });
  beforeEach(() => spans.reset());
  afterAll(async () => {
    await gateway?.close();
    await tokens?.close();
    await spans.stop();
  });

  /** The three spans of one request, once the gateway's (the last to end) is there. */
  const requestSpans = (method: string, route: string, subject: string) =>
    waitFor(
      () => {
        const all = spans.spans();
        const server = all.find((s) => s.name === `${method} ${route}`);
        if (!server) return undefined;
        const trace = all.filter((s) => s.spanContext().traceId === server.spanContext().traceId);
        return {
          trace,
          server,
          client: one(trace, `${subject} send`),
          service: one(trace, `${subject} process`),
        };
      },
      5000,
      `the spans of ${method} ${route}`,
    );

  it('creates one trace with correct parent links', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    const res = await http(base, 'POST', TOKENS, {
      auth,
      body: { metadata: { name: 'traced', namespace: 'system' }, spec: {} },
    });
    expect(res.status).toBe(200);

    const { trace, server, client, service } = await requestSpans('POST', ROUTE, TokenSubjects.create);
    expect(trace).toHaveLength(3);

    expect(server.kind).toBe(SpanKind.SERVER);
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.attributes).toEqual({
      'http.request.method': 'POST',
      'http.route': ROUTE,
      'url.path': TOKENS,
      'http.response.status_code': 200,
    });
    expect(server.status.code).toBe(SpanStatusCode.UNSET);

    expect(client.kind).toBe(SpanKind.CLIENT);
    expect(client.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(client.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': TokenSubjects.create,
    });

    expect(service.kind).toBe(SpanKind.SERVER);
    expect(service.parentSpanContext?.spanId).toBe(client.spanContext().spanId);
    expect(service.parentSpanContext?.isRemote).toBe(true); // it came through the NATS headers
    expect(service.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': TokenSubjects.create,
    });
  });

  it('continues the caller trace from its traceparent, and names the domain error of a failure', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const callerSpan = '00f067aa0ba902b7';
    const res = await http(base, 'GET', `${TOKENS}/absent`, {
      auth: bearer(uniqueTenant(), 'admin'),
      headers: { traceparent: `00-${traceId}-${callerSpan}-01` },
    });
    expect(res.status).toBe(404);

    const { server, client, service } = await requestSpans('GET', `${ROUTE}/:name`, TokenSubjects.get);
    expect(server.spanContext().traceId).toBe(traceId);
    expect(server.parentSpanContext?.spanId).toBe(callerSpan);
    expect(server.attributes['http.response.status_code']).toBe(404);
    expect(server.status.code).toBe(SpanStatusCode.UNSET); // a 4xx is the client's, not ours
    expect(client.attributes['error.type']).toBe('NOT_FOUND');
    expect(service.attributes['error.type']).toBe('NOT_FOUND');
    expect(service.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('marks a service that cannot be reached as an error on both gateway spans', async () => {
    await tokens.close();
    try {
      const res = await http(base, 'GET', TOKENS, { auth: bearer(uniqueTenant(), 'admin') });
      expect(res.status).toBe(503);
      const { trace, server, client } = await waitFor(() => {
        const server = spans.spans().find((s) => s.name === `GET ${ROUTE}`);
        return server && { server, trace: spans.spans(), client: one(spans.spans(), `${TokenSubjects.list} send`) };
      });
      expect(trace.map((s) => s.name)).not.toContain(`${TokenSubjects.list} process`);
      expect(server.status.code).toBe(SpanStatusCode.ERROR);
      expect(client.status.code).toBe(SpanStatusCode.ERROR);
      expect(client.attributes['error.type']).toBe('UNAVAILABLE');
    } finally {
      tokens = await startTokensService();
    }
  });
});

function one(spans: ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((s) => s.name === name);
  if (found.length !== 1)
    throw new Error(`expected one span named ${name}, found ${found.length}: ${spans.map((s) => s.name).join(', ')}`);
  return found[0];
}
