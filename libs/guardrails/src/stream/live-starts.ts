import type { EngineScanner } from '../scanners/engine-scanner';

/**
 * Where in a growing text a match could still be in progress: the earliest offset from which
 * the text so far is the beginning of a match of some rule (or could be, as far as can be told).
 * A match starting before it is final; the text before it cannot become part of a new match.
 */
export class LiveStarts {
  constructor(
    _engines: readonly EngineScanner[],
    /** Longest match considered (the hold-back cap). */
    private readonly maxLength: number,
  ) {}

  /**
   * Absolute offset of the earliest possible start of an unfinished match in `buffer` (which
   * starts at absolute `bufStart` and ends at `end`); `end` when none can be in progress.
   */
  earliest(_buffer: string, bufStart: number, end: number): number {
    return Math.max(bufStart, end - this.maxLength);
  }
}
