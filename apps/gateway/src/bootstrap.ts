import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { devPublicKey } from '@bastion/auth';
import { type HttpServerSpan, memoizeValidationMetadata, PinoNestLogger, PlatformMetrics, requestContext, startHttpServerSpan } from '@bastion/platform';
import type { Logger } from 'pino';
import type { GatewayConfig } from './config';
import { AllExceptionsFilter } from './errors/all-exceptions.filter';
import { GatewayModule } from './gateway.module';
import { registerJsonBodyParser } from './http/json-body';
import { requestIdFor } from './http/request-id';
import { httpValidationPipe } from './http/validation.pipe';
import { PhaseMetrics } from './timing/phase-metrics';
import { type PhaseTimings, serverTimingHeader } from './timing/server-timing';

/** Builds the gateway (not yet listening): used by main and by the end-to-end tests. */
export async function createGateway(config: GatewayConfig, logger: Logger): Promise<NestFastifyApplication> {
  if (config.NODE_ENV === 'production' && !config.AUTH_JWKS_URL && (!config.AUTH_PUBLIC_KEY || config.AUTH_PUBLIC_KEY === devPublicKey())) {
    throw new Error('AUTH_JWKS_URL or AUTH_PUBLIC_KEY must be set in production; the development key is public');
  }
  memoizeValidationMetadata();
  const adapter = new FastifyAdapter({
    genReqId: requestIdFor,
    bodyLimit: config.BODY_LIMIT_BYTES,
    logger: false,
    trustProxy: trustProxySetting(config.GATEWAY_TRUST_PROXY),
  });
  const metrics = new PlatformMetrics('gateway');
  const phases = new PhaseMetrics(metrics);
  const app = await NestFactory.create<NestFastifyApplication>(GatewayModule.forRoot(config, metrics, phases), adapter, {
    logger: new PinoNestLogger(logger),
    // Our own parser reads every body as JSON (see json-body.ts).
    bodyParser: false,
  });
  const fastify = app.getHttpAdapter().getInstance();
  registerJsonBodyParser(fastify);
  fastify.addHook('onRequest', (req, reply, done) => {
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
      { requestId: req.id, tenant: user?.tenant, method: req.method, route, status: reply.statusCode, durationMs: Math.round(ms * 100) / 100 },
      'request',
    );
    done();
  });
  app.useGlobalPipes(httpValidationPipe());
  app.useGlobalFilters(new AllExceptionsFilter(logger));
  app.enableShutdownHooks();

  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Bastion API')
      .setDescription('Site admission tokens (wire-compatible with ves.io.schema.token) and the AI guardrails backend.')
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'openapi.json', raw: ['json'] });
  return app;
}

/** `true`/`false`, or trusted proxy addresses and CIDRs, comma-separated. */
function trustProxySetting(value: string): boolean | string[] {
  if (value === 'true' || value === 'false') return value === 'true';
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}
