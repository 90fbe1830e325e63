import { canonicalJson, sameJson } from './canonical-json';

describe('canonicalJson', () => {
  it('ignores key order at every depth but not array order', () => {
    expect(
      sameJson(
        { type: 'regex', patterns: ['a', 'b'], x: { b: 1, a: 2 } },
        { x: { a: 2, b: 1 }, patterns: ['a', 'b'], type: 'regex' },
      ),
    ).toBe(true);
    expect(sameJson({ patterns: ['a', 'b'] }, { patterns: ['b', 'a'] })).toBe(false);
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});
