/**
 * Boundary checks done in JavaScript because RE2 has no lookaround and its `\b` only knows ASCII:
 * a keyword like "Привет" or a card number after "é" needs Unicode-aware edges.
 */
const WORD_CHAR = /^[\p{L}\p{N}\p{M}_]$/u;
const DIGIT = /^[0-9]$/;

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

export function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** The code point that ends at `index`, or '' at the start of the text. */
export function charBefore(text: string, index: number): string {
  if (index <= 0) return '';
  const low = text.charCodeAt(index - 1);
  if (index >= 2 && isLowSurrogate(low) && isHighSurrogate(text.charCodeAt(index - 2))) {
    return text.slice(index - 2, index);
  }
  return text[index - 1];
}

/** The code point that starts at `index`, or '' at the end of the text. */
export function charAt(text: string, index: number): string {
  if (index >= text.length) return '';
  const cp = text.codePointAt(index);
  return cp === undefined ? '' : String.fromCodePoint(cp);
}

/** The offset just past the code point at `index`, so a scan never splits a surrogate pair. */
export function nextIndex(text: string, index: number): number {
  return index + (isHighSurrogate(text.charCodeAt(index)) && isLowSurrogate(text.charCodeAt(index + 1)) ? 2 : 1);
}

export function isWordChar(ch: string): boolean {
  return WORD_CHAR.test(ch);
}

/**
 * True when `[start, end)` is not part of a longer word. An edge that is not itself a word
 * character (the "#" of "#tag", the "+" of "C++") needs no boundary on that side.
 */
export function isWholeWord(text: string, start: number, end: number): boolean {
  if (isWordChar(charAt(text, start)) && isWordChar(charBefore(text, start))) return false;
  if (isWordChar(charBefore(text, end)) && isWordChar(charAt(text, end))) return false;
  return true;
}

/**
 * True when a detected value stands on its own: no letter or digit touches it, and no `joiners`
 * character links it to a further digit ("123-45-6789-0", "10.0.0.1.5" are parts of something else).
 */
export function standsAlone(text: string, start: number, end: number, joiners = ''): boolean {
  const before = charBefore(text, start);
  const after = charAt(text, end);
  if (isWordChar(before) || isWordChar(after)) return false;
  if (before !== '' && joiners.includes(before) && DIGIT.test(charBefore(text, start - before.length))) return false;
  if (after !== '' && joiners.includes(after) && DIGIT.test(charAt(text, end + after.length))) return false;
  return true;
}
