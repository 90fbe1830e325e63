import { canonicalizePattern } from '../canonical/canonicalize-pattern';
import type { ConfigProblem } from '../config/config-problem';
import type { Scanner } from '../scanners/scanner';
import { analysePattern } from './pattern-analysis';

/**
 * The longest match a stream holds back for, in canonical UTF-16 units. A scanner whose patterns
 * allow longer matches (a `+`, `*` or `{n,}`, a keyword phrase's whitespace run, the private-key
 * detector's body) is held back for this much only: a match longer than the cap may be released
 * in part before it completes. The scanner API warns when a pattern allows such a match
 * (scannerConfigWarnings).
 */
export const MATCH_LENGTH_CAP = 1_024;

/**
 * Characters of context a scanner may read beyond its match: `\b` and `$` read one, the built-in
 * detectors' confirmations at most 16 (the IP detector's "version" word before an address). A
 * stream scanner treats a match as final only once this much text follows it.
 */
export const MATCH_CONTEXT = 16;

/**
 * The hold-back bound of a compiled set of scanners: the longest match any of them can make, in
 * canonical UTF-16 units, at most `cap`. 0 when there are no scanners (nothing to hold back).
 */
export function maxMatchLength(scanners: readonly Pick<Scanner, 'maxMatchLength'>[], cap = MATCH_LENGTH_CAP): number {
  let max = 0;
  for (const s of scanners) max = Math.max(max, Math.min(s.maxMatchLength, cap));
  return max;
}

/**
 * Warnings (not errors) about a valid config: each pattern or keyword that allows matches longer
 * than MATCH_LENGTH_CAP, which a streamed answer may release in part before it is seen whole. The
 * projects service returns them with a scanner's create and update responses.
 */
export function scannerConfigWarnings(config: unknown, cap = MATCH_LENGTH_CAP): ConfigProblem[] {
  if (typeof config !== 'object' || config === null) return [];
  const c = config as Record<string, unknown>;
  const warn = (loc: string[], what: string, max: number): ConfigProblem => ({
    loc,
    msg: `${what} allows matches ${Number.isFinite(max) ? `of up to ${max} characters` : 'of unbounded length'}, longer than the ${cap}-character stream hold-back: in streamed answers a longer match may reach the client in part before it is seen whole`,
    type: 'match_length_warning',
  });
  const warnings: ConfigProblem[] = [];
  if (c.type === 'regex') {
    const patterns =
      typeof c.pattern === 'string'
        ? [[['pattern'], c.pattern] as const]
        : Array.isArray(c.patterns)
          ? c.patterns.map((p, i) => [['patterns', String(i)], p] as const)
          : [];
    for (const [loc, p] of patterns) {
      if (typeof p !== 'string') continue;
      const max = analysePattern(canonicalizePattern(p)).maxLength;
      if (max > cap)
        warnings.push(warn([...loc], `The pattern ${JSON.stringify(p.length > 60 ? `${p.slice(0, 57)}...` : p)}`, max));
    }
  }
  if (c.type === 'keyword' && Array.isArray(c.words)) {
    c.words.forEach((w, i) => {
      if (typeof w === 'string' && /\S\s+\S/.test(w.trim())) {
        warnings.push(
          warn(
            ['words', String(i)],
            `The phrase ${JSON.stringify(w)} (any run of whitespace between its words)`,
            Infinity,
          ),
        );
      }
    });
  }
  return warnings;
}
