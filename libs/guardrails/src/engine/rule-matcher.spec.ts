import fc from 'fast-check';
import RE2 from 're2';
import { RuleMatcher, utf8Of } from './rule-matcher';

/** What each rule finds on its own, with a plain RE2 global loop: the reference for the matcher. */
function onePassPerRule(sources: string[], text: string): { start: number; end: number; rule: number }[] {
  const out: { start: number; end: number; rule: number }[] = [];
  sources.forEach((source, rule) => {
    const re = new RE2(source, 'gu');
    for (const m of text.matchAll(re))
      if (m[0].length > 0) out.push({ start: m.index, end: m.index + m[0].length, rule });
  });
  return out.sort((a, b) => a.start - b.start || a.end - b.end || a.rule - b.rule);
}

describe('RuleMatcher', () => {
  it('tells which rule found each match, including matches of different rules that overlap', () => {
    const matcher = new RuleMatcher([{ source: '\\d{3}' }, { source: '\\d{3}-\\d{4}' }, { source: 'foo' }]);
    expect(matcher.find('call 555-1234 foo')).toEqual([
      { start: 5, end: 8, rule: 0 },
      { start: 5, end: 13, rule: 1 },
      { start: 9, end: 12, rule: 0 },
      { start: 14, end: 17, rule: 2 },
    ]);
  });

  it('finds exactly what running each rule alone finds', () => {
    const sources = [
      '(?i)secret\\w*',
      '\\bfoo',
      'o+',
      '[0-9]+(?:\\.[0-9]+)?',
      'never-there',
      'é+',
      '😀',
      '\\u0041+',
      '\\u{1F600}',
    ];
    const texts = ['Secretly foo and SECRETS, 3.14 then 42; foooo', 'nothing to see', 'ééé 😀 x 😀😀 bar foo AAA', ''];
    const matcher = new RuleMatcher(sources.map((source) => ({ source })));
    for (const text of texts) expect(matcher.find(text)).toEqual(onePassPerRule(sources, text));
  });

  it('reports UTF-16 offsets after astral characters', () => {
    const text = '😀 foo';
    expect(new RuleMatcher([{ source: 'foo' }]).find(text)).toEqual([{ start: 3, end: 6, rule: 0 }]);
  });

  it('never reports empty matches and still terminates', () => {
    const matcher = new RuleMatcher([{ source: 'x*' }, { source: '\\b' }]);
    expect(matcher.find('aaxa')).toEqual([{ start: 2, end: 3, rule: 0 }]);
  });

  it('applies confirm: refuse, accept, or narrow to spans', () => {
    const matcher = new RuleMatcher([
      { source: '\\d+', confirm: (value) => Number(value) % 2 === 0 },
      { source: '[a-z]+', confirm: (_v, _t, start) => [[start, start + 1]] },
    ]);
    expect(matcher.find('12 13 ab')).toEqual([
      { start: 0, end: 2, rule: 0 },
      { start: 6, end: 7, rule: 1 },
    ]);
  });

  it('looks again inside a refused candidate only when asked to', () => {
    // Accepts "aa" only at the end of the text: in "aaa" the first candidate, [0, 2), is refused.
    const rules = [
      { source: 'aa', confirm: (v: string, text: string, start: number) => start + v.length === text.length },
    ];
    expect(new RuleMatcher(rules).find('aaa')).toEqual([]);
    expect(new RuleMatcher(rules, { retryInsideRefused: true }).find('aaa')).toEqual([{ start: 1, end: 3, rule: 0 }]);
  });

  it('passes flags to every rule', () => {
    expect(new RuleMatcher([{ source: 'abc' }, { source: 'é' }], { flags: 'i' }).find('ABC É')).toEqual([
      { start: 0, end: 3, rule: 0 },
      { start: 4, end: 5, rule: 1 },
    ]);
  });

  describe("given the text's UTF-8 bytes", () => {
    const matchers = [
      new RuleMatcher([{ source: '\\bpassword\\s*[:=]\\s*\\S+' }]),
      new RuleMatcher([{ source: 'é+' }], { flags: 'i' }),
      new RuleMatcher([{ source: '[\\x{1F600}-\\x{1F64F}]' }, { source: '\\d{4}' }, { source: 'x?' }]),
      new RuleMatcher([{ source: '\\pL\\pM' }, { source: '\\x{FFFD}' }]),
      new RuleMatcher([{ source: 'a.b' }, { source: '^k' }], { flags: 'i' }),
    ];
    const alphabet = [
      'a',
      'b',
      'k',
      'K',
      'x',
      ' ',
      ':',
      '=',
      '1',
      '9',
      'é',
      'É',
      'e\u0301',
      '😀',
      '\ud800',
      '\udc00',
      '\ufffd',
      'password',
      '\n',
    ];

    it('finds what it finds in the string, for every text (unpaired surrogates too)', () => {
      fc.assert(
        fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }), (parts) => {
          const text = parts.join('');
          for (const m of matchers) expect(m.find(text, undefined, utf8Of(text))).toEqual(m.find(text));
        }),
        { numRuns: 500 },
      );
    });

    it('skips a rule the bytes rule out, and searches one they do not in the string', () => {
      const m = new RuleMatcher([{ source: 'é+' }]);
      const exec = jest.spyOn(m.regexes[0], 'exec');
      expect(m.find('abc', undefined, utf8Of('abc'))).toEqual([]);
      expect(exec).not.toHaveBeenCalled();
      expect(m.find('aéé', undefined, utf8Of('aéé'))).toEqual([{ start: 1, end: 3, rule: 0 }]);
      expect(exec).toHaveBeenCalled();
    });
  });
});
