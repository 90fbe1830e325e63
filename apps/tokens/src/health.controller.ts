import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { TokenSubjects } from '@bastion/contracts';
import { NATS_CONNECTION, runHealthChecks, type HealthReport } from '@bastion/platform';
import type { NatsConnection } from '@nats-io/transport-node';
import { PrismaService } from './prisma/prisma.service';

@Controller()
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
  ) {}

  @MessagePattern(TokenSubjects.health)
  check(): Promise<HealthReport> {
    return runHealthChecks('tokens', {
      database: () => this.prisma.$queryRaw`SELECT 1`,
      nats: () => this.nc.flush(),
    });
  }
}
