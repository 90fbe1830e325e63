import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiProduces, ApiTags } from '@nestjs/swagger';
import { Public } from '@bastion/auth';
import { type NoPayload, type PlatformHealthView, ProjectRpc, PromptRpc, ProviderRpc, ProxyRpc, type RpcContract, type ServiceHealthView, TokenRpc } from '@bastion/contracts';
import { type HealthReport, lifecycleCheck, NATS_CONNECTION, NatsRpcClient, PlatformMetrics, runHealthChecks } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import { ApiReply } from '../http/api-reply';

/** Health requests of every service the gateway fronts. */
const SERVICES: Record<string, RpcContract<NoPayload, ServiceHealthView>> = {
  tokens: TokenRpc.health,
  providers: ProviderRpc.health,
  prompts: PromptRpc.health,
  'message-proxy': ProxyRpc.health,
  projects: ProjectRpc.health,
};

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly rpc: NatsRpcClient,
    private readonly platformMetrics: PlatformMetrics,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  /** The process runs (for the liveness probe). */
  @Public()
  @Get('livez')
  @ApiReply('LivenessView')
  livez() {
    return { status: 'ok' };
  }

  /**
   * Readiness of the whole platform: every service answers on NATS with its own dependencies
   * (database, NATS) up. `?self` checks only the gateway's own NATS connection, which is what a
   * Kubernetes readiness probe of the gateway should use (so one service's outage does not take
   * every gateway out of rotation).
   */
  @Public()
  @Get('readyz')
  @ApiOkResponse({ schema: { oneOf: [{ $ref: '#/components/schemas/ServiceHealthView' }, { $ref: '#/components/schemas/PlatformHealthView' }] } })
  async readyz(@Query('self') self: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    if (self !== undefined) {
      const report = await runHealthChecks('gateway', { nats: () => this.nc.flush(), process: lifecycleCheck });
      void reply.status(report.status === 'ok' ? 200 : 503);
      return report;
    }
    return this.healthz(reply);
  }

  @Public()
  @Get('metrics')
  @ApiProduces('text/plain')
  @ApiOkResponse({ description: 'Prometheus text exposition', schema: { type: 'string' } })
  async metrics(@Res() reply: FastifyReply) {
    void reply.header('content-type', this.platformMetrics.registry.contentType).send(await this.platformMetrics.registry.metrics());
  }

  /** 200 once every service answers on NATS with its dependencies up; 503 otherwise. */
  @Public()
  @Get('healthz')
  @ApiReply('PlatformHealthView')
  async healthz(@Res({ passthrough: true }) reply: FastifyReply): Promise<PlatformHealthView> {
    const services: Record<string, ServiceHealthView | { status: string; error: string }> = {};
    await Promise.all(
      Object.entries(SERVICES).map(async ([name, contract]) => {
        try {
          services[name] = await this.rpc.call(contract, {}, `health-${randomUUID()}`);
        } catch (err) {
          services[name] = { status: 'unreachable', error: err instanceof Error ? err.message : String(err) };
        }
      }),
    );
    const ok = Object.values(services).every((s) => s.status === 'ok');
    void reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'degraded', services };
  }
}
