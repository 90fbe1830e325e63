import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PassportModule } from '@nestjs/passport';
import { AuthConfig, JwtAuthGuard, JwtStrategy } from '@bastion/auth';
import { connectNats, NATS_CONNECTION, NatsRpcClient, PlatformMetrics } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import { GATEWAY_CONFIG, type GatewayConfig } from './config';
import { CachedAuthGuard } from './http/cached-auth.guard';
import { PhaseMetrics } from './timing/phase-metrics';
import { AdmissionController } from './admission/admission.controller';
import { HealthController } from './health/health.controller';
import { ProjectsController } from './projects/projects.controller';
import { ScannersController } from './projects/scanners.controller';
import { PromptsController } from './prompts/prompts.controller';
import { ProvidersController } from './providers/providers.controller';
import { PromptSendController } from './proxy/prompt-send.controller';
import { VendorController } from './proxy/vendor.controller';
import { TokensController } from './tokens/tokens.controller';

@Module({})
export class GatewayModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(config: GatewayConfig, metrics: PlatformMetrics, phases = new PhaseMetrics(metrics)): DynamicModule {
    return {
      module: GatewayModule,
      imports: [PassportModule],
      controllers: [HealthController, TokensController, AdmissionController, ProvidersController, PromptsController, PromptSendController, VendorController, ScannersController, ProjectsController],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: PlatformMetrics, useValue: metrics },
        { provide: AuthConfig, useValue: config },
        { provide: NATS_CONNECTION, useFactory: () => connectNats(config.NATS_URL, 'gateway') },
        {
          provide: NatsRpcClient,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new NatsRpcClient(nc, config.RPC_TIMEOUT_MS),
        },
        JwtStrategy,
        JwtAuthGuard,
        { provide: APP_GUARD, useClass: CachedAuthGuard },
        { provide: PhaseMetrics, useValue: phases },
      ],
    };
  }

  /** Runs after the HTTP server has stopped taking requests: let in-flight replies arrive, then close. */
  async onApplicationShutdown(): Promise<void> {
    await this.nc.drain();
  }
}
