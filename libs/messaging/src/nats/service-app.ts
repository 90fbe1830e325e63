import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { memoizeValidationMetadata } from '@bastion/platform';
import { flushLogsSync, PinoNestLogger, type PlatformMetrics } from '@bastion/observability';
import { processState } from './connection-state';
import { loginOptions, type NatsLogin } from './nats-connection';
import { RequestContextInterceptor } from './request-context.interceptor';
import { ResilientServerNats } from './resilient-server';
import { coalesceWrites } from './rpc-client';
import { RpcDomainExceptionFilter } from './rpc-exception.filter';
import { payloadValidationPipe } from './validation';

export interface ServiceAppOptions {
  /** Queue group: replicas of one service share its subjects. */
  queue: string;
  /** The service's NATS login (`natsLogin(config, user)`). */
  nats: NatsLogin;
  logger: Logger;
  metrics?: PlatformMetrics;
  /** How long a stop waits for the requests in flight (ms); default 20 s. */
  shutdownGraceMs?: number;
  /** Which of its handlers' subjects this process answers (default: all), e.g. only one lane's. */
  answers?: (subject: string) => boolean;
}

/** Builds a NATS microservice with the platform's validation, error filter and request context. */
export async function createServiceApp(module: unknown, options: ServiceAppOptions): Promise<INestMicroservice> {
  memoizeValidationMetadata();
  const strategy = new ResilientServerNats(
    { ...loginOptions(options.nats), queue: options.queue, name: options.queue },
    options.logger,
    options.shutdownGraceMs ?? 20_000,
    options.answers,
  );
  const app = await NestFactory.createMicroservice(module as never, {
    strategy,
    logger: new PinoNestLogger(options.logger),
  });
  app.useGlobalPipes(payloadValidationPipe());
  app.useGlobalFilters(new RpcDomainExceptionFilter(options.logger));
  app.useGlobalInterceptors(new RequestContextInterceptor(options.logger, options.metrics));
  transports.set(app, strategy);
  return app;
}

const transports = new WeakMap<INestMicroservice, ResilientServerNats>();

/**
 * Stops a service gracefully: its transport first (no new work, the requests in flight finish,
 * their records are published), then the modules (consumers, database, NATS drain). Nest's own
 * order would run the modules' destroy hooks before the transport stops.
 */
export async function closeService(app: INestMicroservice): Promise<void> {
  await transports.get(app)?.close();
  await app.close();
}

/** Injection token of a service's readiness checks: what /readyz and the NATS health subject run. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/** Creates and starts a NATS service: the one way mains and end-to-end tests start one. */
export async function startService(module: unknown, options: ServiceAppOptions): Promise<INestMicroservice> {
  const app = await createServiceApp(module, options);
  await app.listen();
  let nc: NatsConnection | undefined;
  try {
    nc = app.unwrap<NatsConnection>();
  } catch {
    // A transport that does not expose its connection keeps nats.js's own write schedule.
  }
  if (nc) {
    // The server has the subscriptions once this returns: a started service answers.
    await nc.flush();
    // Replies and events of one event-loop turn leave in one socket write (see rpc-client.ts).
    coalesceWrites(nc);
  }
  return app;
}

/**
 * A graceful stop on SIGTERM/SIGINT: readiness turns 503 at once, then the application closes
 * (the transport stops taking work and waits for what is in flight, modules flush and drain their
 * connections) and the process exits. A second signal, or a close that outlives the grace period
 * by 5 s, exits at once.
 */
export function stopOnSignals(close: () => Promise<void>, logger: Logger, graceMs: number): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second stop signal; exiting now');
      process.exit(1);
    }
    stopping = true;
    processState.draining = true;
    logger.info({ signal, graceMs }, 'stopping: readiness is 503, draining');
    const force = setTimeout(() => {
      logger.error('stop took longer than the grace period; exiting');
      process.exit(1);
    }, graceMs + 5000);
    force.unref();
    close().then(
      () => {
        logger.info('stopped');
        // Raised again without this listener, so others (tracing's flush) run and the process
        // ends the usual way for the signal.
        process.removeListener('SIGTERM', onTerm);
        process.removeListener('SIGINT', onInt);
        // A process ended by a signal runs no exit hooks: the last log lines are written here.
        flushLogsSync();
        process.kill(process.pid, signal);
      },
      (err: unknown) => {
        logger.error({ err }, 'error while stopping');
        process.exit(1);
      },
    );
  };
  const onTerm = () => stop('SIGTERM');
  const onInt = () => stop('SIGINT');
  process.on('SIGTERM', onTerm);
  process.on('SIGINT', onInt);
}
