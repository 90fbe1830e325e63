/**
 * What an RE2 pattern can cost and how long its matches can be, read from its syntax without
 * compiling it. Two uses:
 *
 * - `maxLength`: the longest match in UTF-16 units (Infinity when a `*`, `+` or `{n,}` makes it
 *   unbounded). A stream holds back only that much text (see maxMatchLength).
 * - `programCost`: an estimate of the size of RE2's compiled program. RE2 compiles a class such
 *   as `\p{L}` into one instruction per UTF-8 byte range (hundreds), and a counted repetition
 *   `{1,400}` into 400 copies of its operand: `[\p{L}\p{N}]{1,400}` is a program of several
 *   hundred thousand instructions, a third of a second to compile and megabytes to hold. Patterns
 *   over PATTERN_PROGRAM_LIMIT are refused before RE2 ever sees them.
 *
 * The parser accepts RE2 syntax (https://github.com/google/re2/wiki/Syntax) loosely: it never
 * refuses a pattern (RE2 does that), and on anything it does not know it answers conservatively
 * (unbounded length, high cost).
 */

/** Estimated RE2 instructions one pattern may compile to (about 10 ms of compile time). */
export const PATTERN_PROGRAM_LIMIT = 20_000;
/** The same, summed over every pattern or keyword of one scanner. */
export const SCANNER_PROGRAM_LIMIT = 200_000;

export interface PatternAnalysis {
  /** Longest possible match in UTF-16 units; Infinity when unbounded. */
  readonly maxLength: number;
  /** Estimated size of the compiled program (instructions). */
  readonly programCost: number;
}

interface Node {
  max: number;
  cost: number;
  /** Units of the last literal of a `\Q...\E` run, which a following quantifier repeats alone. */
  tail?: number;
}

const EMPTY: Node = { max: 0, cost: 1 };

/** Analyses one pattern (see the module comment). */
export function analysePattern(pattern: string): PatternAnalysis {
  const parser = new Parser(pattern);
  const node = parser.alternation();
  return { maxLength: node.max, programCost: node.cost };
}

const rangeCounts = new Map<string, { ranges: number; astral: boolean }>();

/** Every code point but the surrogates, in order, built when first needed (about 4 MB). */
let allCodePoints: string | undefined;
const BMP_UNITS = 0x10000 - 0x800;

function everyCodePoint(): string {
  if (allCodePoints === undefined) {
    const parts: string[] = [];
    for (let start = 0; start <= 0x10ffff; start += 0x1000) {
      const chunk: number[] = [];
      for (let cp = start; cp < start + 0x1000 && cp <= 0x10ffff; cp++) if (cp < 0xd800 || cp > 0xdfff) chunk.push(cp);
      parts.push(String.fromCodePoint(...chunk));
    }
    allCodePoints = parts.join('');
  }
  return allCodePoints;
}

/**
 * How many code point ranges a `\p{Name}` class holds: the runs of matching code points in a
 * string of every code point, found by one regular expression pass (cached per name).
 */
function propertyRanges(name: string): { ranges: number; astral: boolean } {
  let known = rangeCounts.get(name);
  if (known) return known;
  let re: RegExp;
  try {
    re = new RegExp(`\\p{${unicodeName(name)}}+`, 'gu');
  } catch {
    known = { ranges: 700, astral: true };
    rangeCounts.set(name, known);
    return known;
  }
  let ranges = 0;
  let astral = false;
  for (const m of everyCodePoint().matchAll(re)) {
    ranges++;
    if ((m.index as number) + m[0].length > BMP_UNITS) astral = true;
  }
  known = { ranges, astral };
  rangeCounts.set(name, known);
  return known;
}

/** RE2 names scripts and general categories as JavaScript does, except `Any`. */
function unicodeName(name: string): string {
  if (name === 'Any') return 'Any';
  if (/^[A-Z][a-z]?$/.test(name)) return `General_Category=${name}`;
  return `Script=${name}`;
}

/** An atom matching one code point from `ranges` ranges; astral ones take two UTF-16 units. */
function charClass(ranges: number, astral: boolean): Node {
  // UTF-8 compilation splits ranges by encoded length: roughly three instructions per range.
  return { max: astral ? 2 : 1, cost: Math.max(1, ranges * 3) };
}

const ANY_CHAR = charClass(4, true);
const ASCII_CLASS = (ranges: number): Node => charClass(ranges, false);

class Parser {
  private i = 0;
  private caseFold = false;

  constructor(private readonly p: string) {}

  alternation(): Node {
    let node = this.concatenation();
    while (this.p[this.i] === '|') {
      this.i++;
      const other = this.concatenation();
      node = { max: Math.max(node.max, other.max), cost: node.cost + other.cost + 1 };
    }
    return node;
  }

  private concatenation(): Node {
    let max = 0;
    let cost = 0;
    while (this.i < this.p.length && this.p[this.i] !== '|' && this.p[this.i] !== ')') {
      const atom = this.repeated(this.atom());
      max += atom.max;
      cost += atom.cost;
    }
    return { max, cost: Math.max(cost, 1) };
  }

  private repeated(atom: Node): Node {
    for (;;) {
      const ch = this.p[this.i];
      let min: number;
      let max: number;
      if (ch === '*' || ch === '+' || ch === '?') {
        this.i++;
        [min, max] = ch === '?' ? [0, 1] : [ch === '+' ? 1 : 0, Infinity];
      } else if (ch === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i, this.i + 24));
        if (!m) return atom; // a literal "{"
        this.i += m[0].length;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]);
      } else {
        return atom;
      }
      if (this.p[this.i] === '?') this.i++; // lazy
      const copies = Number.isFinite(max) ? Math.max(max, 1) : Math.max(min, 1);
      const head = atom.tail === undefined ? 0 : atom.max - atom.tail;
      const unit = atom.tail ?? atom.max;
      atom = {
        max: head + (max === 0 || unit === 0 ? 0 : unit * max),
        cost: atom.cost * copies + 1,
      };
    }
  }

  private atom(): Node {
    const ch = this.p[this.i];
    if (ch === '(') return this.group();
    if (ch === '[') return this.bracket();
    if (ch === '\\') return this.escape();
    this.i++;
    if (ch === '^' || ch === '$') return EMPTY;
    if (ch === '.') return ANY_CHAR;
    return this.literal(ch === undefined ? 0 : (this.p.codePointAt(this.i - 1) as number), ch);
  }

  private literal(cp: number, ch: string): Node {
    if (cp > 0xffff) this.i++;
    void ch;
    return { max: cp > 0xffff ? 2 : 1, cost: this.caseFold ? 2 : 1 };
  }

  private group(): Node {
    this.i++;
    const saved = this.caseFold;
    if (this.p[this.i] === '?') {
      const m = /^\?(?:P?<[^>]*>|([a-zA-Z-]*)(:|\)))/.exec(this.p.slice(this.i, this.i + 64));
      if (m) {
        this.i += m[0].length;
        if (m[1] !== undefined) this.applyFlags(m[1]);
        if (m[2] === ')') return EMPTY; // (?i) applies to the rest of the enclosing group
      }
    }
    const inner = this.alternation();
    if (this.p[this.i] === ')') this.i++;
    // Flags set inside a group end with it.
    this.caseFold = saved;
    return inner;
  }

  private applyFlags(flags: string): void {
    const [on, off = ''] = flags.split('-');
    if (on.includes('i')) this.caseFold = true;
    if (off.includes('i')) this.caseFold = false;
  }

  private escape(): Node {
    const next = this.p[this.i + 1] ?? '';
    this.i += 2;
    if ('bBAzZ'.includes(next)) return EMPTY;
    if ('dsw'.includes(next)) return ASCII_CLASS(next === 'd' ? 1 : next === 's' ? 4 : 4);
    if ('DSW'.includes(next)) return ANY_CHAR;
    if (next === 'p' || next === 'P') return this.property(next === 'P');
    if (next === 'Q') {
      const end = this.p.indexOf('\\E', this.i);
      const text = this.p.slice(this.i, end < 0 ? this.p.length : end);
      this.i = end < 0 ? this.p.length : end + 2;
      const last = [...text].pop() ?? '';
      return { max: text.length, cost: Math.max(1, text.length), tail: last.length };
    }
    if (next === 'x') {
      const m = /^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{2}/.exec(this.p.slice(this.i, this.i + 10));
      if (m) this.i += m[0].length;
      const cp = m ? parseInt(m[1] ?? m[0], 16) : 0;
      return { max: cp > 0xffff ? 2 : 1, cost: 1 };
    }
    if (next === 'C') return ANY_CHAR;
    const cp = this.p.codePointAt(this.i - 1) ?? 0;
    if (cp > 0xffff) this.i++;
    return { max: cp > 0xffff ? 2 : 1, cost: 1 };
  }

  private property(negated: boolean): Node {
    let name: string;
    if (this.p[this.i] === '{') {
      const close = this.p.indexOf('}', this.i);
      name = this.p.slice(this.i + 1, close < 0 ? this.p.length : close);
      this.i = close < 0 ? this.p.length : close + 1;
    } else {
      name = this.p[this.i] ?? '';
      this.i++;
    }
    if (name.startsWith('^')) {
      name = name.slice(1);
      negated = !negated;
    }
    const { ranges, astral } = propertyRanges(name);
    return charClass(ranges + (negated ? 1 : 0), astral || negated);
  }

  /** A bracketed class: one code point; its cost is its ranges. */
  private bracket(): Node {
    this.i++;
    let negated = false;
    if (this.p[this.i] === '^') {
      negated = true;
      this.i++;
    }
    let ranges = 0;
    let astral = negated;
    let first = true;
    while (this.i < this.p.length && (first || this.p[this.i] !== ']')) {
      first = false;
      if (this.p.startsWith('[:', this.i)) {
        const close = this.p.indexOf(':]', this.i + 2);
        this.i = close < 0 ? this.p.length : close + 2;
        ranges += 4;
        continue;
      }
      if (this.p[this.i] === '\\') {
        const next = this.p[this.i + 1] ?? '';
        if (next === 'p' || next === 'P') {
          this.i += 2;
          const node = this.property(next === 'P');
          ranges += node.cost / 3;
          astral ||= node.max > 1;
          continue;
        }
        if ('dswDSW'.includes(next)) {
          this.i += 2;
          ranges += 4;
          astral ||= 'DSW'.includes(next);
          continue;
        }
      }
      const lo = this.classChar();
      if (this.p[this.i] === '-' && this.p[this.i + 1] !== ']' && this.i + 1 < this.p.length) {
        this.i++;
        const hi = this.classChar();
        astral ||= hi > 0xffff;
        // A wide range of letters folds case into many small ranges.
        ranges += this.caseFold ? Math.min(Math.max(1, hi - lo), 200) : 1;
      } else {
        astral ||= lo > 0xffff;
        ranges += this.caseFold ? 2 : 1;
      }
    }
    this.i++; // ]
    return charClass(Math.max(1, ranges) + (negated ? 1 : 0), astral);
  }

  /** One code point of a class, escapes decoded as far as their value matters. */
  private classChar(): number {
    if (this.p[this.i] === '\\') {
      const next = this.p[this.i + 1] ?? '';
      if (next === 'x') {
        this.i += 2;
        const m = /^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{2}/.exec(this.p.slice(this.i, this.i + 10));
        if (m) this.i += m[0].length;
        return m ? parseInt(m[1] ?? m[0], 16) : 0;
      }
      this.i += 2;
      return next.codePointAt(0) ?? 0;
    }
    const cp = this.p.codePointAt(this.i) ?? 0;
    this.i += cp > 0xffff ? 2 : 1;
    return cp;
  }
}
