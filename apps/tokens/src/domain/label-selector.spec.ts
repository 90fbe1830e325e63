import { matchesSelector, parseSelector, SelectorSyntaxError } from './label-selector';

const labels = { env: 'prod', tier: 'web', 'example.com/team': 'edge' };
const match = (s: string, l: Record<string, string> = labels) => matchesSelector(parseSelector(s), l);

describe('parseSelector', () => {
  it('parses every requirement form', () => {
    expect(parseSelector('a, !b, c=1, d==2, e!=3, f in (x, y), g notin (z)')).toEqual([
      { op: 'exists', key: 'a' },
      { op: 'notexists', key: 'b' },
      { op: 'eq', key: 'c', value: '1' },
      { op: 'eq', key: 'd', value: '2' },
      { op: 'neq', key: 'e', value: '3' },
      { op: 'in', key: 'f', values: ['x', 'y'] },
      { op: 'notin', key: 'g', values: ['z'] },
    ]);
  });

  it('accepts an empty selector, prefixed keys, empty values and loose spacing', () => {
    expect(parseSelector('')).toEqual([]);
    expect(parseSelector('   ')).toEqual([]);
    expect(parseSelector('example.com/team=edge')).toEqual([{ op: 'eq', key: 'example.com/team', value: 'edge' }]);
    expect(parseSelector('env=')).toEqual([{ op: 'eq', key: 'env', value: '' }]);
    expect(parseSelector('env  in(a,b)')).toEqual([{ op: 'in', key: 'env', values: ['a', 'b'] }]);
  });

  it.each([
    ['env in (a, b', 'expected ")"'],
    ['env in a', 'expected "("'],
    ['env in ()', 'expected a value'],
    ['env=a,', 'expected a requirement after ","'],
    [',env', 'expected a label key'],
    ['env=a b', 'unexpected "b"'],
    ['!', 'expected a label key after "!"'],
    ['env = a = b', 'unexpected "="'],
    ['-bad', 'invalid label key "-bad"'],
    ['Bad_Prefix/x', 'invalid label key prefix'],
    ['env=a*b', 'invalid label value "a*b"'],
    ['env ~ a', 'unexpected "~"'],
    ['env notin', 'expected "("'],
  ])('rejects %p', (input, message) => {
    expect(() => parseSelector(input)).toThrow(SelectorSyntaxError);
    expect(() => parseSelector(input)).toThrow(message);
  });
});

describe('matchesSelector', () => {
  it.each([
    ['env', true],
    ['missing', false],
    ['!missing', true],
    ['!env', false],
    ['env=prod', true],
    ['env==prod', true],
    ['env=dev', false],
    ['env!=dev', true],
    ['env!=prod', false],
    ['missing!=x', true],
    ['env in (dev, prod)', true],
    ['env in (dev)', false],
    ['missing in (x)', false],
    ['env notin (dev)', true],
    ['env notin (prod)', false],
    ['missing notin (x)', true],
    ['env=prod, tier=web', true],
    ['env=prod, tier=db', false],
    ['example.com/team=edge', true],
  ])('%p -> %p', (selector, expected) => {
    expect(match(selector)).toBe(expected);
  });

  it('matches everything with an empty selector, even no labels', () => {
    expect(match('', {})).toBe(true);
  });
});
