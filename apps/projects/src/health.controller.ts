import { Controller, Inject } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ProjectSubjects } from '@bastion/contracts';
import { type HealthReport, READINESS_CHECKS, type ReadinessChecks, runHealthChecks } from '@bastion/platform';

@Controller()
export class HealthController {
  constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessChecks) {}

  @MessagePattern(ProjectSubjects.health)
  check(): Promise<HealthReport> {
    return runHealthChecks('projects', this.checks);
  }
}
