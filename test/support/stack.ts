import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { TOKENS_QUEUE } from '@bastion/contracts';
import { type BusUser, connectNats, natsLogin, NatsRpcClient, startService } from '@bastion/messaging';
import { createLogger, PlatformMetrics } from '@bastion/observability';
import { loadConfig, type PlatformConfig } from '@bastion/platform';
import { testNatsLogin, waitFor } from '@bastion/testing';
import type { NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import type { Logger } from 'pino';
import { createGateway, GatewayConfig } from '../../apps/gateway/src';
import { TokensConfig, TokensModule } from '../../apps/tokens/src';

/** The test database and NATS that global-setup prepared. */
export function testEnv(): { DATABASE_URL: string; NATS_URL: string } {
  const DATABASE_URL = process.env.TEST_DATABASE_URL;
  const NATS_URL = process.env.TEST_NATS_URL;
  if (!DATABASE_URL || !NATS_URL)
    throw new Error('run through jest: global-setup sets TEST_DATABASE_URL and TEST_NATS_URL');
  return { DATABASE_URL, NATS_URL };
}

export function quietLogger(service: string): Logger {
  return createLogger(service, process.env.TEST_LOG_LEVEL ?? 'silent');
}

/** What starting a service takes: its config class, its module, its queue group. */
export interface ServiceSpec<C extends PlatformConfig> {
  service: BusUser;
  queue: string;
  config: new () => C;
  module: (config: C, logger: Logger, metrics: PlatformMetrics) => unknown;
  /** The subjects it answers of those its handlers declare (as its main.ts picks them). */
  answers?: (config: C) => (subject: string) => boolean;
}

/**
 * Starts one instance of a service, the real app module on the real NATS and Postgres, as its
 * main.ts does (its ops server on a free port).
 */
export async function startTestService<C extends PlatformConfig>(
  spec: ServiceSpec<C>,
  env: Record<string, string> = {},
  logger: Logger = quietLogger(spec.service),
): Promise<INestMicroservice> {
  const config = loadConfig(spec.config, { ...process.env, ...testEnv(), HEALTH_PORT: '0', ...env });
  const metrics = new PlatformMetrics(spec.service);
  return startService(spec.module(config, logger, metrics), {
    queue: spec.queue,
    nats: natsLogin(config, spec.service),
    logger,
    metrics,
    answers: spec.answers?.(config),
  });
}

/** A service under test with what a test talks to it and reads its tables with. */
export interface ServiceUnderTest {
  /** The running instance; a test that restarts the service puts the new one here. */
  service?: INestMicroservice;
  nc: NatsConnection;
  rpc: NatsRpcClient;
  db: Client;
}

/**
 * For the enclosing describe block: starts the service (`start`), connects to NATS as the test user
 * (`name`), an RPC client over it, and a Postgres client on the test database; after the block,
 * closes them and the instance then in `service`.
 */
export function serviceUnderTest(
  start: () => Promise<INestMicroservice>,
  options: { name: string; rpcTimeoutMs?: number },
): ServiceUnderTest {
  const under = {} as ServiceUnderTest;
  beforeAll(async () => {
    under.service = await start();
    under.nc = await connectNats(testNatsLogin(), { name: options.name });
    under.rpc = new NatsRpcClient(under.nc, options.rpcTimeoutMs ?? 5000);
    under.db = new Client({ connectionString: testEnv().DATABASE_URL });
    await under.db.connect();
  });
  afterAll(async () => {
    await under.db?.end();
    await under.nc?.close();
    await under.service?.close();
  });
  return under;
}

/** Starts one tokens-service instance. */
export function startTokensService(
  logger = quietLogger('tokens'),
  env: Record<string, string> = {},
): Promise<INestMicroservice> {
  return startTestService(
    {
      service: 'tokens',
      queue: TOKENS_QUEUE,
      config: TokensConfig,
      module: (c, l, m) => TokensModule.forRoot(c, l, m),
    },
    env,
    logger,
  );
}

/** Starts the gateway on a free port and returns its base URL. */
export async function startGateway(
  logger = quietLogger('gateway'),
  env: Record<string, string> = {},
): Promise<{ app: INestApplication; url: string }> {
  const config = loadConfig(GatewayConfig, {
    ...process.env,
    ...testEnv(),
    GATEWAY_PORT: '0',
    HEALTH_PORT: '0',
    ...env,
  });
  const app = await createGateway(config, logger);
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address() as { port: number };
  return { app, url: `http://127.0.0.1:${address.port}` };
}

/** A tiny JSON-over-HTTP client for the tests: status, headers and parsed body. */
export async function http(
  base: string,
  method: string,
  path: string,
  options: { auth?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.auth) headers.authorization = options.auth;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(`${base}${path}`, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * Repeats `call` until it answers `status` (a loaded machine, a restarting service or an event still
 * on its way can delay that) and returns that answer; fails after `timeoutMs`.
 */
export function untilStatus<R extends { status: number }>(
  status: number,
  call: () => Promise<R>,
  what: string,
  timeoutMs = 15_000,
): Promise<R> {
  return waitFor(
    async () => {
      const r = await call();
      return r.status === status ? r : undefined;
    },
    timeoutMs,
    what,
  );
}
