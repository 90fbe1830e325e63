const WHY = 'patterns run on RE2, a linear-time engine';

const GROUP_OPENERS: readonly [opener: string, what: string][] = [
  ['(?=', 'lookahead (?=...)'],
  ['(?!', 'negative lookahead (?!...)'],
  ['(?<=', 'lookbehind (?<=...)'],
  ['(?<!', 'negative lookbehind (?<!...)'],
  ['(?>', 'an atomic group (?>...)'],
  ['(?P=', 'a backreference (?P=name)'],
];

const QUANTIFIER_BRACES = /^\{\d+(?:,\d*)?\}/;

/**
 * Names the first construct of a backtracking engine (PCRE, JavaScript) that RE2 refuses, with the
 * reason, or returns undefined. RE2 would refuse them too, but with "invalid perl operator: (?=",
 * which does not tell a user why a pattern that works elsewhere fails here.
 */
export function findUnsupportedSyntax(pattern: string): string | undefined {
  let i = 0;
  let afterQuantifier = false;
  while (i < pattern.length) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) && !/[0-9]/.test(pattern[i + 2] ?? '')) {
        return `a backreference \\${next} is not supported: ${WHY}`;
      }
      if (next === 'k' && pattern[i + 2] === '<') {
        return `a backreference \\k<name> is not supported: ${WHY}`;
      }
      i += 2;
      afterQuantifier = false;
    } else if (ch === '[') {
      i = skipClass(pattern, i);
      afterQuantifier = false;
    } else if (ch === '(') {
      const found = GROUP_OPENERS.find(([opener]) => pattern.startsWith(opener, i));
      if (found) return `${found[1]} is not supported: ${WHY}`;
      i++;
      afterQuantifier = false;
    } else if (ch === '*' || ch === '+' || ch === '?') {
      if (afterQuantifier && ch === '+')
        return `a possessive quantifier (${pattern.slice(i - 1, i + 1)}) is not supported: ${WHY}`;
      // `a+?` is lazy (supported); what follows it is not a quantifier's modifier.
      afterQuantifier = !afterQuantifier;
      i++;
    } else if (ch === '{' && QUANTIFIER_BRACES.test(pattern.slice(i, i + 24))) {
      i += (QUANTIFIER_BRACES.exec(pattern.slice(i, i + 24)) as RegExpExecArray)[0].length;
      afterQuantifier = true;
    } else {
      i++;
      afterQuantifier = false;
    }
  }
  return undefined;
}

/** Index just past the character class opening at `start`; in RE2 (as in Perl) a `]` first is literal. */
function skipClass(pattern: string, start: number): number {
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
  return i + 1;
}
