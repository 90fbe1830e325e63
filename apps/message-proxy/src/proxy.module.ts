import { type DynamicModule, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { PROXY_STREAM_SPEC, ProxyRpc, RpcAccessGuard } from '@bastion/contracts';
import { createOutboundClient, type OutboundClient, parseAllowlist } from '@bastion/outbound';
import {
  connectNats,
  natsLogin,
  ensureStream,
  EventPublisher,
  healthController,
  NATS_CONNECTION,
  NatsRpcClient,
  opsServerProvider,
  READINESS_CHECKS,
} from '@bastion/messaging';
import { PlatformMetrics } from '@bastion/observability';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { DirectoryService } from './cache/directory.service';
import { SCAN_POOL, type ScanPlace, ScanPool } from './guard/scan-pool';
import { OUTBOUND_CLIENT, PROXY_CONFIG, PROXY_LOGGER, type ProxyConfig } from './config';
import { ExchangeContext } from './messages/exchange-context';
import { GuardedExchange } from './messages/guarded-exchange';
import { MessagesService } from './messages/messages.service';
import { PromptApiService } from './messages/prompt-api.service';
import { OpenAiChatService } from './openai/openai-chat.service';
import { ProxyController } from './proxy.controller';
import { SharedProviderLimiter } from './limits/shared-provider-limiter';
import { StreamLiveness } from './liveness/stream-liveness';
import { PromptRecorder } from './records/prompt-recorder';
import { UpstreamService } from './upstream/upstream.service';

@Module({})
export class ProxyModule implements OnApplicationShutdown {
  constructor(
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(OUTBOUND_CLIENT) private readonly outbound: OutboundClient,
    @Inject(SCAN_POOL) private readonly pool: ScanPool | null,
  ) {}

  static forRoot(config: ProxyConfig, logger: Logger, metrics = new PlatformMetrics('message-proxy')): DynamicModule {
    parseAllowlist(config.OUTBOUND_ALLOWLIST);
    return {
      module: ProxyModule,
      controllers: [ProxyController, healthController('message-proxy', ProxyRpc.health)],
      providers: [
        // Every request this service answers is checked against RPC_POLICY, one guard for all.
        { provide: APP_GUARD, useClass: RpcAccessGuard },
        { provide: PROXY_CONFIG, useValue: config },
        { provide: PROXY_LOGGER, useValue: logger },
        { provide: PlatformMetrics, useValue: metrics },
        opsServerProvider('message-proxy', config.HEALTH_PORT, READINESS_CHECKS),
        {
          provide: READINESS_CHECKS,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => ({ nats: () => nc.flush() }),
        },
        {
          provide: NATS_CONNECTION,
          useFactory: async () => {
            const nc = await connectNats(natsLogin(config, 'message-proxy'), { logger });
            await ensureStream(nc, PROXY_STREAM_SPEC);
            return nc;
          },
        },
        {
          provide: EventPublisher,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new EventPublisher(nc),
        },
        {
          provide: NatsRpcClient,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new NatsRpcClient(nc, config.RPC_TIMEOUT_MS),
        },
        {
          provide: OUTBOUND_CLIENT,
          useFactory: () =>
            createOutboundClient({
              allowlist: config.OUTBOUND_ALLOWLIST,
              timeoutMs: config.UPSTREAM_TIMEOUT_MS,
              log: logger,
            }),
        },
        {
          provide: SCAN_POOL,
          useFactory: () =>
            config.SCAN_WORKERS > 0 && ScanPool.available()
              ? new ScanPool({
                  onScan: scanPlacements(metrics),
                  workers: config.SCAN_WORKERS,
                  perTenant: config.SCAN_WORKERS_PER_TENANT,
                  maxWaiting: config.SCAN_QUEUE_PER_TENANT,
                  nice: config.SCAN_WORKER_NICE,
                  inlineMaxChars: config.SCAN_INLINE_MAX_CHARS,
                  cpuMsPerSecond: config.SCAN_CPU_MS_PER_SECOND_PER_TENANT,
                  costlyCpuMsPerSecond: config.SCAN_CPU_MS_PER_SECOND_PER_COSTLY_TENANT,
                  cpuBurstMs: config.SCAN_CPU_BURST_MS,
                })
              : null,
        },
        DirectoryService,
        ExchangeContext,
        {
          provide: SharedProviderLimiter,
          inject: [NATS_CONNECTION],
          useFactory: (nc: NatsConnection) => new SharedProviderLimiter(nc),
        },
        UpstreamService,
        PromptRecorder,
        GuardedExchange,
        StreamLiveness,
        MessagesService,
        PromptApiService,
        OpenAiChatService,
      ],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    this.outbound.close();
    await this.pool?.close();
    await this.nc.drain();
  }
}

/**
 * `bastion_scan_jobs_total{where}`: where the scan pool ran each scan job (`inline` on the event loop,
 * `worker`, or `overran`: inline, then again on a worker). Short texts with quick scanners should
 * run inline; a guarded path whose jobs all go to the workers costs a hand-off each way per job.
 */
function scanPlacements(metrics: PlatformMetrics): (where: ScanPlace) => void {
  const jobs = metrics.counter('bastion_scan_jobs_total', 'Scan jobs by where the scan pool ran them', ['where']);
  return (where) => jobs.inc({ where });
}
