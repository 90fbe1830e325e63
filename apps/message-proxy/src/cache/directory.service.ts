import { Inject, Injectable, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import {
  DEFAULT_PROJECT_NAME,
  type EventContract,
  ProjectEventContracts,
  ProjectRpc,
  type ProjectRuntime,
  ProviderEventContracts,
  ProviderRpc,
  type ProviderRuntime,
} from '@bastion/contracts';
import { NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import { requestContext } from '@bastion/observability';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { PROXY_CONFIG, PROXY_LOGGER, type ProxyConfig } from '../config';
import { RuntimeCache } from './runtime-cache';

/**
 * Providers and projects as the proxy needs them, held in memory so a request does no database
 * work. Entries load over NATS on first use and are dropped when the owning service publishes a
 * change (every replica hears every change: a plain subscription on the JetStream subjects), when
 * the NATS connection was lost for a while (changes may have been missed), or after CACHE_TTL_MS.
 */
@Injectable()
export class DirectoryService implements OnModuleInit, OnModuleDestroy {
  readonly providers: RuntimeCache<ProviderRuntime>;
  readonly projects: RuntimeCache<ProjectRuntime>;
  private subscriptions: Subscription[] = [];

  constructor(
    private readonly rpc: NatsRpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(PROXY_CONFIG) config: ProxyConfig,
    @Inject(PROXY_LOGGER) private readonly logger: Logger,
  ) {
    const rid = () => requestContext.getStore()?.requestId ?? 'proxy-cache';
    this.providers = new RuntimeCache(
      (tenant, ref) => this.rpc.call(ProviderRpc.runtime, { tenant, ref }, rid()),
      config.CACHE_TTL_MS,
    );
    this.projects = new RuntimeCache(
      (tenant, ref) => this.rpc.call(ProjectRpc.runtime, { tenant, project: ref }, rid()),
      config.CACHE_TTL_MS,
    );
  }

  provider(tenant: string, ref: string): Promise<ProviderRuntime> {
    return this.providers.get(tenant, ref);
  }

  project(tenant: string, ref: string | undefined): Promise<ProjectRuntime> {
    return this.projects.get(tenant, ref ?? DEFAULT_PROJECT_NAME);
  }

  onModuleInit(): void {
    this.subscriptions = [
      this.listen(ProviderEventContracts.changed, (e) =>
        this.providers.invalidate(e.tenant ?? '', (p) => p.id === e.id || p.name === e.name),
      ),
      this.listen(ProjectEventContracts.projectChanged, (e) =>
        this.projects.invalidate(e.tenant ?? '', (p) => p.project.id === e.id),
      ),
      // A scanner change reaches every project that runs it: drop the tenant's projects.
      this.listen(ProjectEventContracts.scannerChanged, (e) =>
        e.tenant ? this.projects.invalidate(e.tenant, () => true) : Promise.resolve(this.projects.clear()),
      ),
    ];
    void (async () => {
      for await (const s of this.nc.status()) {
        if (s.type === 'reconnect') {
          this.logger.warn('NATS reconnected: dropping cached providers and projects');
          this.providers.clear();
          this.projects.clear();
        }
      }
    })();
  }

  onModuleDestroy(): void {
    for (const s of this.subscriptions) s.unsubscribe();
  }

  private listen<P>(event: EventContract<P>, apply: (e: Partial<P>) => Promise<void>): Subscription {
    return this.nc.subscribe(event.subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          void apply(msg.json());
        } catch {
          this.logger.warn({ subject: event.subject }, 'ignoring a malformed change event');
        }
      },
    });
  }
}
