import fc from 'fast-check';
import RE2 from 're2';
import { prefixPattern } from './prefix-pattern';

const PATTERNS = [
  'ab{1,4}c',
  '\\d{3}-\\d{2}-\\d{4}|\\d{3} \\d{2} \\d{4}',
  'x[yz]?x',
  '\\bcat\\b',
  '(?i)secret\\s+key',
  'a(?:bc|d)*e',
  '(?:AKIA|ASIA)[A-Z0-9]{16}',
  '[A-Za-z0-9._%+-]+@[a-z]+\\.[a-z]{2,3}\\b',
  'é+ü',
  '\\Qa.b\\E',
  '\\Qa.b\\E{2}c',
  '(?P<n>ab)+',
];

describe('prefixPattern', () => {
  it('matches every beginning of every match (property)', () => {
    const texts = fc
      .array(
        fc.constantFrom(
          'a',
          'b',
          'c',
          'd',
          'e',
          'x',
          'y',
          'z',
          ' ',
          '-',
          '1',
          '2',
          '.',
          '@',
          'cat',
          'SECRET',
          ' key',
          'AKIA',
          'é',
          'ü',
          'A',
        ),
        { maxLength: 30 },
      )
      .map((a) => a.join(''));
    fc.assert(
      fc.property(fc.constantFrom(...PATTERNS), texts, (pattern, text) => {
        const prefix = prefixPattern(pattern);
        expect(prefix).toBeDefined();
        const whole = new RE2(`^(?:${prefix})$`, 'u');
        const re = new RE2(pattern, 'gu');
        for (const m of text.matchAll(re as unknown as RegExp)) {
          for (let k = 0; k <= m[0].length; k++) expect(whole.test(m[0].slice(0, k))).toBe(true);
        }
      }),
    );
  });

  it('refuses what cannot begin a match', () => {
    const live = new RE2(`^(?:${prefixPattern('\\d{3}-\\d{2}-\\d{4}')})$`, 'u');
    expect(live.test('123-4')).toBe(true);
    expect(live.test('12a')).toBe(false);
    expect(live.test('123-456')).toBe(false);
  });
});
