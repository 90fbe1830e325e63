import { createServer, type Server } from 'node:http';
import type { OnApplicationBootstrap, OnApplicationShutdown, Provider } from '@nestjs/common';
import type { AddressInfo } from 'node:net';
import { type HealthReport, runHealthChecks, PlatformMetrics } from '@bastion/observability';
import { lifecycleCheck } from '../nats/connection-state';

export interface OpsServerOptions {
  service: string;
  port: number;
  host?: string;
  /** Dependencies that must answer for the service to take traffic (database, NATS). */
  readiness: Record<string, () => Promise<unknown>>;
  metrics: PlatformMetrics;
}

/**
 * A small HTTP server beside a NATS service, for the orchestrator and Prometheus:
 * `/livez` (the process runs), `/readyz` (its dependencies answer; 503 otherwise) and `/metrics`.
 */
export class OpsServer implements OnApplicationBootstrap, OnApplicationShutdown {
  private server?: Server;

  constructor(private readonly options: OpsServerOptions) {}

  /** Started and stopped with the Nest application that provides it. */
  async onApplicationBootstrap(): Promise<void> {
    await this.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.stop();
  }

  /** The port it listens on (useful when configured with 0). */
  get port(): number | undefined {
    return (this.server?.address() as AddressInfo | null)?.port;
  }

  async start(): Promise<number> {
    this.server = createServer((req, res) => {
      void this.handle(req.url ?? '/').then(({ status, type, body }) => {
        res.writeHead(status, { 'content-type': type });
        res.end(body);
      });
    });
    await new Promise<void>((resolve) =>
      this.server!.listen(this.options.port, this.options.host ?? '0.0.0.0', resolve),
    );
    return (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  async readiness(): Promise<HealthReport> {
    const report = await runHealthChecks(this.options.service, { ...this.options.readiness, process: lifecycleCheck });
    for (const [dependency, result] of Object.entries(report.checks)) {
      if (result !== 'ok') this.options.metrics.dependencyErrors.inc({ dependency });
    }
    return report;
  }

  private async handle(url: string): Promise<{ status: number; type: string; body: string }> {
    const path = url.split('?')[0];
    if (path === '/livez') return { status: 200, type: 'application/json', body: '{"status":"ok"}' };
    if (path === '/readyz') {
      const report = await this.readiness();
      return { status: report.status === 'ok' ? 200 : 503, type: 'application/json', body: JSON.stringify(report) };
    }
    if (path === '/metrics') {
      return {
        status: 200,
        type: this.options.metrics.registry.contentType,
        body: await this.options.metrics.registry.metrics(),
      };
    }
    return { status: 404, type: 'application/json', body: '{"detail":"not found"}' };
  }
}

/**
 * The ops server as a provider of a service module: `/livez`, `/readyz` (running the module's
 * READINESS_CHECKS) and `/metrics` on `port`, for as long as the application runs.
 */
export function opsServerProvider(service: string, port: number, checksToken: symbol): Provider {
  return {
    provide: OpsServer,
    inject: [checksToken, PlatformMetrics],
    useFactory: (readiness: Record<string, () => Promise<unknown>>, metrics: PlatformMetrics) =>
      new OpsServer({ service, port, metrics, readiness }),
  };
}
