import type { EngineType } from '../config/scanner-config';
import type { Span } from '../engine/span';

/** `failed` means the scanner triggered: it found what it looks for. */
export type ScanOutcome = 'passed' | 'failed';

/**
 * One finding, as an array like the spec's `data.matches` ("array of arrays"): UTF-16 offsets
 * `[start, end)` into the scanned text, then which rule found it (the index of the regex pattern or
 * keyword in the config, or a built-in detector's id), then the matched text only when the scanner
 * was compiled with `includeText`.
 */
export type ScanMatch = readonly [start: number, end: number, rule: number | string, text?: string];

export interface ScanData {
  readonly type: EngineType;
  readonly matches: readonly ScanMatch[];
}

/**
 * What an engine knows of the spec's "Scanner result": outcome, data and timing. The service adds
 * `scannerId`, `scanDirection`, `message`, `customConfig` and `scannerVersionMeta`.
 */
export interface ScanResult {
  readonly outcome: ScanOutcome;
  readonly data: ScanData;
  /** ISO 8601, as the spec's `startedDate` / `completedDate`. */
  readonly startedDate: string;
  readonly completedDate: string;
  /** Sub-millisecond duration, for metrics (the dates only resolve milliseconds). */
  readonly durationMs: number;
}

/** The part of a result that outcome aggregation and redaction read; results made elsewhere fit too. */
export interface ScanResultLike {
  readonly outcome: ScanOutcome;
  readonly data: { readonly matches: readonly ScanMatch[] };
}

export function spansOf(result: ScanResultLike): Span[] {
  return result.data.matches.map(([start, end]) => [start, end]);
}
