import { CONFUSABLES, canonicalLiteral, canonicalUnfolded, foldConfusables, isHiddenControl } from './canonicalize';

const RE2_SPECIAL = /[\\^$.*+?()[\]{}|]/g;

function escapeLiteral(text: string): string {
  return text.replace(RE2_SPECIAL, '\\$&');
}

/**
 * An RE2 pattern rewritten to match canonical text as the original pattern matches raw text:
 * its literal characters are put in canonical form (a Cyrillic "р" becomes "p", a fullwidth "Ａ"
 * becomes "A", a no-break space " "), and a bracketed class that holds a character (or range) with
 * a different canonical form also matches that form (a negated class is left as it is: adding
 * forms to it would exclude them too). A character beyond ASCII written as its code (`\x{e9}`,
 * `\xe9`, `\u{e9}`, `\u00e9`, octal `\351`) is that character; other escapes, properties and ASCII
 * are untouched, so an ASCII pattern without such escapes comes back unchanged.
 */
export function canonicalizePattern(pattern: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(pattern) && !/\\(?:x\{|x[89a-fA-F]|u\{|u[0-9a-fA-F]{2}|[2-7][0-7]{2})/.test(pattern))
    return pattern;
  let out = '';
  // Literal code points outside classes, canonicalized together at the end of each run, so a
  // look-alike is folded or kept by its neighbours as it would be in the text.
  let run: string[] = [];
  const flush = (): void => {
    out += literalRun(run);
    run = [];
  };
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch !== '\\' && ch !== '[' && !/[\^$.*+?(){}|]/.test(ch)) {
      const cp = pattern.codePointAt(i) as number;
      const width = cp > 0xffff ? 2 : 1;
      run.push(pattern.slice(i, i + width));
      i += width;
      continue;
    }
    const hex = ch === '\\' ? hexEscape(pattern, i) : undefined;
    if (hex && hex.cp >= 0x80) {
      run.push(String.fromCodePoint(hex.cp));
      i = hex.end;
      continue;
    }
    flush();
    if (ch === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2);
        const text = pattern.slice(i + 2, end < 0 ? pattern.length : end);
        out += `(?:${escapeLiteral(canonicalLiteral(text))})`;
        i = end < 0 ? pattern.length : end + 2;
        continue;
      }
      const cp = pattern.codePointAt(i + 1);
      const width = cp !== undefined && cp > 0xffff ? 2 : 1;
      const escaped = pattern.slice(i + 1, i + 1 + width);
      if (cp !== undefined && cp >= 0x80) out += literal(escaped);
      else out += `\\${escaped}`;
      i += 1 + width;
      continue;
    }
    if (ch === '[') {
      const end = classEnd(pattern, i);
      out += canonicalClass(pattern.slice(i, end));
      i = end;
      continue;
    }
    out += ch;
    i += 1;
  }
  flush();
  return out;
}

/**
 * A control character the pattern needs and canonical text never holds (isHiddenControl), or
 * undefined: one written outside a class (as itself, `\xHH`, `\x{H}`, octal, `\a`, inside
 * `\Q...\E`), or a class that holds nothing else (`[\x00-\x08]`). Such a pattern could never match.
 * A class that also holds other characters (`[\x00-\x7f]`, `[^\x00-\x1f]`, `\p{Cc}`) still can.
 */
export function hiddenControlIn(pattern: string): number | undefined {
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '[') {
      const end = classEnd(pattern, i);
      const found = onlyHiddenControls(pattern.slice(i, end));
      if (found !== undefined) return found;
      i = end;
      continue;
    }
    if (ch !== '\\') {
      const cp = pattern.codePointAt(i) as number;
      if (isHiddenControl(cp)) return cp;
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    if (pattern[i + 1] === 'Q') {
      const end = pattern.indexOf('\\E', i + 2);
      const text = pattern.slice(i + 2, end < 0 ? pattern.length : end);
      const hidden = [...text].find((c) => isHiddenControl(c.codePointAt(0) as number));
      if (hidden !== undefined) return hidden.codePointAt(0);
      i = end < 0 ? pattern.length : end + 2;
      continue;
    }
    const code = controlEscape(pattern, i) ?? hexEscape(pattern, i);
    if (code && isHiddenControl(code.cp)) return code.cp;
    i = code ? code.end : i + 2;
  }
  return undefined;
}

/** The escapes RE2 reads as a control character besides hexEscape's: `\\a`, `\\cX`, short octal, `\\x{...}` padded with zeros. */
function controlEscape(pattern: string, at: number): { cp: number; end: number } | undefined {
  const m = /^\\(?:(a)|c([@-_a-z])|([0-7]{1,3})|x\{0*([0-9a-fA-F]{1,6})\})/.exec(pattern.slice(at, at + 24));
  if (!m) return undefined;
  const cp = m[1]
    ? 0x07
    : m[2]
      ? m[2].toUpperCase().charCodeAt(0) & 0x1f
      : m[3]
        ? parseInt(m[3], 8)
        : parseInt(m[4], 16);
  return { cp, end: at + m[0].length };
}

/** The first hidden control of a class that names nothing but hidden controls (its ranges included), or undefined. */
function onlyHiddenControls(cls: string): number | undefined {
  if (!cls.endsWith(']') || cls.startsWith('[^')) return undefined;
  const items = classItems(cls.slice(1, -1));
  let first: number | undefined;
  for (let k = 0; k < items.length; k++) {
    const lo = items[k];
    if (lo < 0) return undefined;
    const hi = items[k + 1] === RANGE_DASH ? (items[k + 2] ?? NOT_A_CHAR) : lo;
    if (hi < 0) return undefined;
    for (let cp = lo; cp <= Math.min(hi, lo + 0x100); cp++) if (!isHiddenControl(cp)) return undefined;
    if (hi > lo + 0x100) return undefined;
    first ??= lo;
    if (items[k + 1] === RANGE_DASH) k += 2;
  }
  return first;
}

/** Literal code points in canonical form, each safe to quantify on its own. */
function literalRun(chars: readonly string[]): string {
  if (chars.length === 0) return '';
  const unfolded = chars.map(canonicalUnfolded);
  const folded = foldConfusables(unfolded.join(''));
  let at = 0;
  let out = '';
  for (let k = 0; k < chars.length; k++) {
    const canonical = folded.slice(at, at + unfolded[k].length);
    at += unfolded[k].length;
    if (canonical === chars[k]) out += chars[k];
    else if (canonical === '') out += '(?:)';
    else out += [...canonical].length === 1 ? escapeLiteral(canonical) : `(?:${escapeLiteral(canonical)})`;
  }
  return out;
}

/** One literal code point in canonical form, safe to quantify. */
function literal(c: string): string {
  const canonical = canonicalLiteral(c);
  if (canonical === c) return c;
  if (canonical === '') return '(?:)';
  const escaped = escapeLiteral(canonical);
  return [...canonical].length === 1 ? escaped : `(?:${escaped})`;
}

/** Index just past the class opening at `start` (as RE2 reads it: a leading `]` is literal). */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') i++;
  while (i < pattern.length && pattern[i] !== ']') {
    if (pattern[i] === '\\') i += 2;
    else if (pattern.startsWith('[:', i)) {
      const close = pattern.indexOf(':]', i + 2);
      i = close < 0 ? i + 1 : close + 2;
    } else i++;
  }
  return Math.min(i + 1, pattern.length);
}

/** `\x{HHHH}` or `\xHH` at `at` (RE2's hex escapes): the code point and the index just past it. */
function hexEscape(pattern: string, at: number): { cp: number; end: number } | undefined {
  const m = CODE_ESCAPE.exec(pattern.slice(at, at + 11));
  if (!m) return undefined;
  const cp = m[5] !== undefined ? parseInt(m[5], 8) : parseInt(m[1] ?? m[2] ?? m[3] ?? m[4], 16);
  // Half of a surrogate pair written as two escapes is left as written.
  return cp <= 0x10ffff && !(cp >= 0xd800 && cp <= 0xdfff) ? { cp, end: at + m[0].length } : undefined;
}

/** A character written as its code: `\x{HHHH}`, `\xHH`, `\u{HHHH}`, `\uHHHH` (the pattern's `u` mode) or octal `\OOO`. */
const CODE_ESCAPE =
  /^\\(?:x\{([0-9a-fA-F]{1,6})\}|x([0-9a-fA-F]{2})|u\{([0-9a-fA-F]{1,6})\}|u([0-9a-fA-F]{4})|([0-7]{3}))/;

/** Not a character in a class body: a class escape or property (`\d`, `\p{L}`, `[:alpha:]`). */
const NOT_A_CHAR = -1;
/** An unescaped `-`, which makes a range between two characters. */
const RANGE_DASH = -2;

/** The items of a class body: code points (escaped ones as the character they stand for), NOT_A_CHAR, RANGE_DASH. */
function classItems(body: string): number[] {
  const items: number[] = [];
  let i = 0;
  while (i < body.length) {
    if (body[i] === '\\') {
      const hex = hexEscape(body, i);
      if (hex) {
        items.push(hex.cp);
        i = hex.end;
        continue;
      }
      const next = body.codePointAt(i + 1);
      if (next === undefined) break;
      if (/[pP]/.test(body[i + 1]) && body[i + 2] === '{') {
        const close = body.indexOf('}', i + 3);
        items.push(NOT_A_CHAR);
        i = close < 0 ? body.length : close + 1;
      } else if (/[a-zA-Z0-9]/.test(body[i + 1])) {
        items.push(NOT_A_CHAR);
        i += /[pP]/.test(body[i + 1]) ? 3 : 2;
      } else {
        items.push(next);
        i += next > 0xffff ? 3 : 2;
      }
      continue;
    }
    if (body.startsWith('[:', i)) {
      const close = body.indexOf(':]', i + 2);
      items.push(NOT_A_CHAR);
      i = close < 0 ? i + 1 : close + 2;
      continue;
    }
    if (body[i] === '-') {
      items.push(RANGE_DASH);
      i++;
      continue;
    }
    const cp = body.codePointAt(i) as number;
    items.push(cp);
    i += cp > 0xffff ? 2 : 1;
  }
  return items;
}

/** A class plus the canonical forms of the non-ASCII characters and ranges it names. */
function canonicalClass(cls: string): string {
  if (!cls.endsWith(']')) return cls;
  const body = cls.slice(1, -1);
  // A negated class stays as written: the canonical forms added would be excluded as well.
  if (body.startsWith('^')) return cls;
  const extra = new Set<string>();
  const items = classItems(body);
  for (let k = 0; k < items.length; k++) {
    const lo = items[k];
    if (lo < 0) continue;
    const hi = items[k + 1] === RANGE_DASH ? (items[k + 2] ?? NOT_A_CHAR) : NOT_A_CHAR;
    if (hi >= 0) {
      for (const [cp, to] of CONFUSABLE_POINTS) if (cp >= lo && cp <= hi) extra.add(to);
      if (hi >= 0x80) {
        // Fullwidth ASCII and other compatibility forms in a range fold to their ASCII letters.
        for (let cp = Math.max(lo, 0x80); cp <= Math.min(hi, lo + 0x2000); cp++) {
          const canonical = otherCanonical(cp);
          if (canonical !== undefined) extra.add(canonical);
        }
      }
      k += 2;
      continue;
    }
    if (lo >= 0x80) addCanonical(String.fromCodePoint(lo), extra);
  }
  if (extra.size === 0) return cls;
  // A class of its own beside the one as written: added inside it, a character could meet a `-`
  // there and make a range.
  return `(?:${cls}|[${[...extra].map((c) => escapeLiteral(c).replace('-', '\\-')).join('')}])`;
}

function addCanonical(c: string, into: Set<string>): void {
  const canonical = otherCanonical(c.codePointAt(0) as number);
  if (canonical !== undefined) into.add(canonical);
}

/** CONFUSABLES by code point. */
const CONFUSABLE_POINTS: [number, string][] = Object.entries(CONFUSABLES).map(([from, to]) => [
  from.codePointAt(0) as number,
  to,
]);

/**
 * Each code point's canonical form when it is one other code point (else undefined), worked out
 * once per process and kept: a class of many wide ranges (a thousand-character pattern holds
 * about fifty `\x{80}-\x{10ffff}`) asks for thousands of code points per range, and a scanner has up
 * to a hundred such patterns, compiled on every save and every load: a hundred of them took 3.5 s
 * of compiling when each was worked out again. At most every code point once (0.7 s in all).
 */
/** Per code point: 0 not worked out yet, ITSELF, or OTHER (its form in canonicalForms). */
const canonicalState = new Uint8Array(0x110000);
const canonicalForms = new Map<number, string>();
const ITSELF = 1;
const OTHER = 2;

function otherCanonical(cp: number): string | undefined {
  const state = canonicalState[cp];
  if (state === OTHER) return canonicalForms.get(cp);
  if (state === ITSELF) return undefined;
  const c = String.fromCodePoint(cp);
  const canonical = canonicalLiteral(c);
  if (canonical !== c && [...canonical].length === 1) {
    canonicalState[cp] = OTHER;
    canonicalForms.set(cp, canonical);
    return canonical;
  }
  canonicalState[cp] = ITSELF;
  return undefined;
}
