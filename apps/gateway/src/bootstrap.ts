import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { isDevelopmentKey } from '@bastion/auth';
import {
  type HttpServerSpan,
  PinoNestLogger,
  PlatformMetrics,
  requestContext,
  startHttpServerSpan,
} from '@bastion/observability';
import { memoizeValidationMetadata } from '@bastion/platform';
import type { preParsingAsyncHookHandler } from 'fastify';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config';
import { ErrorCode } from '@bastion/contracts';
import { AccessGuard } from './access/access.guard';
import { ACCESS_POLICY, isDocsRoute, ruleKey } from './access/access-policy.table';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { errorStyleFor, renderError } from './errors/error-renderer';
import { GatewayModule } from './gateway.module';
import { isTenantGated, registerJsonBodyParser } from './http/json-body';
import { completeOpenApi } from './http/openapi';
import { requestIdFor } from './http/request-id';
import { httpValidationPipe } from './http/validation.pipe';
import { TenantGate } from './proxy/tenant-gate';
import { PhaseMetrics } from './timing/phase-metrics';
import { type PhaseTimings, serverTimingHeader } from './timing/server-timing';

/** How long a call refused before its body is read waits for its answer (ms; below any Retry-After); see refuseOverRate. */
export const EARLY_REFUSAL_HOLD_MS = 1000;

/** Builds the gateway (not yet listening): used by main and by the end-to-end tests. */
export async function createGateway(config: GatewayConfig, logger: Logger): Promise<NestFastifyApplication> {
  // By fingerprint: the development key re-wrapped, re-spaced or given as its private half is still it.
  if (
    config.NODE_ENV === 'production' &&
    !config.AUTH_JWKS_URL &&
    (!config.AUTH_PUBLIC_KEY || isDevelopmentKey(config.AUTH_PUBLIC_KEY))
  ) {
    throw new Error('AUTH_JWKS_URL or AUTH_PUBLIC_KEY must be set in production; the development key is public');
  }
  memoizeValidationMetadata();
  const adapter = new FastifyAdapter({
    genReqId: requestIdFor,
    bodyLimit: config.BODY_LIMIT_BYTES,
    logger: false,
    trustProxy: trustProxySetting(config.GATEWAY_TRUST_PROXY),
    // While stopping, requests on kept-alive connections are answered below in the API's own
    // error shape, not with Fastify's bare 503.
    return503OnClosing: false,
  });
  const metrics = new PlatformMetrics('gateway');
  const phases = new PhaseMetrics(metrics);
  const app = await NestFactory.create<NestFastifyApplication>(
    GatewayModule.forRoot(config, metrics, phases),
    adapter,
    {
      logger: new PinoNestLogger(logger),
      // Our own parser reads every body as JSON (see json-body.ts).
      bodyParser: false,
    },
  );
  const fastify = app.getHttpAdapter().getInstance();
  // Every route the gateway serves has its line in the access policy, or the gateway does not start.
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (method === 'OPTIONS' || isDocsRoute(route.url)) continue;
      if (!ACCESS_POLICY[ruleKey(method, route.url)])
        throw new Error(
          `route ${method} ${route.url} has no rule in the access policy (apps/gateway/src/access/access-policy.table.ts)`,
        );
    }
  });
  registerJsonBodyParser(fastify);
  let closing = false;
  fastify.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  fastify.addHook('onRequest', (req, reply, done) => {
    if (closing) {
      const rendered = renderError(errorStyleFor(req.url), {
        code: ErrorCode.UNAVAILABLE,
        message: 'the gateway is restarting; retry on a new connection',
        details: [],
        requestId: String(req.id),
        retryAfter: 1,
      });
      void reply
        .status(rendered.status)
        .headers({ ...rendered.headers, connection: 'close', 'x-request-id': String(req.id) })
        .send(rendered.body);
      return;
    }
    void reply.header('x-request-id', req.id);
    (req as { startedAt?: number }).startedAt = performance.now();
    // One SERVER span per request; the NATS client finds it in the request context.
    const span = startHttpServerSpan(req.method, req.routeOptions?.url, req.url.split('?')[0], req.headers);
    (req as { span?: HttpServerSpan }).span = span;
    // onResponse never runs when the connection drops first (a client leaving an SSE stream).
    if (span.recording) reply.raw.once('close', () => span.end(reply.raw.statusCode));
    requestContext.enterWith({ requestId: String(req.id), trace: span.ctx });
    done();
  });
  // A tenant over its model-call rate is refused once the headers are read: TenantGate would refuse
  // the call after its body, and buffering (and parsing) megabytes only to refuse them is work every
  // other tenant's requests wait behind on this event loop.
  // Only on the TENANT_GATED routes (added as each route is), and thrown, so that the error leaves
  // through AllExceptionsFilter in the route's shape, as TenantGate's own refusal would.
  // The refusal is held (EARLY_REFUSAL_HOLD_MS; its Retry-After is whole seconds, at least 1) with the body unread, and
  // closes the connection (its Retry-After counted after the hold; a tenant back under its rate by
  // then is served): a client that ignores Retry-After and sends its megabyte at once again
  // (measured: 120 refusals a second, the gateway's event-loop p99 delay 45-53 ms, another tenant's
  // p99 80-95 ms) is stopped by TCP's flow control once the socket's buffers are full, and sends at
  // most those buffers per connection and hold, not every byte of every body through this event loop.
  const gate = app.get(TenantGate);
  const access = app.get(AccessGuard);
  const refuseOverRate: preParsingAsyncHookHandler = async (req, reply, payload) => {
    const principal = await access.admitted(req);
    const refused = principal && gate.refusal(principal.tenant);
    if (!refused) return payload;
    // For the request log line, as a call refused later would have it.
    (req as { user?: unknown }).user = principal;
    void reply.header('connection', 'close');
    await new Promise((resolve) => setTimeout(resolve, EARLY_REFUSAL_HOLD_MS).unref());
    const still = gate.refusal(principal.tenant);
    if (still) throw still;
    reply.removeHeader('connection');
    return payload;
  };
  fastify.addHook('onRoute', (route) => {
    if (isTenantGated({ routeOptions: { config: route.config } }))
      route.preParsing = [route.preParsing ?? []].flat().concat(refuseOverRate);
  });
  // Server-Timing on every answer whose phases were measured (authentication, service calls).
  fastify.addHook('onSend', (req, reply, payload, done) => {
    const timings = (req as { timings?: PhaseTimings }).timings;
    const header = timings && serverTimingHeader(timings);
    if (header) void reply.header('server-timing', header);
    done(null, payload);
  });
  fastify.addHook('onResponse', (req, reply, done) => {
    (req as { span?: HttpServerSpan }).span?.end(reply.statusCode);
    const user = (req as { user?: { tenant?: string } }).user;
    const started = (req as { startedAt?: number }).startedAt ?? performance.now();
    const ms = performance.now() - started;
    // The route pattern, not the URL, so names and ids do not explode the label set.
    const route = req.routeOptions?.url ?? 'unmatched';
    const labels = { method: req.method, route, status: String(reply.statusCode) };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, ms / 1000);
    const timings = (req as { timings?: PhaseTimings }).timings;
    if (timings) phases.observe(route, timings);
    logger.info(
      {
        requestId: req.id,
        tenant: user?.tenant,
        method: req.method,
        route,
        status: reply.statusCode,
        durationMs: Math.round(ms * 100) / 100,
      },
      'request',
    );
    done();
  });
  app.useGlobalPipes(httpValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter(logger));

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setOpenAPIVersion('3.1.0')
      .setTitle('Bastion API')
      .setDescription('Site admission tokens (wire-compatible with ves.io.schema.token) and the AI guardrails backend.')
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  completeOpenApi(document);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return app;
}

/** `true`/`false`, or trusted proxy addresses and CIDRs, comma-separated. */
function trustProxySetting(value: string): boolean | string[] {
  if (value === 'true' || value === 'false') return value === 'true';
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}
