import type { PromptOutcome, RuntimeGuardrail, ScannerResultRecord } from '@bastion/contracts';
import { aggregateOutcome, maskSpans, type ScanResultLike, ScanLimitError, type Scanner } from '@bastion/guardrails';

export type ScanDirection = 'request' | 'response';

export interface GuardrailRun {
  outcome: PromptOutcome;
  /** The scanned text with redactions applied (the same text when nothing was redacted). */
  text: string;
  results: ScannerResultRecord[];
  /** The flag messages of the entries that acted, for the caller. */
  messages: string[];
}

/**
 * Runs a project's guardrails for one direction over one text and decides the outcome. A project
 * that does not enforce (a `draft`) has its scanners run and recorded, but nothing is blocked or
 * redacted: at most it is `flagged`. A scan that exceeds the engine's limits fails closed: blocked.
 */
export function runGuardrails(
  guardrails: RuntimeGuardrail[],
  compiled: (g: RuntimeGuardrail) => Scanner | Error,
  text: string,
  direction: ScanDirection,
  enforce: boolean,
): GuardrailRun {
  const applicable = guardrails.filter((g) => g.enabled && (g.direction === 'both' || g.direction === direction));
  const scans: { result: ScanResultLike; entry: RuntimeGuardrail }[] = [];
  const results: ScannerResultRecord[] = [];
  let overLimit: string | undefined;
  for (const g of applicable) {
    const scanner = compiled(g);
    const startedDate = new Date().toISOString();
    if (scanner instanceof Error) {
      results.push(record(g, direction, { outcome: 'passed', matches: [], type: g.type }, `not run: ${scanner.message}`, startedDate));
      continue;
    }
    try {
      const result = scanner.scan(text);
      scans.push({ result, entry: g });
      results.push(record(g, direction, { outcome: result.outcome, matches: [...result.data.matches], type: result.data.type }, message(g, result.outcome), result.startedDate, result.completedDate));
    } catch (err) {
      if (!(err instanceof ScanLimitError)) throw err;
      overLimit = err.message;
      results.push(record(g, direction, { outcome: 'failed', matches: [], type: scanner.type }, `scan limit exceeded: ${err.message}`, startedDate));
    }
  }
  if (overLimit !== undefined && enforce) return { outcome: 'blocked', text, results, messages: [`scan limit exceeded: ${overLimit}`] };
  const verdict = aggregateOutcome(scans.map((s) => ({ result: s.result, entry: s.entry })), direction);
  const acted = scans.filter((_, i) => verdict.effects[i] !== 'none').map((s) => s.entry.flagMessage).filter(Boolean);
  if (!enforce) {
    const anyFailed = results.some((r) => r.outcome === 'failed');
    return { outcome: anyFailed ? 'flagged' : 'cleared', text, results, messages: acted };
  }
  const redacted = verdict.outcome === 'redacted' ? maskSpans(text, verdict.redactions) : text;
  return { outcome: verdict.outcome, text: redacted, results, messages: acted };
}

/** Combines the request and response outcomes of one prompt: the worse one wins. */
export function worstOutcome(a: PromptOutcome, b: PromptOutcome): PromptOutcome {
  const rank: Record<PromptOutcome, number> = { cleared: 0, flagged: 1, redacted: 2, blocked: 3 };
  return rank[a] >= rank[b] ? a : b;
}

function message(g: RuntimeGuardrail, outcome: string): string {
  if (outcome === 'passed') return '';
  return g.flagMessage || `${g.name} matched`;
}

function record(
  g: RuntimeGuardrail,
  direction: ScanDirection,
  r: { outcome: 'passed' | 'failed'; matches: unknown[]; type: string },
  msg: string,
  startedDate: string,
  completedDate = new Date().toISOString(),
): ScannerResultRecord {
  return {
    scannerId: g.id,
    outcome: r.outcome,
    scanDirection: direction,
    data: { type: r.type, matches: r.matches },
    message: msg,
    customConfig: !g.builtIn,
    startedDate,
    completedDate,
    scannerVersionMeta: {
      id: g.resolvedVersion.id,
      name: g.resolvedVersion.name,
      published: g.resolvedVersion.published,
      direction: g.resolvedVersion.direction,
      description: '',
      createdAt: '',
      createdBy: '',
      f1Score: null,
      latestDatasetResult: null,
    },
  };
}
