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
 *    spaces and hyphens become their plain forms; a base and its marks compose). Marks that still
 *    stand after a digit of any script or a Latin, Greek, Cyrillic, Armenian or script-neutral base
 *    (a keycap U+20E3 on a digit, an underline U+0332 under a letter) are decoration a reader looks
 *    through: dropped, as are the marks of a segment that is nothing but marks (more than
 *    MAX_ATTACHED after one base). A letter of those scripts that NFKC composed with its accent
 *    (Unicode's canonical decomposition: "é", "ñ", "ά", "й") is read as its base letter: a reader
 *    sees "húnter2" as "hunter2", as it would "hu\u0301nter2" once its mark is dropped.
 * 3. Each code point of the result is folded: any remaining space separator becomes " ", line and
 *    paragraph separators "\n", dashes and minus signs "-", decimal digits of any script their
 *    ASCII digit, circled and other digit forms NFKC leaves alone (DIGIT_FORMS) their digits, and
 *    the Cyrillic, Greek and Armenian letters that look like Latin ones (CONFUSABLES) become those
 *    Latin letters (lower case to lower case, upper to upper). The control characters that
 *    separate text but that RE2's `\s` does not match (vertical tab and the information separators
 *    U+001C-U+001F) become " ", and NEL (U+0085) "\n", so "launch<VT>codes" is the phrase it reads as.
 *    The other control characters (HIDDEN_CONTROLS: C0 but tab, line breaks and the separators
 *    above, DEL, C1 but NEL) show as nothing and separate nothing: they attach to the segment
 *    before them and are removed with the format characters (step 2), so "pass<NUL>word" is the
 *    word a model reads.
 * 4. Tag characters (U+E0020-U+E007E), invisible to a reader but spelling ASCII to a model that
 *    reads them, are decoded to that ASCII in place, each its own segment: the model reads them
 *    joined to the text around them, and so do scanners. The other tag characters (U+E0000-U+E001F,
 *    U+E007F) are removed.
 *
 * Every canonical UTF-16 unit remembers the original segment it came from; `toOriginal` widens a
 * canonical span to whole original segments, so masking it never leaves half of a character (or
 * a zero-width character hiding inside a match) behind.
 *
 * Consequence for pattern authors: patterns see the canonical text. A pattern written with a
 * Cyrillic "р" or a Greek "ο" has those letters folded too (see canonicalizePattern), and
 * `\p{Cyrillic}` no longer matches the Cyrillic letters that look Latin.
 */
import { isHighSurrogate, isLowSurrogate } from '../engine/text-boundaries';

/** Attached code points per segment, as Unicode's stream-safe format (UAX #15) allows 30 non-starters. */
export const MAX_ATTACHED = 30;

/**
 * Look-alikes of Latin letters in other scripts, mapped to the Latin letter a reader takes them
 * for. Fullwidth, mathematical and other compatibility forms are already handled by NFKC.
 */
export const CONFUSABLES: Readonly<Record<string, string>> = {
  // Cyrillic
  '\u0430': 'a',
  '\u0435': 'e',
  '\u043e': 'o',
  '\u0440': 'p',
  '\u0441': 'c',
  '\u0443': 'y',
  '\u0445': 'x',
  '\u0455': 's',
  '\u0456': 'i',
  '\u0458': 'j',
  '\u04bb': 'h',
  '\u0501': 'd',
  '\u051b': 'q',
  '\u051d': 'w',
  '\u04cf': 'l',
  '\u0410': 'A',
  '\u0412': 'B',
  '\u0415': 'E',
  '\u041a': 'K',
  '\u041c': 'M',
  '\u041d': 'H',
  '\u041e': 'O',
  '\u0420': 'P',
  '\u0421': 'C',
  '\u0422': 'T',
  '\u0423': 'Y',
  '\u0425': 'X',
  '\u0405': 'S',
  '\u0406': 'I',
  '\u0408': 'J',
  '\u051a': 'Q',
  '\u051c': 'W',
  '\u04ba': 'H',
  '\u04c0': 'I',
  // Greek
  '\u0391': 'A',
  '\u0392': 'B',
  '\u0395': 'E',
  '\u0396': 'Z',
  '\u0397': 'H',
  '\u0399': 'I',
  '\u039a': 'K',
  '\u039c': 'M',
  '\u039d': 'N',
  '\u039f': 'O',
  '\u03a1': 'P',
  '\u03a4': 'T',
  '\u03a5': 'Y',
  '\u03a7': 'X',
  '\u03bf': 'o',
  '\u03bd': 'v',
  '\u03c1': 'p',
  '\u03b1': 'a',
  '\u03b9': 'i',
  '\u03ba': 'k',
  '\u03c5': 'u',
  '\u03f2': 'c',
  '\u03f3': 'j',
  '\u03f9': 'C',
  // Armenian
  '\u0585': 'o',
  '\u057d': 'u',
  '\u0578': 'n',
  '\u0570': 'h',
  '\u0555': 'O',
  '\u054d': 'U',
  // Latin letters that read as others
  '\u0131': 'i',
  '\u0251': 'a',
  '\u0261': 'g',
  '\u01c0': 'l',
};

/**
 * Digits NFKC leaves as they are though a reader reads them as digits: the double circled,
 * dingbat and negative circled forms (U+24EB-U+24FF, U+2776-U+2793, U+1F10B-U+1F10C) and
 * the Ethiopic digits one to nine (U+1369-U+1371). Their numbers past nine are their digits ("10").
 */
export const DIGIT_FORMS: ReadonlyMap<number, string> = (() => {
  const forms = new Map<number, string>();
  const run = (first: number, from: number, to: number) => {
    for (let v = from; v <= to; v++) forms.set(first + v - from, String(v));
  };
  run(0x24f5, 1, 10);
  run(0x2776, 1, 10);
  run(0x2780, 1, 10);
  run(0x278a, 1, 10);
  run(0x1369, 1, 9);
  run(0x24eb, 11, 20);
  forms.set(0x24ff, '0');
  forms.set(0x1f10b, '0');
  forms.set(0x1f10c, '0');
  return forms;
})();

/** Dash-like characters that are not `\p{Pd}`: minus signs and a few look-alikes. */
const EXTRA_DASHES = new Set(['\u2212', '\u2043', '\u02d7', '\u2796', '\ufe63', '\uff0d']);

/** Control characters that neither show nor separate (step 3): removed, as format characters are. */
const HIDDEN_CONTROLS = Array.from({ length: 0xa0 }, (_, c) => c)
  .filter(isHiddenControl)
  .map((c) => `\\x${c.toString(16).padStart(2, '0')}`)
  .join('');
const IGNORABLE = new RegExp(`^[\\p{Cf}\\p{Default_Ignorable_Code_Point}${HIDDEN_CONTROLS}]$`, 'u');
const IGNORABLES = new RegExp(`[\\p{Cf}\\p{Default_Ignorable_Code_Point}${HIDDEN_CONTROLS}]`, 'gu');
const MARK = /^\p{M}$/u;
const SPACE = /^\p{Zs}$/u;
const LINE_BREAK = /^[\p{Zl}\p{Zp}]$/u;
const DASH = /^\p{Pd}$/u;
const DIGIT = /^\p{Nd}$/u;
const MARKS = /\p{M}/gu;
/** Letters whose composed accents are read through (step 2). */
const ACCENTED_SCRIPT_LETTER = /^[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Armenian}]/u;
/** Other bases whose leftover marks are decoration (step 2; the scripts above have theirs read through). */
const PLAIN_SCRIPT_BASE = /^[\p{Nd}\p{Script=Common}]/u;
const TAG_FIRST = 0xe0000;
const TAG_LAST = 0xe007f;
/** ASCII that is its own canonical form: printable characters and the controls that show as space or a line break. */
// eslint-disable-next-line no-control-regex -- tab to carriage return and the information separators
const ASCII_ONLY = /^[\t-\r\x1c-\x7e]*$/;

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

/** Separating control characters (step 3): each folds to one unit, so offsets stay as they are. */
// eslint-disable-next-line no-control-regex -- these control characters are what it looks for
const SEPARATOR_CONTROL = /[\x0b\x1c-\x1f\x85]/;
// eslint-disable-next-line no-control-regex -- as above
const SEPARATOR_CONTROLS = /[\x0b\x1c-\x1f\x85]/g;

/** Canonical form of a whole text (see the module comment). Pure; linear in the text. */
export function canonicalize(text: string): CanonicalText {
  const form = canonicalForm(text);
  if (!SEPARATOR_CONTROL.test(form.text)) return form;
  return { original: text, text: foldSeparators(form.text), identity: false, toOriginal: form.toOriginal };
}

/** Canonical text with its separating control characters folded (step 3); most texts have none. */
function foldSeparators(text: string): string {
  return SEPARATOR_CONTROL.test(text) ? text.replace(SEPARATOR_CONTROLS, (c) => (c === '\x85' ? '\n' : ' ')) : text;
}

function canonicalForm(text: string): CanonicalText {
  if (ASCII_ONLY.test(text)) return identityOf(text);
  const unitForUnit = oneForOne(text);
  if (unitForUnit !== undefined) {
    // Every character is its own segment, its canonical form one unit: offsets are the same, and
    // look-alikes fold one unit for one too.
    const folded = foldConfusables(unitForUnit);
    if (folded === text) return identityOf(text);
    return { original: text, text: folded, identity: false, toOriginal: (start, end) => [start, Math.max(start, end)] };
  }
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

/** Where the last segment of `text` starts (0 for an empty text); a lone high surrogate ends it early. */
function segmentsEnd(text: string): number {
  let i = text.length;
  if (i === 0) return 0;
  const lastUnit = text.charCodeAt(i - 1);
  if (lastUnit >= 0xd800 && lastUnit <= 0xdbff) i--; // may pair up with what follows
  // Step back over attached code points to the one that starts the last segment.
  let steps = 0;
  for (let k = i; k > 0;) {
    const start = k - widthBefore(text, k);
    if (start === 0 || !attaches(text.codePointAt(start) as number)) return start;
    k = start;
    if (++steps > MAX_ATTACHED) break;
  }
  // A run of more attached code points than a segment holds: segment it from its start (by code
  // points: an astral attacher is two units).
  let runStart = i;
  while (runStart > 0) {
    const width = widthBefore(text, runStart);
    if (!attaches(text.codePointAt(runStart - width) as number)) break;
    runStart -= width;
  }
  let segStart = runStart === 0 ? 0 : runStart - widthBefore(text, runStart);
  let attached = 0;
  // At the very start the first code point begins a segment even though it would attach.
  const from = runStart === 0 ? ((text.codePointAt(0) as number) > 0xffff ? 2 : 1) : runStart;
  for (let k = from; k < i;) {
    const width = (text.codePointAt(k) as number) > 0xffff ? 2 : 1;
    if (attached < MAX_ATTACHED) attached++;
    else {
      segStart = k;
      attached = 0;
    }
    k += width;
  }
  return segStart;
}

/** UTF-16 units of the code point that ends at `k` (a surrogate pair is two). */
function widthBefore(text: string, k: number): number {
  return k >= 2 && isLowSurrogate(text.charCodeAt(k - 1)) && isHighSurrogate(text.charCodeAt(k - 2)) ? 2 : 1;
}

/**
 * Per BMP code unit: PLAIN_SELF when the character is its own segment and its own canonical form
 * (it attaches to nothing and NFKC and folding leave it), PLAIN_ONE when it is its own segment and
 * its canonical form is one other BMP unit (`ONE_UNIT`: an accented letter, a fullwidth one, a
 * no-break space, a digit of another script), PLAIN_NOT otherwise; 0 until first asked. Both kinds
 * keep offsets. Confusables count as PLAIN_SELF: their folding keeps lengths and runs over the
 * whole text afterwards.
 */
const PLAIN = new Uint8Array(0x10000);
const PLAIN_SELF = 1;
const PLAIN_ONE = 2;
const PLAIN_NOT = 3;
const ONE_UNIT = new Uint16Array(0x10000);
for (let c = 0; c < 0x80; c++) PLAIN[c] = isHiddenControl(c) ? PLAIN_NOT : PLAIN_SELF;

/** A control character that shows as nothing and separates nothing: canonical text has none (step 3). */
export function isHiddenControl(c: number): boolean {
  return c <= 0x08 || (c >= 0x0e && c <= 0x1b) || (c >= 0x7f && c <= 0x9f && c !== 0x85);
}

/** `text` with each character in its one-unit canonical form (before look-alikes), or undefined when one has none. */
function oneForOne(text: string): string | undefined {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const kind = plainKind(text.charCodeAt(i));
    if (kind === PLAIN_SELF) continue;
    if (kind === PLAIN_NOT) return undefined;
    out += text.slice(from, i) + String.fromCharCode(ONE_UNIT[text.charCodeAt(i)]);
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

function plainKind(c: number): number {
  let v = PLAIN[c];
  if (v === 0) {
    const ch = String.fromCharCode(c);
    if (isHighSurrogate(c) || isLowSurrogate(c) || attaches(c)) v = PLAIN_NOT;
    else {
      const canonical = canonicalSegment(ch);
      const unit = canonical.charCodeAt(0);
      if (canonical === ch) v = PLAIN_SELF;
      else if (canonical.length === 1 && !isHighSurrogate(unit) && !isLowSurrogate(unit)) {
        v = PLAIN_ONE;
        ONE_UNIT[c] = unit;
      } else v = PLAIN_NOT;
    }
    PLAIN[c] = v;
  }
  return v;
}

/** True when a code point joins the segment before it. */
export function attaches(cp: number): boolean {
  // The soft hyphen and the hidden controls; no mark or format character below U+0300 otherwise.
  if (cp < 0x300) return cp === 0xad || isHiddenControl(cp);
  if ((cp >= 0x1160 && cp <= 0x11ff) || (cp >= 0xd7b0 && cp <= 0xd7ff) || cp === 0xff9e || cp === 0xff9f) return true;
  if (isTag(cp)) return false; // decoded, each its own segment (step 4)
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
  const form = DIGIT_FORMS.get(cp);
  if (form !== undefined) return form;
  if (IGNORABLE.test(ch)) return '';
  return ch;
}

const NATIVE_SCRIPT = /^[\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Armenian}]$/u;
const LATIN_SOURCE = /^\p{Script=Latin}$/u;

/** A Cyrillic, Greek or Armenian letter that looks like no Latin one: the word is written in that script. */
function isNativeLetter(ch: string | undefined): boolean {
  return (
    ch !== undefined && ch !== '' && CONFUSABLES[ch] === undefined && NATIVE_SCRIPT.test(ch) && /^\p{L}$/u.test(ch)
  );
}

/**
 * Maps the look-alikes in `text` (CONFUSABLES) to Latin, except a Cyrillic, Greek or Armenian one
 * next to a letter of its script that looks like no Latin letter: "рау" and "іgnоrе" become
 * "pay" and "ignore", while "Привет" and "αβγ" stay as written. `before` and `after` are the code
 * points around `text` ('' at an edge). Every mapping is one UTF-16 unit to one, so offsets hold.
 */
export function foldConfusables(text: string, before = '', after = ''): string {
  CONFUSABLE.lastIndex = 0;
  if (!CONFUSABLE.test(text)) return text;
  return text.replace(CONFUSABLE, (ch: string, at: number) => {
    const latin = CONFUSABLES[ch];
    if (LATIN_SOURCE.test(ch)) return latin;
    const prev = at > 0 ? codePointBefore(text, at) : before;
    const next = at + 1 < text.length ? String.fromCodePoint(text.codePointAt(at + 1) as number) : after;
    return isNativeLetter(prev) || isNativeLetter(next) ? ch : latin;
  });
}

const CONFUSABLE = new RegExp(`[${Object.keys(CONFUSABLES).join('')}]`, 'g');

function codePointBefore(text: string, at: number): string {
  const low = text.charCodeAt(at - 1);
  if (at >= 2 && isLowSurrogate(low) && isHighSurrogate(text.charCodeAt(at - 2))) return text.slice(at - 2, at);
  return text[at - 1];
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

function isTag(cp: number): boolean {
  return cp >= TAG_FIRST && cp <= TAG_LAST;
}

/** The ASCII a tag character spells ('' for the language and cancel tags and the unassigned ones). */
function tagText(cp: number): string {
  return cp >= 0xe0020 && cp <= 0xe007e ? String.fromCharCode(cp - TAG_FIRST) : '';
}

/** The canonical form of one segment's text. */
function canonicalSegment(segment: string): string {
  const c0 = segment.charCodeAt(0);
  if (segment.length === 1 && c0 < 0x80 && !isHiddenControl(c0)) return segment;
  const first = segment.codePointAt(0) as number;
  if (isTag(first)) return tagText(first);
  let normal = segment.replace(IGNORABLES, '').normalize('NFKC');
  if (MARK.test(String.fromCodePoint(normal.codePointAt(0) ?? 0x20))) normal = normal.replace(MARKS, '');
  else if (ACCENTED_SCRIPT_LETTER.test(normal)) normal = normal.normalize('NFD').replace(MARKS, '');
  else if (normal.length > 1 && PLAIN_SCRIPT_BASE.test(normal)) {
    const base = String.fromCodePoint(normal.codePointAt(0) as number);
    normal = base + normal.slice(base.length).replace(MARKS, '');
  }
  let out = '';
  for (const ch of normal) out += fold(ch);
  return out;
}

function identityOf(text: string): CanonicalText {
  return { original: text, text, identity: true, toOriginal: (start, end) => [start, end] };
}

/**
 * Appends canonical text segment by segment and keeps the map back to the original as pieces:
 * an *identity* piece is a run of characters that are their own canonical form (offsets move
 * together), a *segment* piece is one segment whose canonical units all map to the whole original
 * segment. Plain text costs one piece per run, not one entry per character. Used whole by
 * `canonicalize`, chunk by chunk by `StreamCanonicalizer`.
 */
export class CanonicalBuilder {
  private readonly parts: string[] = [];
  private length = 0;
  /** Per piece: canonical start, original start, original end; identity when lengths agree and flagged. */
  private cStart: number[] = [];
  private oStart: number[] = [];
  private oEnd: number[] = [];
  private identity: boolean[] = [];
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
    if (ASCII_ONLY.test(text)) {
      // ASCII is its own canonical form, one segment per character; only the last may gain marks.
      const stop = final ? text.length : Math.max(0, text.length - 1);
      const added = text.slice(0, stop);
      if (stop > 0) this.pushIdentity(added, base);
      this.consumed = base + stop;
      return { added, stop };
    }
    const firstPart = this.parts.length;
    const stop = final ? text.length : segmentsEnd(text);
    let runStart = 0; // start of the current run of plain characters (each its own segment, one unit for one)
    let i = 0;
    while (i < stop) {
      const c = text.charCodeAt(i);
      if (plainKind(c) !== PLAIN_NOT) {
        i++;
        continue;
      }
      const cp = text.codePointAt(i) as number;
      // An attaching character joins the plain character before it (a segment closed before it
      // was closed because it was full, so then this one starts a segment of its own).
      const segStart = i > runStart && attaches(cp) ? i - 1 : i;
      if (segStart > runStart) this.pushRun(text.slice(runStart, segStart), base + runStart);
      let e = segStart + ((text.codePointAt(segStart) as number) > 0xffff ? 2 : 1);
      let attached = 0;
      while (e < stop && attached < MAX_ATTACHED) {
        const next = text.codePointAt(e) as number;
        if (!attaches(next)) break;
        attached++;
        e += next > 0xffff ? 2 : 1;
      }
      this.pushSegment(canonicalSegment(text.slice(segStart, e)), base + segStart, base + e);
      runStart = i = e;
    }
    if (stop > runStart) this.pushRun(text.slice(runStart, stop), base + runStart);
    this.consumed = base + stop;
    return { added: this.parts.slice(firstPart).join(''), stop };
  }

  /** A run of plain characters: in their one-unit canonical forms, offsets kept. */
  private pushRun(text: string, origStart: number): void {
    this.pushIdentity(oneForOne(text) as string, origStart);
  }

  private pushIdentity(text: string, origStart: number): void {
    const last = this.cStart.length - 1;
    if (last >= 0 && this.identity[last] && this.oEnd[last] === origStart) {
      this.oEnd[last] += text.length;
    } else {
      this.addPiece(this.length, origStart, origStart + text.length, true);
    }
    this.parts.push(text);
    this.length += text.length;
  }

  private pushSegment(canonical: string, origStart: number, origEnd: number): void {
    if (canonical === '') {
      // Nothing to show (a zero-width character alone): the previous unit's segment takes it, so
      // a span that ends there masks it too.
      const last = this.cStart.length - 1;
      if (last < 0) return;
      if (this.identity[last]) {
        // Split the identity run's last unit off as a segment of its own.
        const lastUnit = this.oEnd[last] - 1;
        if (this.oEnd[last] - this.oStart[last] === 1) this.identity[last] = false;
        else {
          this.oEnd[last] = lastUnit;
          this.addPiece(this.length - 1, lastUnit, lastUnit + 1, false);
        }
      }
      this.oEnd[this.cStart.length - 1] = origEnd;
      return;
    }
    this.addPiece(this.length, origStart, origEnd, false);
    this.parts.push(canonical);
    this.length += canonical.length;
  }

  private addPiece(cStart: number, oStart: number, oEnd: number, identity: boolean): void {
    this.cStart.push(cStart);
    this.oStart.push(oStart);
    this.oEnd.push(oEnd);
    this.identity.push(identity);
  }

  /** Index of the piece holding canonical unit `pos`. */
  private pieceAt(pos: number): number {
    let lo = 0;
    let hi = this.cStart.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.cStart[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Original offset where canonical unit `pos` begins (its segment's start). */
  private originalStart(pos: number): number {
    const k = this.pieceAt(pos);
    return this.identity[k] ? this.oStart[k] + (pos - this.cStart[k]) : this.oStart[k];
  }

  /** Original offset where canonical unit `pos` ends (its segment's end). */
  private originalEnd(pos: number): number {
    const k = this.pieceAt(pos);
    if (!this.identity[k]) return this.oEnd[k];
    return this.oStart[k] + (pos - this.cStart[k]) + 1;
  }

  /** Original span of canonical `[start, end)`. */
  toOriginal(start: number, end: number): [number, number] {
    if (end <= start) {
      const at = start >= this.length ? this.consumed : this.originalStart(Math.max(0, start));
      return [at, at];
    }
    return [this.originalStart(Math.max(0, start)), this.originalEnd(Math.min(end, this.length) - 1)];
  }

  /** The canonical text appended so far. */
  text(): string {
    if (this.parts.length > 1) this.parts.splice(0, this.parts.length, this.parts.join(''));
    return this.parts[0] ?? '';
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
    if (final) {
      const raw = this.held + added;
      this.held = '';
      return raw === '' ? '' : foldSeparators(foldConfusables(raw, this.before, ''));
    }
    if (added === '') return '';
    const last = lastCodePoint(added);
    const body = this.held + added.slice(0, added.length - last.length);
    this.held = last;
    if (body === '') return '';
    const out = foldSeparators(foldConfusables(body, this.before, last));
    this.before = lastCodePoint(body);
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
