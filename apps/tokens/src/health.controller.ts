import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { TokenSubjects } from '@bastion/contracts';
import { type HealthReport, READINESS_CHECKS, type ReadinessChecks, runHealthChecks } from '@bastion/platform';

@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessChecks) {}

  @MessagePattern(TokenSubjects.health)
  check(): Promise<HealthReport> {
    return runHealthChecks('tokens', this.checks);
  }
}
