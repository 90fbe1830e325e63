import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ProxySubjects } from '@bastion/contracts';
import { type HealthReport, READINESS_CHECKS, type ReadinessChecks, runHealthChecks } from '@bastion/platform';

/** The proxy has no database: it is ready when its NATS connection is. */
@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessChecks) {}

  @MessagePattern(ProxySubjects.health)
  check(): Promise<HealthReport> {
    return runHealthChecks('message-proxy', this.checks);
  }
}
