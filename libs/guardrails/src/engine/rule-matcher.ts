import RE2 from 're2';
import type { Span } from './span';
import { nextIndex } from './text-boundaries';

type RE2Set = ReturnType<typeof RE2.Set>;

/**
 * Memory budget of the combined automaton. RE2's default (8 MiB) is too small for the largest
 * configs the caps allow (1,000 keywords of 200 characters, case-insensitive, need about 32 MiB);
 * the memory is only taken as a text needs it.
 */
const SET_MAX_MEM = 64 * 1024 * 1024;

/**
 * Decides whether a candidate found by a rule's pattern counts: `true` or `false`, or the spans
 * inside it that do (a run of digits may hold two card numbers, or one with a trailing year).
 */
export type Confirm = (value: string, text: string, start: number) => boolean | readonly Span[];

export interface Rule {
  /** RE2 syntax. */
  readonly source: string;
  readonly confirm?: Confirm;
}

export interface RuleMatch {
  readonly start: number;
  readonly end: number;
  /** Index of the rule that matched. */
  readonly rule: number;
}

export interface RuleMatcherOptions {
  /** RE2 flags besides `g`, the same for every rule (e.g. `i`). `u` is always on. */
  readonly flags?: string;
  /**
   * After a refused candidate, search again one character later instead of after it. Exact for
   * short literal rules (keywords); never for open-ended patterns, where it would be quadratic.
   */
  readonly retryInsideRefused?: boolean;
}

/**
 * Finds every match of many RE2 rules in one text. A single RE2.Set pass (one automaton for all
 * rules) tells which rules match at all; only those run again to collect offsets. Clean text, the
 * common case, costs one linear pass however many rules there are.
 *
 * Not one big alternation: an alternation reports one match per position (the first alternative
 * that fits), so a rule whose match overlaps another's would go unreported and its characters
 * unredacted. Here each rule's matches are complete and independent.
 *
 * Instances hold RE2 objects with a `lastIndex`; a scan runs start to end synchronously, so one
 * instance can serve every caller of a process.
 */
export class RuleMatcher {
  readonly regexes: RE2[];
  private readonly set: RE2Set | undefined;
  private readonly everyRule: number[];
  readonly retryInsideRefused: boolean;
  /** RE2 flags of every rule (`u` and the options' flags). */
  readonly flags: string;

  constructor(
    readonly rules: readonly Rule[],
    options: RuleMatcherOptions = {},
  ) {
    const flags = `u${options.flags ?? ''}`;
    this.flags = flags;
    this.regexes = rules.map((r) => new RE2(r.source, `g${flags}`));
    this.everyRule = rules.map((_, i) => i);
    this.set = rules.length > 1 ? compileSet(rules, flags) : undefined;
    this.retryInsideRefused = options.retryInsideRefused ?? false;
  }

  /** Index of the first rule that matches the empty string, or -1. */
  emptyMatchRule(): number {
    return this.regexes.findIndex((re) => {
      re.lastIndex = 0;
      const hit = re.test('');
      re.lastIndex = 0;
      return hit;
    });
  }

  /**
   * Matches sorted by start, then end; matches of different rules may overlap. `afterSearch` is
   * called after every RE2 search with the number of matches so far, and may throw to stop.
   *
   * `utf8`: the text's UTF-8 bytes (`utf8Of(text)`), when the caller has them. RE2 searches UTF-8:
   * given a string, it makes a new Buffer of it for every search of another string than its last,
   * which cost four times the search itself for a short prompt scanned by a few scanners. With the
   * bytes, which rules match at all is asked of them, and only a rule that does is searched again
   * in the string for its offsets (in UTF-16 units, as callers count). The bytes are what RE2 would
   * have made of the string, so the answer is the same.
   */
  find(text: string, afterSearch?: (matches: number) => void, utf8?: Buffer): RuleMatch[] {
    const found: RuleMatch[] = [];
    const decided = this.setMatches(utf8 ?? text);
    for (const i of decided ?? this.everyRule) {
      if (!decided && utf8 && !this.matchesIn(i, utf8)) continue;
      this.collect(i, text, found, afterSearch);
    }
    return found.sort((a, b) => a.start - b.start || a.end - b.end || a.rule - b.rule);
  }

  /** Rules that match somewhere in `text` (all of them when the combined set cannot tell). */
  rulesThatMatch(text: string): readonly number[] {
    return this.setMatches(text) ?? this.everyRule;
  }

  /** What the combined set says matches, or undefined when there is no set or it could not tell. */
  private setMatches(text: string | Buffer): readonly number[] | undefined {
    if (!this.set) return undefined;
    try {
      return this.set.match(text);
    } catch {
      // The set's DFA ran out of memory on this text: every rule runs, so nothing is missed.
      return undefined;
    }
  }

  private matchesIn(i: number, utf8: Buffer): boolean {
    const re = this.regexes[i];
    re.lastIndex = 0;
    const hit = re.test(utf8);
    re.lastIndex = 0;
    return hit;
  }

  private collect(i: number, text: string, found: RuleMatch[], afterSearch?: (matches: number) => void): void {
    const re = this.regexes[i];
    const confirm = this.rules[i].confirm;
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null; m = re.exec(text)) {
      afterSearch?.(found.length);
      const start = m.index;
      const value = m[0];
      const end = start + value.length;
      if (end === start) {
        // An empty match flags nothing; step over it or exec would return it forever.
        if (start >= text.length) break;
        re.lastIndex = nextIndex(text, start);
        continue;
      }
      const verdict = confirm ? confirm(value, text, start) : true;
      if (verdict === true) {
        found.push({ start, end, rule: i });
      } else if (verdict === false || verdict.length === 0) {
        if (this.retryInsideRefused) re.lastIndex = nextIndex(text, start);
      } else {
        for (const [s, e] of verdict) found.push({ start: s, end: e, rule: i });
      }
    }
  }
}

/** A text's UTF-8 bytes as RE2 reads them (Node's encoder: an unpaired surrogate becomes U+FFFD, as in RE2's own copy). */
export function utf8Of(text: string): Buffer {
  return Buffer.from(text, 'utf8');
}

function compileSet(rules: readonly Rule[], flags: string): RE2Set | undefined {
  try {
    return new RE2.Set(
      rules.map((r) => r.source),
      flags,
      { maxMem: SET_MAX_MEM },
    );
  } catch {
    // Some patterns compile alone but not together (memory budget): fall back to one pass per rule.
    return undefined;
  }
}
