import RE2 from 're2';
import { analysePattern } from '../bounds/pattern-analysis';
import type { EngineScanner } from '../scanners/engine-scanner';
import { prefixPattern } from './prefix-pattern';

/**
 * Prefix patterns of one engine's rules above this many characters in total are not built: the
 * engine is held back over its whole maximum length instead (a list of a thousand long keywords
 * would otherwise take seconds to compile).
 */
export const PREFIX_SOURCE_LIMIT = 50_000;

const enginePrefixes = new WeakMap<EngineScanner, { parts: string[]; fallback: number }>();

/** One engine's prefix patterns (cached with the compiled engine), or its fallback length. */
function prefixesOf(engine: EngineScanner): { parts: string[]; fallback: number } {
  let known = enginePrefixes.get(engine);
  if (known) return known;
  const caseless = engine.matcher.flags.includes('i');
  const parts: string[] = [];
  let fallback = 0;
  let size = 0;
  for (const rule of engine.matcher.rules) {
    const prefix = prefixPattern(rule.source);
    if (prefix === undefined) fallback = Math.max(fallback, analysePattern(rule.source).maxLength);
    else if (prefix !== '') {
      parts.push(caseless ? `(?i:${prefix})` : prefix);
      size += prefix.length;
    }
    if (size > PREFIX_SOURCE_LIMIT) {
      known = { parts: [], fallback: engine.maxMatchLength };
      enginePrefixes.set(engine, known);
      return known;
    }
  }
  known = { parts, fallback };
  enginePrefixes.set(engine, known);
  return known;
}

/**
 * Where in a growing text a match could still be in progress: the earliest offset from which
 * the text so far is the beginning of a match of some rule. A match starting before it is final,
 * and the text before it cannot become part of a new match.
 *
 * One RE2 search per step answers it: every rule's prefix language (prefixPattern) joined into one
 * pattern anchored at the end of the text. Rules whose prefix language cannot be built count as in
 * progress over their whole maximum length. Nothing further back than `maxLength` (the hold-back
 * cap) is considered.
 */
export class LiveStarts {
  private readonly re: RE2 | undefined;
  /** Longest match of the rules without a prefix pattern: held back in full. */
  private readonly fallback: number;

  constructor(
    engines: readonly EngineScanner[],
    /** Longest match considered (the hold-back cap). */
    private readonly maxLength: number,
  ) {
    const parts: string[] = [];
    let fallback = 0;
    for (const engine of engines) {
      const own = prefixesOf(engine);
      parts.push(...own.parts);
      fallback = Math.max(fallback, own.fallback);
    }
    let re: RE2 | undefined;
    if (parts.length > 0) {
      try {
        re = new RE2(`(?:${parts.join('|')})\\z`, 'u');
      } catch {
        // Too large or too deeply nested together: every rule is held back in full.
        fallback = maxLength;
      }
    }
    this.re = re;
    this.fallback = Math.min(fallback, maxLength);
  }

  /**
   * Absolute offset of the earliest possible start of an unfinished match in `buffer` (which
   * starts at absolute `bufStart` and ends at `end`); `end` when none can be in progress.
   *
   * `since` is what `searched` said for the same text at an earlier step: a position that did
   * not begin a possible match then cannot now (a text that is no beginning of a match does not
   * become one by growing), so the search starts there, not `maxLength` back, and reads each
   * character of a stream a bounded number of times.
   */
  earliest(buffer: string, bufStart: number, end: number, since = 0): { live: number; searched: number } {
    let live = Math.max(bufStart, end - this.fallback);
    if (!this.re) return { live, searched: end };
    const from = Math.max(bufStart, end - this.maxLength, since);
    const tail = buffer.slice(from - bufStart);
    // `search` reports only the offset: an order of magnitude cheaper than `exec` in node-re2.
    const at = this.re.search(tail);
    const found = at >= 0 ? from + at : end;
    live = Math.min(live, found);
    return { live, searched: found };
  }
}
