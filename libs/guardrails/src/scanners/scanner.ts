import type { EngineType } from '../config/scanner-config';
import type { ScanDeadline } from '../budget/scan-deadline';
import type { CanonicalText } from '../canonical/canonicalize';
import type { ScanMatch, ScanResult, ScanResultLike } from './scan-result';

export interface ScanOptions {
  /** The request's total scan budget; past it the scan throws ScanLimitError('budget'). */
  readonly deadline?: ScanDeadline;
  /**
   * `canonicalize(text)`, when the caller already has it (one canonical form for many scanners).
   * Must be of this same text.
   */
  readonly canonical?: CanonicalText;
}

/** A compiled scanner: compile once when the config is loaded, then scan many texts. */
export interface Scanner {
  readonly type: EngineType;
  /**
   * Scans the canonical form of `text` (see canonicalize); match offsets are offsets into `text`
   * itself, widened to whole original characters. Throws ScanLimitError over a cap (text size,
   * matches, time, the request's deadline): the scan fails closed.
   */
  scan(text: string, options?: ScanOptions): ScanResult;
  /** `scan`'s matches alone, for callers that keep their own times (no dates to format). */
  find(text: string, options?: ScanOptions): ScanMatch[];
  /**
   * The longest match this scanner can report, in canonical UTF-16 units, worked out from its
   * patterns, keywords or detectors; Infinity when a pattern is unbounded (see maxMatchLength).
   */
  readonly maxMatchLength: number;
  /**
   * The text with every match replaced by `*` (one per UTF-16 unit, so the length is kept). Pass
   * the result of `scan(text)` to avoid scanning twice; it must come from this same text.
   */
  redact(text: string, result?: ScanResultLike): string;
}

export interface CompileOptions {
  /**
   * Put the matched text in each match. Off by default: results are stored and returned to
   * callers, and a copy of the secret they caught does not belong there.
   */
  readonly includeText?: boolean;
  /** Defaults to MAX_SCAN_TEXT_BYTES. */
  readonly maxTextBytes?: number;
  /** Defaults to MAX_SCAN_MATCHES. */
  readonly maxMatches?: number;
  /** Defaults to SCAN_TIME_BUDGET_MS. */
  readonly timeBudgetMs?: number;
}
