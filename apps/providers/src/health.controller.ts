import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ProviderSubjects } from '@bastion/contracts';
import { type HealthReport, READINESS_CHECKS, type ReadinessChecks, runHealthChecks } from '@bastion/platform';

@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessChecks) {}

  @MessagePattern(ProviderSubjects.health)
  check(): Promise<HealthReport> {
    return runHealthChecks('providers', this.checks);
  }
}
