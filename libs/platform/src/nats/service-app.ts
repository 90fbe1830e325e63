import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { memoizeValidationMetadata } from '../config/validation-metadata-cache';
import { PinoNestLogger } from '../logging/logger';
import type { PlatformMetrics } from '../ops/metrics';
import { RequestContextInterceptor } from './request-context.interceptor';
import { coalesceWrites } from './rpc-client';
import { RpcDomainExceptionFilter } from './rpc-exception.filter';
import { payloadValidationPipe } from './validation';

export interface ServiceAppOptions {
  /** Queue group: replicas of one service share its subjects. */
  queue: string;
  natsUrl: string;
  logger: Logger;
  metrics?: PlatformMetrics;
}

/** Builds a NATS microservice with the platform's validation, error filter and request context. */
export async function createServiceApp(module: unknown, options: ServiceAppOptions): Promise<INestMicroservice> {
  memoizeValidationMetadata();
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module as never, {
    transport: Transport.NATS,
    options: { servers: options.natsUrl.split(','), queue: options.queue, name: options.queue },
    logger: new PinoNestLogger(options.logger),
  });
  app.useGlobalPipes(payloadValidationPipe());
  app.useGlobalFilters(new RpcDomainExceptionFilter(options.logger));
  app.useGlobalInterceptors(new RequestContextInterceptor(options.logger, options.metrics));
  app.enableShutdownHooks();
  return app;
}

/** Injection token of a service's readiness checks: what /readyz and the NATS health subject run. */
export const READINESS_CHECKS = Symbol('READINESS_CHECKS');
export type ReadinessChecks = Record<string, () => Promise<unknown>>;

/** Creates and starts a NATS service: the one way mains and end-to-end tests start one. */
export async function startService(module: unknown, options: ServiceAppOptions): Promise<INestMicroservice> {
  const app = await createServiceApp(module, options);
  await app.listen();
  // Replies and events of one event-loop turn leave in one socket write (see rpc-client.ts).
  coalesceWrites(app.unwrap<NatsConnection>());
  return app;
}
