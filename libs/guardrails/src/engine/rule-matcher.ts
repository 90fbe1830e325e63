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
   */
  find(text: string, afterSearch?: (matches: number) => void): RuleMatch[] {
    const found: RuleMatch[] = [];
    for (const i of this.rulesThatMatch(text)) this.collect(i, text, found, afterSearch);
    return found.sort((a, b) => a.start - b.start || a.end - b.end || a.rule - b.rule);
  }

  /** Rules that match somewhere in `text` (all of them when the combined set cannot tell). */
  rulesThatMatch(text: string): readonly number[] {
    if (!this.set) return this.everyRule;
    try {
      return this.set.match(text);
    } catch {
      // The set's DFA ran out of memory on this text: every rule runs, so nothing is missed.
      return this.everyRule;
    }
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
