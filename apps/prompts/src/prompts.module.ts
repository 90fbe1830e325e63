import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PromptRpc, PROXY_STREAM_SPEC, RpcAccessGuard } from '@bastion/contracts';
import {
  connectNats,
  natsLogin,
  ensureStream,
  healthController,
  NATS_CONNECTION,
  opsServerProvider,
  READINESS_CHECKS,
} from '@bastion/messaging';
import { PlatformMetrics } from '@bastion/observability';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { PROMPTS_CONFIG, PROMPTS_LOGGER, type PromptsConfig } from './config';
import { PrismaService } from './prisma/prisma.service';
import { PromptController } from './prompts/prompt.controller';
import { PromptRepository } from './prompts/prompt.repository';
import { PromptService } from './prompts/prompt.service';
import { PromptRecordConsumer } from './store/prompt-record.consumer';
import { TemplateController } from './templates/template.controller';
import { TemplateRepository } from './templates/template.repository';
import { TemplateService } from './templates/template.service';

@Module({})
export class PromptsModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(config: PromptsConfig, logger: Logger, metrics = new PlatformMetrics('prompts')): DynamicModule {
    return {
      module: PromptsModule,
      controllers: [PromptController, TemplateController, healthController('prompts', PromptRpc.health)],
      providers: [
        // Every request this service answers is checked against RPC_POLICY, one guard for all.
        { provide: APP_GUARD, useClass: RpcAccessGuard },
        { provide: PROMPTS_CONFIG, useValue: config },
        { provide: PROMPTS_LOGGER, useValue: logger },
        { provide: PlatformMetrics, useValue: metrics },
        opsServerProvider('prompts', config.HEALTH_PORT, READINESS_CHECKS),
        {
          provide: READINESS_CHECKS,
          inject: [PrismaService, NATS_CONNECTION],
          useFactory: (prisma: PrismaService, nc: NatsConnection) => ({
            database: () => prisma.$queryRaw`SELECT 1`,
            nats: () => nc.flush(),
          }),
        },
        {
          provide: NATS_CONNECTION,
          useFactory: async () => {
            const nc = await connectNats(natsLogin(config, 'prompts'), { logger });
            // The proxy declares the same stream; whichever starts first creates it.
            await ensureStream(nc, PROXY_STREAM_SPEC);
            return nc;
          },
        },
        PrismaService,
        PromptRepository,
        PromptService,
        PromptRecordConsumer,
        TemplateRepository,
        TemplateService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nc.drain();
  }
}
