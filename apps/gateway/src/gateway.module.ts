import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AuthConfig, JwtVerifier } from '@bastion/auth';
import {
  connectNats,
  natsLogin,
  NATS_CONNECTION,
  NatsRpcClient,
  opsServerProvider,
  READINESS_CHECKS,
} from '@bastion/messaging';
import { PlatformMetrics } from '@bastion/observability';
import type { NatsConnection } from '@nats-io/transport-node';
import { GATEWAY_CONFIG, type GatewayConfig } from './config';
import { AccessGuard } from './access/access.guard';
import { ApiKeyCache } from './access/api-key-cache';
import { PhaseMetrics } from './timing/phase-metrics';
import { AdmissionController } from './admission/admission.controller';
import { HealthController } from './health/health.controller';
import { ApiTokensController } from './keys/api-tokens.controller';
import { UsersController } from './keys/users.controller';
import { GlobalProjectController, ProjectsController } from './projects/projects.controller';
import { ScannersController } from './projects/scanners.controller';
import { PromptsController } from './prompts/prompts.controller';
import { ScansController } from './prompts/scans.controller';
import { ProvidersController } from './providers/providers.controller';
import { PromptSendController } from './proxy/prompt-send.controller';
import { OpenAiController } from './proxy/openai.controller';
import { VendorController } from './proxy/vendor.controller';
import { TokensController } from './tokens/tokens.controller';
import { ProxyLane } from './proxy/proxy-lane';
import { tenantGateProvider } from './proxy/tenant-gate';

@Module({})
export class GatewayModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(config: GatewayConfig, metrics: PlatformMetrics, phases = new PhaseMetrics(metrics)): DynamicModule {
    return {
      module: GatewayModule,
      controllers: [
        HealthController,
        TokensController,
        AdmissionController,
        ProvidersController,
        PromptsController,
        PromptSendController,
        VendorController,
        OpenAiController,
        ScannersController,
        ProjectsController,
        GlobalProjectController,
        ScansController,
        ApiTokensController,
        UsersController,
      ],
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        tenantGateProvider,
        ProxyLane,
        { provide: PlatformMetrics, useValue: metrics },
        { provide: AuthConfig, useValue: config },
        { provide: NATS_CONNECTION, useFactory: () => connectNats(natsLogin(config, 'gateway')) },
        {
          provide: NatsRpcClient,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new NatsRpcClient(nc, config.RPC_TIMEOUT_MS),
        },
        // /livez, /readyz (the gateway's own NATS connection) and /metrics on the ops port, never the public one.
        opsServerProvider('gateway', config.HEALTH_PORT, READINESS_CHECKS),
        {
          provide: READINESS_CHECKS,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => ({ nats: () => nc.flush() }),
        },
        { provide: JwtVerifier, useFactory: () => new JwtVerifier(config) },
        ApiKeyCache,
        AccessGuard,
        { provide: APP_GUARD, useExisting: AccessGuard },
        { provide: PhaseMetrics, useValue: phases },
      ],
    };
  }

  /** Runs after the HTTP server has stopped taking requests: let in-flight replies arrive, then close. */
  async onApplicationShutdown(): Promise<void> {
    await this.nc.drain();
  }
}
