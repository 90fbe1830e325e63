/**
 * The canonical text scanners read. A model reads "4111 1111 1111 1111" with no-break spaces,
 * fullwidth digits or a zero-width space inside as the card number it is; a scanner reading raw
 * code points does not. So every scanner runs on a canonical form of the text, and what it finds
 * maps back to the original characters, so a redaction masks exactly what the client or model
 * would have seen.
 *
 * The canonical form, unit by unit:
 *
 * 1. The text is cut into *segments*: a code point plus every following code point that attaches
 *    to it (combining marks `\p{M}`, format and default-ignorable characters, Hangul medial and
 *    final jamo, the halfwidth voiced sound marks U+FF9E/U+FF9F), at most MAX_ATTACHED of them.
 *    Whether a code point starts a segment depends on that code point alone, so the segments of a
 *    prefix are the segments of the whole text, except the last one.
 * 2. In each segment, format (`\p{Cf}`) and default-ignorable characters are removed (zero-width
 *    spaces and joiners, soft hyphens, bidi controls, variation selectors, BOM), then it is put in
 *    NFKC (fullwidth forms, ligatures, mathematical letters, no-break and other compatibility
 *    spaces and hyphens become their plain forms; a base and its marks compose).
 * 3. Each code point of the result is folded: any remaining space separator becomes " ", line and
 *    paragraph separators "\n", dashes and minus signs "-", decimal digits of any script their
 *    ASCII digit, and the Cyrillic, Greek and Armenian letters that look like Latin ones
 *    (CONFUSABLES) become those Latin letters (lower case to lower case, upper to upper).
 *
 * Every canonical UTF-16 unit remembers the original segment it came from; `toOriginal` widens a
 * canonical span to whole original segments, so masking it never leaves half of a character (or
 * a zero-width character hiding inside a match) behind.
 *
 * Consequence for pattern authors: patterns see the canonical text. A pattern written with a
 * Cyrillic "р" or a Greek "ο" has those letters folded too (see canonicalizePattern), and
 * `\p{Cyrillic}` no longer matches the Cyrillic letters that look Latin.
 */

/** Attached code points per segment, as Unicode's stream-safe format (UAX #15) allows 30 non-starters. */
export const MAX_ATTACHED = 30;

/**
 * Look-alikes of Latin letters in other scripts, mapped to the Latin letter a reader takes them
 * for. Fullwidth, mathematical and other compatibility forms are already handled by NFKC.
 */
export const CONFUSABLES: Readonly<Record<string, string>> = {
  // Cyrillic
  '\u0430': 'a', '\u0435': 'e', '\u043e': 'o', '\u0440': 'p', '\u0441': 'c', '\u0443': 'y', '\u0445': 'x',
  '\u0455': 's', '\u0456': 'i', '\u0458': 'j', '\u04bb': 'h', '\u0501': 'd', '\u051b': 'q', '\u051d': 'w',
  '\u04cf': 'l', '\u0410': 'A', '\u0412': 'B', '\u0415': 'E', '\u041a': 'K', '\u041c': 'M', '\u041d': 'H',
  '\u041e': 'O', '\u0420': 'P', '\u0421': 'C', '\u0422': 'T', '\u0423': 'Y', '\u0425': 'X', '\u0405': 'S',
  '\u0406': 'I', '\u0408': 'J', '\u051a': 'Q', '\u051c': 'W', '\u04ba': 'H', '\u04c0': 'I',
  // Greek
  '\u0391': 'A', '\u0392': 'B', '\u0395': 'E', '\u0396': 'Z', '\u0397': 'H', '\u0399': 'I', '\u039a': 'K',
  '\u039c': 'M', '\u039d': 'N', '\u039f': 'O', '\u03a1': 'P', '\u03a4': 'T', '\u03a5': 'Y', '\u03a7': 'X',
  '\u03bf': 'o', '\u03bd': 'v', '\u03c1': 'p', '\u03b1': 'a', '\u03b9': 'i', '\u03ba': 'k', '\u03c5': 'u',
  '\u03f2': 'c', '\u03f3': 'j', '\u03f9': 'C',
  // Armenian
  '\u0585': 'o', '\u057d': 'u', '\u0578': 'n', '\u0570': 'h', '\u0555': 'O', '\u054d': 'U',
  // Latin letters that read as others
  '\u0131': 'i', '\u0251': 'a', '\u0261': 'g', '\u01c0': 'l',
};

/** Dash-like characters that are not `\p{Pd}`: minus signs and a few look-alikes. */
const EXTRA_DASHES = new Set(['\u2212', '\u2043', '\u02d7', '\u2796', '\ufe63', '\uff0d']);

const IGNORABLE = /^[\p{Cf}\p{Default_Ignorable_Code_Point}]$/u;
const IGNORABLES = /[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;
const MARK = /^\p{M}$/u;
const SPACE = /^\p{Zs}$/u;
const LINE_BREAK = /^[\p{Zl}\p{Zp}]$/u;
const DASH = /^\p{Pd}$/u;
const DIGIT = /^\p{Nd}$/u;
const ASCII_ONLY = /^[\x00-\x7f]*$/;

/** A canonical text and the way back to the original. */
export interface CanonicalText {
  /** The text as given. */
  readonly original: string;
  /** What scanners read. */
  readonly text: string;
  /**
   * The original span `[start, end)` whose segments produced canonical `[start, end)`. An empty
   * span maps to an empty span at the matching original position.
   */
  toOriginal(start: number, end: number): [number, number];
  /** True when the canonical text is the original unchanged (offsets are the same). */
  readonly identity: boolean;
}

/** Canonical form of a whole text (see the module comment). Pure; linear in the text. */
export function canonicalize(text: string): CanonicalText {
  if (ASCII_ONLY.test(text)) return identityOf(text);
  const out = new CanonicalBuilder();
  out.append(text, 0, true);
  return out.result(text);
}

/**
 * How many trailing UTF-16 units of `text` may still canonicalize differently once more text
 * follows: the last segment (a following combining mark, zero-width character or jamo would join
 * it), or a lone high surrogate. A stream canonicalizes `text.slice(0, text.length - unstable)`
 * now and keeps the rest for the next chunk: the canonical form of a prefix cut there is a prefix
 * of the canonical form of the whole.
 */
export function unstableTail(text: string): number {
  return text.length - segmentsEnd(text);
}

/** Where the last segment of `text` starts (the length, when it ends in a closed segment). */
function segmentsEnd(text: string): number {
  let start = 0;
  let attached = 0;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i) as number;
    const width = cp > 0xffff ? 2 : 1;
    if (width === 1 && cp >= 0xd800 && cp <= 0xdbff) return Math.min(start, i); // lone high surrogate: may pair up
    if (i > 0 && attached < MAX_ATTACHED && attaches(cp)) attached++;
    else {
      start = i;
      attached = 0;
    }
    i += width;
  }
  return text.length === 0 ? 0 : start;
}

/** True when a code point joins the segment before it. */
export function attaches(cp: number): boolean {
  if (cp < 0x300) return cp === 0xad; // soft hyphen; no mark or format character below U+0300 otherwise
  if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff) || cp === 0xff9e || cp === 0xff9f) return true;
  const ch = String.fromCodePoint(cp);
  return MARK.test(ch) || IGNORABLE.test(ch);
}

/** The canonical form of one code point already in NFKC, or '' when it is dropped (confusables aside). */
function fold(ch: string): string {
  const cp = ch.codePointAt(0) as number;
  if (cp < 0x80) return ch;
  if (SPACE.test(ch)) return ' ';
  if (LINE_BREAK.test(ch)) return '\n';
  if (DASH.test(ch) || EXTRA_DASHES.has(ch)) return '-';
  if (DIGIT.test(ch)) return String(digitValue(cp));
  if (IGNORABLE.test(ch)) return '';
  return ch;
}

const NATIVE_SCRIPT = /^[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]$/u;
const LATIN_SOURCE = /^\p{Script=Latin}$/u;

/** A Cyrillic, Greek or Armenian letter that looks like no Latin one: the word is written in that script. */
function isNativeLetter(ch: string | undefined): boolean {
  return ch !== undefined && ch !== '' && CONFUSABLES[ch] === undefined && NATIVE_SCRIPT.test(ch) && /^\p{L}$/u.test(ch);
}

/**
 * Maps the look-alikes in `text` (CONFUSABLES) to Latin, except a Cyrillic, Greek or Armenian one
 * next to a letter of its script that looks like no Latin letter: "рау" and "іgnоrе" become
 * "pay" and "ignore", while "Привет" and "αβγ" stay as written. `before` and `after` are the code
 * points around `text` ('' at an edge). Every mapping is one UTF-16 unit to one, so offsets hold.
 */
export function foldConfusables(text: string, before = '', after = ''): string {
  let out = '';
  let prev = before;
  const chars = [...text];
  for (let k = 0; k < chars.length; k++) {
    const ch = chars[k];
    const latin = CONFUSABLES[ch];
    const next = k + 1 < chars.length ? chars[k + 1] : after;
    if (latin === undefined || (!LATIN_SOURCE.test(ch) && (isNativeLetter(prev) || isNativeLetter(next)))) out += ch;
    else out += latin;
    prev = ch;
  }
  return out;
}

const digitZero = new Map<number, number>();

/** Decimal digits come in runs of ten, zero first: the value is the distance from the run's zero. */
function digitValue(cp: number): number {
  let zero = digitZero.get(cp);
  if (zero === undefined) {
    zero = cp;
    while (zero > 0 && DIGIT.test(String.fromCodePoint(zero - 1))) zero--;
    digitZero.set(cp, zero);
  }
  return (cp - zero) % 10;
}

/** The canonical form of one segment's text. */
function canonicalSegment(segment: string): string {
  if (segment.length === 1 && segment.charCodeAt(0) < 0x80) return segment;
  const normal = segment.replace(IGNORABLES, '').normalize('NFKC');
  let out = '';
  for (const ch of normal) out += fold(ch);
  return out;
}

function identityOf(text: string): CanonicalText {
  return { original: text, text, identity: true, toOriginal: (start, end) => [start, end] };
}

/**
 * Appends canonical text segment by segment, recording for every canonical unit the original
 * segment it came from. Used whole by `canonicalize`, chunk by chunk by `StreamCanonicalizer`.
 */
export class CanonicalBuilder {
  private readonly parts: string[] = [];
  private length = 0;
  private starts: Int32Array = new Int32Array(64);
  private ends: Int32Array = new Int32Array(64);
  /** Original length consumed so far. */
  consumed = 0;

  /** Canonical length so far. */
  get canonicalLength(): number {
    return this.length;
  }

  /**
   * Appends the segments of `text` (which starts at original offset `base`); unless `final`, the
   * last segment is left out. Returns the canonical text added and the offset in `text` where
   * what was left out begins.
   */
  append(text: string, base: number, final: boolean): { added: string; stop: number } {
    const firstPart = this.parts.length;
    const stop = final ? text.length : segmentsEnd(text);
    let segStart = 0;
    let attached = 0;
    let i = 0;
    while (i < stop) {
      const cp = text.codePointAt(i) as number;
      const width = cp > 0xffff ? 2 : 1;
      if (i > segStart && attached < MAX_ATTACHED && attaches(cp)) {
        attached++;
      } else if (i > segStart) {
        this.push(canonicalSegment(text.slice(segStart, i)), base + segStart, base + i);
        segStart = i;
        attached = 0;
      }
      i += width;
    }
    if (stop > segStart) this.push(canonicalSegment(text.slice(segStart, stop)), base + segStart, base + stop);
    this.consumed = base + stop;
    return { added: this.parts.slice(firstPart).join(''), stop };
  }

  private push(canonical: string, origStart: number, origEnd: number): void {
    if (canonical === '') {
      // Nothing to show (a zero-width character alone): extend the previous unit's segment, so a
      // span that ends there masks it too.
      if (this.length > 0) this.ends[this.length - 1] = origEnd;
      return;
    }
    const needed = this.length + canonical.length;
    if (needed > this.starts.length) {
      const size = Math.max(needed, this.starts.length * 2);
      const starts = new Int32Array(size);
      starts.set(this.starts.subarray(0, this.length));
      const ends = new Int32Array(size);
      ends.set(this.ends.subarray(0, this.length));
      this.starts = starts;
      this.ends = ends;
    }
    for (let k = this.length; k < needed; k++) {
      this.starts[k] = origStart;
      this.ends[k] = origEnd;
    }
    this.parts.push(canonical);
    this.length = needed;
  }

  /** The canonical text appended so far. */
  text(): string {
    if (this.parts.length > 1) this.parts.splice(0, this.parts.length, this.parts.join(''));
    return this.parts[0] ?? '';
  }

  /** Original span of canonical `[start, end)`. */
  toOriginal(start: number, end: number): [number, number] {
    if (end <= start) {
      const at = start >= this.length ? this.consumed : this.starts[start];
      return [at, at];
    }
    return [this.starts[Math.max(0, start)], this.ends[Math.min(end, this.length) - 1]];
  }

  result(original: string): CanonicalText {
    const text = foldConfusables(this.text());
    return { original, text, identity: false, toOriginal: (s, e) => this.toOriginal(s, e) };
  }
}

/**
 * Canonicalizes a text that arrives in chunks. `push` returns the canonical text that became
 * stable (never changes again); `finish` returns the rest. The concatenation of everything
 * returned equals `canonicalize(whole).text`, and `toOriginal` maps canonical offsets (counted from
 * the start of the stream) to original offsets (likewise).
 */
export class StreamCanonicalizer {
  private readonly builder = new CanonicalBuilder();
  private pending = '';
  /** Canonical code point not yet emitted: its confusable folding waits for the next one. */
  private held = '';
  /** The last code point emitted (unfolded), the left neighbour of `held`. */
  private before = '';

  push(chunk: string): string {
    const text = this.pending + chunk;
    const { added, stop } = this.builder.append(text, this.builder.consumed, false);
    this.pending = text.slice(stop);
    return this.emit(added, false);
  }

  finish(): string {
    const { added } = this.builder.append(this.pending, this.builder.consumed, true);
    this.pending = '';
    return this.emit(added, true);
  }

  private emit(added: string, final: boolean): string {
    const raw = this.held + added;
    if (raw === '') return '';
    if (final) {
      this.held = '';
      return foldConfusables(raw, this.before, '');
    }
    const last = lastCodePoint(raw);
    const body = raw.slice(0, raw.length - last.length);
    this.held = last;
    const out = foldConfusables(body, this.before, last);
    if (body !== '') this.before = lastCodePoint(body);
    return out;
  }

  /** Canonical characters emitted so far. */
  get length(): number {
    return this.builder.canonicalLength - this.held.length;
  }

  /** Original offset up to which the emitted canonical text accounts for the input. */
  get consumed(): number {
    return this.held === '' ? this.builder.consumed : this.builder.toOriginal(this.length, this.length)[0];
  }

  toOriginal(start: number, end: number): [number, number] {
    return this.builder.toOriginal(start, end);
  }
}

function lastCodePoint(text: string): string {
  const n = text.length;
  const low = text.charCodeAt(n - 1);
  if (n >= 2 && low >= 0xdc00 && low <= 0xdfff) {
    const high = text.charCodeAt(n - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.slice(n - 2);
  }
  return text.slice(n - 1);
}

/**
 * A keyword or other literal, put in the canonical form, so it matches the canonical text (a
 * keyword typed with a no-break space or a Cyrillic "о" still matches).
 */
export function canonicalLiteral(literal: string): string {
  return canonicalize(literal).text;
}

/** The canonical form of a text before look-alikes are folded (steps 1 to 3 but CONFUSABLES). */
export function canonicalUnfolded(text: string): string {
  if (ASCII_ONLY.test(text)) return text;
  const out = new CanonicalBuilder();
  out.append(text, 0, true);
  return out.text();
}
