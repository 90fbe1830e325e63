import type { EngineType } from '../config/scanner-config';
import type { ScanResult, ScanResultLike } from './scan-result';

/** A compiled scanner: compile once when the config is loaded, then scan many texts. */
export interface Scanner {
  readonly type: EngineType;
  /** Throws ScanLimitError over a cap (text size, matches, time): the scan fails closed. */
  scan(text: string): ScanResult;
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
