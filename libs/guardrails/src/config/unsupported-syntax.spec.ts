import { findUnsupportedSyntax } from './unsupported-syntax';

const WHY = 'patterns run on RE2, a linear-time engine';

describe('findUnsupportedSyntax', () => {
  it.each([
    ['foo(?=bar)', `lookahead (?=...) is not supported: ${WHY}`],
    ['foo(?!bar)', `negative lookahead (?!...) is not supported: ${WHY}`],
    ['(?<=\\$)\\d+', `lookbehind (?<=...) is not supported: ${WHY}`],
    ['(?<!-)\\d+', `negative lookbehind (?<!...) is not supported: ${WHY}`],
    ['(a)\\1', `a backreference \\1 is not supported: ${WHY}`],
    ['(a)(b)\\9x', `a backreference \\9 is not supported: ${WHY}`],
    ['(?<q>[\'"]).*\\k<q>', `a backreference \\k<name> is not supported: ${WHY}`],
    ['(?P<q>a)(?P=q)', `a backreference (?P=name) is not supported: ${WHY}`],
    ['(?>a+)b', `an atomic group (?>...) is not supported: ${WHY}`],
    ['a++b', `a possessive quantifier (++) is not supported: ${WHY}`],
    ['\\d*+', `a possessive quantifier (*+) is not supported: ${WHY}`],
    ['a{2,3}+', `a possessive quantifier (}+) is not supported: ${WHY}`],
  ])('refuses %p, saying why', (pattern, message) => {
    expect(findUnsupportedSyntax(pattern)).toBe(message);
  });

  it.each([
    'plain',
    '(?<name>a)b', // a named group, not a lookbehind
    '(?P<name>a)',
    '(?i)abc',
    '(?:a|b)+?c', // lazy, not possessive
    'a??b',
    '\\(?=x', // an escaped parenthesis
    '[(?=]', // inside a class
    '[]\\1]x', // "]" first is literal; escapes in a class are RE2's business
    '[[:alpha:](?!]+',
    '\\\\1', // an escaped backslash then "1"
    '\\12', // octal in RE2
    'a+\\+', // a quantifier then an escaped plus
  ])('accepts %p', (pattern) => {
    expect(findUnsupportedSyntax(pattern)).toBeUndefined();
  });
});
