import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TokenEvents, TOKENS_ADMISSIONS_STREAM, TOKENS_STREAM, TokenRpc, RpcAccessGuard } from '@bastion/contracts';
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
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { AdmissionController } from './admission/admission.controller';
import { AdmissionService } from './admission/admission.service';
import { RegistrationRepository } from './tokens/registration.repository';
import { TokenViewSync } from './tokens/token-view.sync';
import { assertProductionReady, TOKENS_CONFIG, type TokensConfig } from './config';
import { KeysController } from './keys/keys.controller';
import { SigningKeyRepository } from './keys/signing-key.repository';
import { SigningKeyService } from './keys/signing-key.service';
import { TOKENS_LOGGER } from './logger';
import { PrismaService } from './prisma/prisma.service';
import { TokenEventPublisher } from './tokens/token-event.publisher';
import { TokenController } from './tokens/token.controller';
import { TokenRepository } from './tokens/token.repository';
import { TokenService } from './tokens/token.service';

/**
 * The stream of token changes: each is published with the stream's acknowledgement and kept for
 * 7 days; every tokens replica follows it to keep its admission view current (TokenViewSync).
 */
export const TOKENS_STREAM_SPEC = {
  name: TOKENS_STREAM,
  subjects: [TokenEvents.created, TokenEvents.replaced, TokenEvents.deleted, TokenEvents.stateChanged],
};

/** Admission events: a day, at most 1 GiB (the durable record of each attempt is in Postgres). */
export const ADMISSIONS_STREAM_SPEC = {
  name: TOKENS_ADMISSIONS_STREAM,
  subjects: [TokenEvents.siteAdmitted, TokenEvents.siteRefused],
  maxAgeMs: 24 * 3600 * 1000,
  maxBytes: 1024 ** 3,
};

@Module({})
export class TokensModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(config: TokensConfig, logger: Logger, metrics = new PlatformMetrics('tokens')): DynamicModule {
    assertProductionReady(config);
    return {
      module: TokensModule,
      controllers: [TokenController, AdmissionController, KeysController, healthController('tokens', TokenRpc.health)],
      providers: [
        // Every request this service answers is checked against RPC_POLICY, one guard for all.
        { provide: APP_GUARD, useClass: RpcAccessGuard },
        { provide: TOKENS_CONFIG, useValue: config },
        { provide: TOKENS_LOGGER, useValue: logger },
        { provide: PlatformMetrics, useValue: metrics },
        opsServerProvider('tokens', config.HEALTH_PORT, READINESS_CHECKS),
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
            const nc = await connectNats(natsLogin(config, 'tokens'), { logger });
            await ensureStream(nc, TOKENS_STREAM_SPEC);
            await ensureStream(nc, ADMISSIONS_STREAM_SPEC);
            return nc;
          },
        },
        {
          provide: EventPublisher,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new EventPublisher(nc),
        },
        PrismaService,
        TokenRepository,
        RegistrationRepository,
        SigningKeyRepository,
        SigningKeyService,
        TokenEventPublisher,
        TokenViewSync,
        TokenService,
        AdmissionService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.nc.drain();
  }
}
