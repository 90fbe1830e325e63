import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeyEvents, ProjectEvents, PROJECTS_STREAM, ProjectRpc, RpcAccessGuard } from '@bastion/contracts';
import {
  connectNats,
  natsLogin,
  ensureStream,
  EventPublisher,
  healthController,
  NATS_CONNECTION,
  opsServerProvider,
  READINESS_CHECKS,
  type StreamSpec,
} from '@bastion/messaging';
import { PlatformMetrics } from '@bastion/observability';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { PROJECTS_CONFIG, type ProjectsConfig } from './config';
import { DatasetController } from './datasets/dataset.controller';
import { DatasetRepository } from './datasets/dataset.repository';
import { DatasetService } from './datasets/dataset.service';
import { ProjectsEventPublisher } from './events/projects-event.publisher';
import { ApiKeyController } from './projects/api-key.controller';
import { ApiKeyRepository } from './projects/api-key.repository';
import { ApiKeyService } from './projects/api-key.service';
import { PROJECTS_LOGGER } from './logger';
import { PrismaService } from './prisma/prisma.service';
import { ProjectController } from './projects/project.controller';
import { ProjectRepository } from './projects/project.repository';
import { ProjectService } from './projects/project.service';
import { ScannerController } from './scanners/scanner.controller';
import { ProjectReferencesRepository } from './scanners/project-references.repository';
import { ScannerRepository } from './scanners/scanner.repository';
import { ScannerService } from './scanners/scanner.service';

/** Project and scanner changes, and revoked API keys, for caches of them. Subjects listed one by one. */
export const PROJECTS_STREAM_SPEC: StreamSpec = {
  name: PROJECTS_STREAM,
  subjects: [ProjectEvents.projectChanged, ProjectEvents.scannerChanged, ApiKeyEvents.revoked],
};

@Module({})
export class ProjectsModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(config: ProjectsConfig, logger: Logger, metrics = new PlatformMetrics('projects')): DynamicModule {
    return {
      module: ProjectsModule,
      controllers: [
        ScannerController,
        DatasetController,
        ProjectController,
        ApiKeyController,
        healthController('projects', ProjectRpc.health),
      ],
      providers: [
        // Every request this service answers is checked against RPC_POLICY, one guard for all.
        { provide: APP_GUARD, useClass: RpcAccessGuard },
        { provide: PROJECTS_CONFIG, useValue: config },
        { provide: PROJECTS_LOGGER, useValue: logger },
        { provide: PlatformMetrics, useValue: metrics },
        opsServerProvider('projects', config.HEALTH_PORT, READINESS_CHECKS),
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
            const nc = await connectNats(natsLogin(config, 'projects'), { logger });
            await ensureStream(nc, PROJECTS_STREAM_SPEC);
            return nc;
          },
        },
        {
          provide: EventPublisher,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new EventPublisher(nc),
        },
        PrismaService,
        ScannerRepository,
        DatasetRepository,
        ProjectRepository,
        ApiKeyRepository,
        ApiKeyService,
        ProjectReferencesRepository,
        ProjectsEventPublisher,
        ScannerService,
        DatasetService,
        ProjectService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nc.drain();
  }
}
