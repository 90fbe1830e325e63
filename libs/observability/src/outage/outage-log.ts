import type { Logger } from 'pino';

/**
 * Logs a dependency outage once when it starts, then at most once per `everyMs` with the number of
 * failures since, instead of one stack trace per failed request.
 */
export class OutageLog {
  private lastLoggedAt = new Map<string, number>();
  private suppressed = new Map<string, number>();

  constructor(
    private readonly logger: Logger,
    private readonly everyMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  report(dependency: string, err: unknown): void {
    const last = this.lastLoggedAt.get(dependency);
    const t = this.now();
    if (last !== undefined && t - last < this.everyMs) {
      this.suppressed.set(dependency, (this.suppressed.get(dependency) ?? 0) + 1);
      return;
    }
    const failuresSince = this.suppressed.get(dependency) ?? 0;
    this.lastLoggedAt.set(dependency, t);
    this.suppressed.set(dependency, 0);
    const reason = err instanceof Error ? err.message.split('\n').filter(Boolean).at(-1) : String(err);
    this.logger.error(
      { dependency, reason, failuresSince },
      `${dependency} unavailable; answering 503 until it is back`,
    );
  }
}
