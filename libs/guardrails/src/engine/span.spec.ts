import { maskSpans, mergeSpans } from './span';

describe('mergeSpans', () => {
  it('sorts, joins overlapping and touching spans, and drops empty ones', () => {
    expect(
      mergeSpans([
        [10, 12],
        [0, 3],
        [2, 5],
        [5, 6],
        [8, 8],
      ]),
    ).toEqual([
      [0, 6],
      [10, 12],
    ]);
  });

  it('keeps a span that contains another whole', () => {
    expect(
      mergeSpans([
        [0, 10],
        [2, 4],
      ]),
    ).toEqual([[0, 10]]);
  });
});

describe('maskSpans', () => {
  it('replaces each character of each span with * and keeps the length', () => {
    expect(
      maskSpans('card 4111 and 5555', [
        [5, 9],
        [14, 18],
      ]),
    ).toBe('card **** and ****');
  });

  it('masks overlapping spans once, leaving nothing of either visible', () => {
    expect(
      maskSpans('555-1234', [
        [0, 3],
        [0, 8],
        [4, 7],
      ]),
    ).toBe('********');
  });

  it('ignores spans past the end of the text and returns the text when there are none', () => {
    expect(maskSpans('abc', [[1, 99]])).toBe('a**');
    expect(maskSpans('abc', [])).toBe('abc');
  });
});
