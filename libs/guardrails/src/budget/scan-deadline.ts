import { ScanLimitError } from '../scanners/scan-limit.error';

/** Default total scan budget of one request (every scanner, both directions, the whole stream). */
export const REQUEST_SCAN_BUDGET_MS = 2_000;

/**
 * A total scan budget shared by every scan of one request: the projects service or the proxy
 * makes one per request and passes it to every `scan` (and to the stream scanner), so 200
 * scanners of 500 ms each cannot add up to 100 s of one tenant's CPU. When it runs out, the scan
 * in progress throws `ScanLimitError` with limit `budget`; the caller's fail-closed setting decides
 * what that means (block, or pass and record that the scan was incomplete), and the record says so.
 */
export class ScanDeadline {
  private readonly at: number;
  private spentMs = 0;

  constructor(
    readonly budgetMs: number = REQUEST_SCAN_BUDGET_MS,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.at = now() + budgetMs;
  }

  /** Milliseconds left, 0 once past. */
  get remainingMs(): number {
    return Math.max(0, this.at - this.now());
  }

  get exceeded(): boolean {
    return this.now() > this.at;
  }

  /** Throws ScanLimitError('budget') once the deadline has passed. */
  check(): void {
    if (this.exceeded) throw new ScanLimitError('budget', this.budgetMs);
  }

  /** Records time spent scanning (for the record; the deadline itself is wall-clock). */
  spend(ms: number): void {
    this.spentMs += ms;
  }

  /** Milliseconds of scanning recorded with `spend`. */
  get scannedMs(): number {
    return this.spentMs;
  }
}
