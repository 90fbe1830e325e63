import type { EngineType } from '../config/scanner-config';
import { MAX_SCAN_MATCHES, MAX_SCAN_TEXT_BYTES, SCAN_TIME_BUDGET_MS } from '../config/scanner-limits';
import type { RuleMatcher } from '../engine/rule-matcher';
import { maskSpans } from '../engine/span';
import { type ScanMatch, type ScanResult, type ScanResultLike, spansOf } from './scan-result';
import { ScanLimitError } from './scan-limit.error';
import type { CompileOptions, Scanner } from './scanner';

/** What every engine shares around its matcher: the caps, timing, the result shape, redaction. */
export class EngineScanner implements Scanner {
  private readonly includeText: boolean;
  private readonly maxTextBytes: number;
  private readonly maxMatches: number;
  private readonly timeBudgetMs: number;

  constructor(
    readonly type: EngineType,
    private readonly matcher: Pick<RuleMatcher, 'find'>,
    private readonly ruleLabel: (rule: number) => number | string,
    options: CompileOptions = {},
  ) {
    this.includeText = options.includeText ?? false;
    this.maxTextBytes = options.maxTextBytes ?? MAX_SCAN_TEXT_BYTES;
    this.maxMatches = options.maxMatches ?? MAX_SCAN_MATCHES;
    this.timeBudgetMs = options.timeBudgetMs ?? SCAN_TIME_BUDGET_MS;
  }

  scan(text: string): ScanResult {
    const startedDate = new Date().toISOString();
    const t0 = performance.now();
    this.checkSize(text);
    const deadline = t0 + this.timeBudgetMs;
    const found = this.matcher.find(text, (matches) => {
      if (matches > this.maxMatches) throw new ScanLimitError('matches', this.maxMatches);
      if (performance.now() > deadline) throw new ScanLimitError('time', this.timeBudgetMs);
    });
    // The last search's matches are counted here, after the loop that would have checked them.
    if (found.length > this.maxMatches) throw new ScanLimitError('matches', this.maxMatches);
    const matches = found.map(({ start, end, rule }): ScanMatch => {
      const label = this.ruleLabel(rule);
      return this.includeText ? [start, end, label, text.slice(start, end)] : [start, end, label];
    });
    const durationMs = Math.round((performance.now() - t0) * 1000) / 1000;
    return {
      outcome: matches.length > 0 ? 'failed' : 'passed',
      data: { type: this.type, matches },
      startedDate,
      completedDate: new Date().toISOString(),
      durationMs,
    };
  }

  redact(text: string, result?: ScanResultLike): string {
    return maskSpans(text, spansOf(result ?? this.scan(text)));
  }

  private checkSize(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most texts need no byte count at all.
    if (text.length * 3 <= this.maxTextBytes) return;
    const bytes = Buffer.byteLength(text, 'utf8');
    if (bytes > this.maxTextBytes) throw new ScanLimitError('text-bytes', this.maxTextBytes, bytes);
  }
}
