import { Controller, Get, Res } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { Public } from '@bastion/auth';
import { ProviderSubjects, TokenSubjects } from '@bastion/contracts';
import { type HealthReport, NatsRpcClient } from '@bastion/platform';
import type { FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';

/** Health subjects of every service the gateway fronts. */
const SERVICES: Record<string, string> = {
  tokens: TokenSubjects.health,
  providers: ProviderSubjects.health,
};

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(private readonly rpc: NatsRpcClient) {}

  /** 200 once every service answers on NATS with its dependencies up; 503 otherwise. */
  @Public()
  @Get('healthz')
  async healthz(@Res({ passthrough: true }) reply: FastifyReply) {
    const services: Record<string, HealthReport | { status: string; error: string }> = {};
    await Promise.all(
      Object.entries(SERVICES).map(async ([name, subject]) => {
        try {
          services[name] = await this.rpc.request<HealthReport>(subject, {}, `health-${randomUUID()}`);
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
