import { canonicalize, type ScanLimit, ScanLimitError, type ScanMatch, type Scanner } from '@bastion/guardrails';
import type { ScanBudget } from './direction-guard';

/** A scanner version's identity: its scanner's id and its version's id (a version's config never changes). */
export interface ScannerKey {
  id: string;
  version: string;
}

/** A scanner version with its config: what the compile cache keys it by, enough for another thread to compile it too. */
export interface ScannerRef extends ScannerKey {
  config: Record<string, unknown>;
}

/** One text to scan with several scanners, within what is left of an exchange's scan budget. */
export interface ScanJob<S extends ScannerKey = ScannerRef> {
  scanners: S[];
  text: string;
  /** The exchange's scan budget (ms) and how much of it was spent before this job. */
  limitMs: number;
  spentMs: number;
}

/**
 * Per scanner: its matches, the limit it ran into, or why it could not run (its config does not
 * compile); with when it started and ended (ms since the epoch).
 */
export type ScannerOutcome = (
  | { failed: boolean; matches: readonly ScanMatch[] }
  /** `limit`: which one (ScanLimitError's); `budget` when the budget was spent before it started. */
  | { overLimit: string; limit: ScanLimit }
  | { notRun: string }
) & {
  startedAt: number;
  completedAt: number;
};

export interface ScanJobResult {
  scanners: ScannerOutcome[];
  /** Budget spent by this job (ms). */
  spentMs: number;
}

/**
 * Runs a scan job: the text is put in canonical form once and every scanner reads that, each
 * within the budget (a scanner over a limit, or any once the budget is spent, is reported as such,
 * never as passed). The same code runs inline and on a scan worker.
 */
export function runScanJob(
  job: ScanJob,
  compiled: (ref: ScannerRef, index: number) => Scanner | Error,
  budget: ScanBudget,
): ScanJobResult {
  const before = budget.spent;
  let canonical: ReturnType<typeof canonicalize> | undefined;
  const scanners = job.scanners.map((ref, index): ScannerOutcome => {
    const startedAt = Date.now();
    const scanner = compiled(ref, index);
    if (scanner instanceof Error) return { notRun: scanner.message, startedAt, completedAt: startedAt };
    if (budget.exhausted)
      return {
        overLimit: `the request's scan budget of ${budget.limitMs} ms is spent`,
        limit: 'budget',
        startedAt,
        completedAt: startedAt,
      };
    try {
      const matches = budget.run(() => {
        canonical ??= canonicalize(job.text);
        return scanner.find(job.text, { canonical, deadline: budget.deadline });
      });
      return { failed: matches.length > 0, matches, startedAt, completedAt: Date.now() };
    } catch (err) {
      if (!(err instanceof ScanLimitError)) throw err;
      return { overLimit: err.message, limit: err.limit, startedAt, completedAt: Date.now() };
    }
  });
  return { scanners, spentMs: budget.spent - before };
}

/** What ScanPool posts to a scan worker: the job's scanners by key, with the configs the worker may not have yet. */
export interface ScanRequest {
  id: number;
  job: ScanJob<ScannerKey>;
  configs: ScannerRef[];
  /** Keys (scannerKey) of the job's scanners whose compile the worker times again, compiled anew (ScanPool's COMPILE_SAMPLES). */
  retime?: string[];
}

/** A scan worker's answer: the result, the keys (scannerKey) of configs it does not have, or an error. */
export type ScanReply = { id: number } &
  /** `compileMs`: what compiling took (ms), by scannerKey, for the scanners this job compiled or timed again. */
  (
    | { result: ScanJobResult; cpuMs?: number; compileMs?: Record<string, number> }
    | { need: string[] }
    | { error: string }
  );

export function scannerKey(s: ScannerKey): string {
  return `${s.id}\u0000${s.version}`;
}

/** CPU time of the calling thread (ms), where Node can tell (`process.threadCpuUsage`, Node 23.9 on). */
export function threadCpuMs(): number | undefined {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  return usage ? (usage.user + usage.system) / 1000 : undefined;
}
