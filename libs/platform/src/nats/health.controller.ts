import { Controller, Inject, type Type } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type HealthReport, runHealthChecks } from '../health/health';
import { lifecycleCheck } from './connection-state';
import { READINESS_CHECKS, type ReadinessChecks } from './service-app';

/**
 * The NATS health handler every service registers: answers `subject` with the service's readiness
 * checks (the same ones its /readyz runs), which the gateway's /healthz and /readyz aggregate.
 */
export function healthController(service: string, subject: string): Type<unknown> {
  @Controller()
  class HealthController {
    constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessChecks) {}

    @MessagePattern(subject)
    check(): Promise<HealthReport> {
      return runHealthChecks(service, { ...this.checks, process: lifecycleCheck });
    }
  }
  return HealthController;
}
