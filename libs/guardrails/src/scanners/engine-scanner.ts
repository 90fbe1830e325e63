import { canonicalize, type CanonicalText } from '../canonical/canonicalize';
import type { EngineType } from '../config/scanner-config';
import { MAX_SCAN_MATCHES, MAX_SCAN_TEXT_BYTES, SCAN_TIME_BUDGET_MS } from '../config/scanner-limits';
import { type RuleMatch, type RuleMatcher, utf8Of } from '../engine/rule-matcher';
import { maskSpans } from '../engine/span';
import { type ScanMatch, type ScanResult, type ScanResultLike, spansOf } from './scan-result';
import { ScanLimitError } from './scan-limit.error';
import type { CompileOptions, ScanOptions, Scanner } from './scanner';

/** Each canonical text's UTF-8 bytes, made once for all the scanners that read it (see RuleMatcher.find). */
const canonicalBytes = new WeakMap<Pick<CanonicalText, 'text'>, Buffer>();

function bytesOf(canonical: Pick<CanonicalText, 'text'>): Buffer {
  let bytes = canonicalBytes.get(canonical);
  if (bytes === undefined) {
    bytes = utf8Of(canonical.text);
    canonicalBytes.set(canonical, bytes);
  }
  return bytes;
}

/** What every engine shares around its matcher: the caps, timing, the result shape, redaction. */
let serials = 0;

export class EngineScanner implements Scanner {
  /** Tells compiled scanners apart (caches of what is built from several of them). */
  readonly serial = ++serials;
  readonly includeText: boolean;
  readonly maxTextBytes: number;
  readonly maxMatches: number;
  readonly timeBudgetMs: number;

  constructor(
    readonly type: EngineType,
    readonly matcher: RuleMatcher,
    readonly ruleLabel: (rule: number) => number | string,
    /** Longest match in canonical UTF-16 units; Infinity when unbounded. */
    readonly maxMatchLength: number,
    options: CompileOptions = {},
  ) {
    this.includeText = options.includeText ?? false;
    this.maxTextBytes = options.maxTextBytes ?? MAX_SCAN_TEXT_BYTES;
    this.maxMatches = options.maxMatches ?? MAX_SCAN_MATCHES;
    this.timeBudgetMs = options.timeBudgetMs ?? SCAN_TIME_BUDGET_MS;
  }

  scan(text: string, options: ScanOptions = {}): ScanResult {
    const startedDate = new Date().toISOString();
    const t0 = performance.now();
    const matches = this.find(text, options);
    return {
      outcome: matches.length > 0 ? 'failed' : 'passed',
      data: { type: this.type, matches },
      startedDate,
      completedDate: new Date().toISOString(),
      durationMs: Math.round((performance.now() - t0) * 1000) / 1000,
    };
  }

  find(text: string, options: ScanOptions = {}): ScanMatch[] {
    const t0 = performance.now();
    this.checkSize(text);
    options.deadline?.check();
    const canonical = options.canonical?.original === text ? options.canonical : canonicalize(text);
    const deadline = t0 + this.timeBudgetMs;
    const found = this.matcher.find(
      canonical.text,
      (matches) => {
        if (matches > this.maxMatches) throw new ScanLimitError('matches', this.maxMatches);
        if (performance.now() > deadline) throw new ScanLimitError('time', this.timeBudgetMs);
        options.deadline?.check();
      },
      bytesOf(canonical),
    );
    // The last search's matches are counted here, after the loop that would have checked them.
    if (found.length > this.maxMatches) throw new ScanLimitError('matches', this.maxMatches);
    const matches = this.toMatches(found, canonical);
    options.deadline?.spend(Math.round((performance.now() - t0) * 1000) / 1000);
    return matches;
  }

  /** Matches found in canonical text, as offsets into the original (and its text, if asked). */
  toMatches(found: readonly RuleMatch[], canonical: Pick<CanonicalText, 'original' | 'toOriginal'>): ScanMatch[] {
    return found.map(({ start, end, rule }): ScanMatch => {
      const [s, e] = canonical.toOriginal(start, end);
      const label = this.ruleLabel(rule);
      return this.includeText ? [s, e, label, canonical.original.slice(s, e)] : [s, e, label];
    });
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
