import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  DEFAULT_PROJECT_NAME,
  DomainError,
  ErrorCode,
  type Principal,
  type ProjectRuntime,
  type ProviderRuntime,
} from '@bastion/contracts';
import { PlatformMetrics } from '@bastion/observability';
import type { Counter } from 'prom-client';
import { DirectoryService } from '../cache/directory.service';
import { PROXY_CONFIG, type ProxyConfig } from '../config';
import { compiledGuardrail } from '../guard/compiled-guardrails';
import { DirectionGuard, ScanBudget, type ScanDirection, type ScanRunner } from '../guard/direction-guard';
import { SCAN_POOL, type ScanPool } from '../guard/scan-pool';
import { SharedProviderLimiter } from '../limits/shared-provider-limiter';

export interface Exchange {
  project: ProjectRuntime;
  provider: ProviderRuntime | null;
  /** The project's guardrails for one direction; both directions of one exchange share one scan budget. */
  guard(direction: ScanDirection): DirectionGuard;
  /** The scan budget both directions share (its `spent` is the exchange's guard time). */
  budget: ScanBudget;
  /** Counts a verdict in the metrics. */
  count(direction: ScanDirection, outcome: string): void;
}

/**
 * Everything a guarded exchange needs before it starts: the caller's project (its token's, the
 * one named, or the tenant's default), the provider (enabled for that project and within its
 * limits), and the project's guardrails ready to run.
 */
@Injectable()
export class ExchangeContext {
  private readonly outcomes: Counter<'direction' | 'outcome'>;
  private readonly limited: Counter<'provider'>;

  constructor(
    private readonly directory: DirectoryService,
    metrics: PlatformMetrics,
    @Inject(PROXY_CONFIG) private readonly config: ProxyConfig,
    private readonly limiter: SharedProviderLimiter,
    @Optional() @Inject(SCAN_POOL) private readonly pool?: ScanPool | null,
  ) {
    this.outcomes = metrics.counter('bastion_guardrail_outcomes_total', 'Guardrail verdicts by direction and outcome', [
      'direction',
      'outcome',
    ]);
    this.limited = metrics.counter(
      'bastion_provider_rate_limited_total',
      'Requests refused (429) by a provider limit',
      ['provider'],
    );
  }

  async open(principal: Principal, providerRef: string | null, projectRef?: string): Promise<Exchange> {
    const project = await this.project(principal, projectRef);
    const provider =
      providerRef === null
        ? null
        : await this.directory.provider(principal.tenant, providerRef).catch(notFoundAs('provider'));
    if (provider) {
      this.checkEnabled(project, provider);
      const decision = await this.limiter.acquire(`${provider.tenant}:${provider.id}`, provider);
      if (!decision.ok) {
        this.limited.inc({ provider: provider.name });
        throw new DomainError(
          ErrorCode.RESOURCE_EXHAUSTED,
          `rate limit of provider "${provider.name}": ${decision.reason}`,
          [],
          decision.retryAfter,
        );
      }
    }
    const guardrails = [...project.packages, ...project.scanners];
    const enforce = project.project.enforcing;
    const budget = new ScanBudget(this.config.SCAN_BUDGET_MS);
    const pool = this.pool;
    // A short text with cheap scanners is scanned here: a worker's round trip would cost more.
    const runner: ScanRunner | undefined = pool ? (job) => pool.scan(principal.tenant, job) : undefined;
    return {
      project,
      provider,
      budget,
      guard: (direction) => new DirectionGuard(guardrails, compiledGuardrail, direction, enforce, budget, runner),
      count: (direction, outcome) => this.outcomes.inc({ direction, outcome }),
    };
  }

  /**
   * The project an exchange runs in: the caller's token's, else the one named, else the tenant's
   * default. A project-scoped caller that names another project gets the answer a project that does
   * not exist gets, so it cannot tell other projects' names or ids from made-up ones.
   */
  async project(principal: Principal, projectRef?: string): Promise<ProjectRuntime> {
    const ref = principal.project ?? projectRef ?? DEFAULT_PROJECT_NAME;
    const project = await this.directory.project(principal.tenant, ref).catch((err: unknown) => {
      if (err instanceof DomainError && err.code === ErrorCode.NOT_FOUND) throw projectNotFound(ref);
      throw err;
    });
    if (principal.project && projectRef && !namesProject(project, projectRef)) throw projectNotFound(projectRef);
    return project;
  }

  private checkEnabled(project: ProjectRuntime, provider: ProviderRuntime): void {
    const listed = project.providers;
    if (listed.length > 0 && !listed.some((p) => (p.id === provider.id || p.name === provider.name) && p.enabled)) {
      throw DomainError.permissionDenied(
        `provider "${provider.name}" is not enabled for project "${project.project.name}"`,
      );
    }
    if (!provider.availability.global && !provider.availability.projectIds.includes(project.project.id)) {
      throw DomainError.permissionDenied(
        `provider "${provider.name}" is not available to project "${project.project.name}"`,
      );
    }
  }
}

/** Whether `ref` (an id, in any case, or a name) names this project. */
export function namesProject(project: ProjectRuntime, ref: string): boolean {
  return ref.toLowerCase() === project.project.id || ref === project.project.name;
}

function projectNotFound(ref: string): DomainError {
  return DomainError.notFound(`project ${ref} not found`);
}

function notFoundAs(what: string) {
  return (err: unknown): never => {
    if (err instanceof DomainError && err.code === ErrorCode.NOT_FOUND)
      throw DomainError.notFound(`${what} not found: ${err.message}`);
    throw err;
  };
}
