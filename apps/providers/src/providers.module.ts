import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ProviderEvents, PROVIDERS_STREAM, ProviderRpc, RpcAccessGuard } from '@bastion/contracts';
import { createOutboundClient, type OutboundClient } from '@bastion/outbound';
import {
  connectNats,
  natsLogin,
  ensureStream,
  EventPublisher,
  healthController,
  NATS_CONNECTION,
  opsServerProvider,
  READINESS_CHECKS,
} from '@bastion/messaging';
import { PlatformMetrics } from '@bastion/observability';
import { outboundSigners, outboundTransport } from '@bastion/provider-runtime';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { assertProductionReady, PROVIDERS_CONFIG, PROVIDERS_LOGGER, type ProvidersConfig } from './config';
import { PrismaService } from './prisma/prisma.service';
import { ProviderController } from './providers/provider.controller';
import { ProviderTesterController } from './providers/provider-tester.controller';
import { ProviderRepository } from './providers/provider.repository';
import { ProviderService } from './providers/provider.service';
import { OUTBOUND_TRANSPORT, ProviderTesterService, REQUEST_SIGNERS } from './providers/provider-tester.service';

/**
 * Provider changes: the message proxy hears them to drop its cached provider. Each is published
 * with the stream's acknowledgement and kept in the stream for 7 days.
 */
export const PROVIDERS_STREAM_SPEC = { name: PROVIDERS_STREAM, subjects: [ProviderEvents.changed] };

const OUTBOUND_CLIENT = Symbol('OUTBOUND_CLIENT');

@Module({})
export class ProvidersModule implements OnApplicationShutdown {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(OUTBOUND_CLIENT) private readonly outbound: OutboundClient,
  ) {}

  static forRoot(config: ProvidersConfig, logger: Logger, metrics = new PlatformMetrics('providers')): DynamicModule {
    assertProductionReady(config);
    return {
      module: ProvidersModule,
      controllers: [ProviderController, ProviderTesterController, healthController('providers', ProviderRpc.health)],
      providers: [
        // Every request this service answers is checked against RPC_POLICY, one guard for all.
        { provide: APP_GUARD, useClass: RpcAccessGuard },
        { provide: PROVIDERS_CONFIG, useValue: config },
        { provide: PROVIDERS_LOGGER, useValue: logger },
        { provide: PlatformMetrics, useValue: metrics },
        opsServerProvider('providers', config.HEALTH_PORT, READINESS_CHECKS),
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
            const nc = await connectNats(natsLogin(config, 'providers'), { logger });
            await ensureStream(nc, PROVIDERS_STREAM_SPEC);
            return nc;
          },
        },
        {
          provide: EventPublisher,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new EventPublisher(nc),
        },
        {
          provide: OUTBOUND_CLIENT,
          useFactory: () =>
            createOutboundClient({
              allowlist: config.OUTBOUND_ALLOWLIST,
              timeoutMs: config.PROVIDER_TEST_TIMEOUT_MS,
              log: logger,
            }),
        },
        { provide: OUTBOUND_TRANSPORT, inject: [OUTBOUND_CLIENT], useFactory: outboundTransport },
        { provide: REQUEST_SIGNERS, useValue: outboundSigners },
        PrismaService,
        ProviderRepository,
        ProviderService,
        ProviderTesterService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.outbound.close();
    await this.nc.drain();
  }
}
