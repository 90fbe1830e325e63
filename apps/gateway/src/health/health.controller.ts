import { Controller, Get, Inject, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import {
  type NoPayload,
  ProjectRpc,
  PromptRpc,
  ProviderRpc,
  ProxyRpc,
  type RpcContract,
  type ServiceHealthView,
  TokenRpc,
} from '@bastion/contracts';
import { lifecycleCheck, NATS_CONNECTION, NatsRpcClient } from '@bastion/messaging';
import { runHealthChecks } from '@bastion/observability';
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
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  /** The process runs (for the liveness probe). */
  @Get('livez')
  @ApiReply('LivenessView')
  livez() {
    return { status: 'ok' };
  }

  /**
   * Readiness of the whole platform: every service answers on NATS with its own dependencies
   * (database, NATS) up. `?self` checks only the gateway's own NATS connection, which is what a
   * Kubernetes readiness probe of the gateway should use (so one service's outage does not take
   * every gateway out of rotation). The public port says ok or not and nothing more: the details
   * are on each process's ops port (HEALTH_PORT, /readyz).
   */
  @Get('readyz')
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok', 'degraded'] } } } })
  async readyz(@Query('self') self: string | undefined, @Res({ passthrough: true }) reply: FastifyReply) {
    if (self === undefined) return this.healthz(reply);
    const report = await runHealthChecks('gateway', { nats: () => this.nc.flush(), process: lifecycleCheck });
    void reply.status(report.status === 'ok' ? 200 : 503);
    return { status: report.status === 'ok' ? 'ok' : 'degraded' };
  }

  /** 200 `{status: "ok"}` once every service answers on NATS with its dependencies up; 503 `{status: "degraded"}` otherwise. */
  @Get('healthz')
  @ApiOkResponse({ schema: { type: 'object', properties: { status: { type: 'string', enum: ['ok', 'degraded'] } } } })
  async healthz(@Res({ passthrough: true }) reply: FastifyReply) {
    const reports = await Promise.all(
      Object.values(SERVICES).map((contract) =>
        this.rpc.call(contract, {}, `health-${randomUUID()}`).then(
          (r) => r.status === 'ok',
          () => false,
        ),
      ),
    );
    const ok = reports.every(Boolean);
    void reply.status(ok ? 200 : 503);
    return { status: ok ? 'ok' : 'degraded' };
  }
}
