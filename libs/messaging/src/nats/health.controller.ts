import { Controller, Inject, type Type } from '@nestjs/common';
import type { NoPayload, RpcContract, ServiceHealthView } from '@bastion/contracts';
import { type HealthReport, runHealthChecks } from '@bastion/observability';
import { Handles } from './handles';
import { lifecycleCheck } from './connection-state';
import { READINESS_CHECKS, type ReadinessChecks } from './service-app';

/**
 * The NATS health handler every service registers: answers the contract's subject with the service's readiness
 * checks (the same ones its /readyz runs), which the gateway's /healthz and /readyz aggregate.
 */
export function healthController(service: string, contract: RpcContract<NoPayload, ServiceHealthView>): Type<unknown> {
  @Controller()
  class HealthController {
    constructor(@Inject(READINESS_CHECKS) private readonly checks: ReadinessChecks) {}

    @Handles(contract)
    check(): Promise<HealthReport> {
      return runHealthChecks(service, { ...this.checks, process: lifecycleCheck });
    }
  }
  return HealthController;
}
