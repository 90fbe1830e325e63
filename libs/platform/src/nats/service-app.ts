import type { INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import type { Logger } from 'pino';
import { PinoNestLogger } from '../logging/logger';
import { RequestContextInterceptor } from './request-context.interceptor';
import { RpcDomainExceptionFilter } from './rpc-exception.filter';
import { payloadValidationPipe } from './validation';

export interface ServiceAppOptions {
  /** Queue group: replicas of one service share its subjects. */
  queue: string;
  natsUrl: string;
  logger: Logger;
}

/** Builds a NATS microservice with the platform's validation, error filter and request context. */
export async function createServiceApp(module: unknown, options: ServiceAppOptions): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module as never, {
    transport: Transport.NATS,
    options: { servers: options.natsUrl.split(','), queue: options.queue, name: options.queue },
    logger: new PinoNestLogger(options.logger),
  });
  app.useGlobalPipes(payloadValidationPipe());
  app.useGlobalFilters(new RpcDomainExceptionFilter(options.logger));
  app.useGlobalInterceptors(new RequestContextInterceptor(options.logger));
  app.enableShutdownHooks();
  return app;
}
