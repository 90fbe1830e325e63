import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ProviderSubjects } from '@bastion/contracts';
import { NATS_CONNECTION, runHealthChecks, type HealthReport } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import { PrismaService } from './prisma/prisma.service';

@Controller()
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  @MessagePattern(ProviderSubjects.health)
  check(): Promise<HealthReport> {
    return runHealthChecks('providers', {
      database: () => this.prisma.$queryRaw`SELECT 1`,
      nats: () => this.nc.flush(),
    });
  }
}
