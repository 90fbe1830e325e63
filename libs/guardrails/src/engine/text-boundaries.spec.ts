import { charAt, charBefore, isWholeWord, nextIndex, standsAlone } from './text-boundaries';

describe('text boundaries', () => {
  it('reads whole code points on both sides of an offset', () => {
    const text = 'a😀b';
    expect(charBefore(text, 3)).toBe('😀');
    expect(charAt(text, 1)).toBe('😀');
    expect(nextIndex(text, 1)).toBe(3);
    expect(charBefore(text, 0)).toBe('');
    expect(charAt(text, 4)).toBe('');
  });

  it('treats Unicode letters, digits and _ as word characters', () => {
    expect(isWholeWord('concat', 3, 6)).toBe(false);
    expect(isWholeWord('a cat.', 2, 5)).toBe(true);
    expect(isWholeWord('Приветствие', 0, 6)).toBe(false);
    expect(isWholeWord('Привет, мир', 0, 6)).toBe(true);
    expect(isWholeWord('x_cat', 2, 5)).toBe(false);
  });

  it('asks no boundary on an edge that is not a word character', () => {
    expect(isWholeWord('#tag', 0, 4)).toBe(true);
    expect(isWholeWord('x#tag', 1, 5)).toBe(true);
    expect(isWholeWord('C++x', 0, 3)).toBe(true);
  });

  it('sees a value joined to more digits through a joiner as part of something else', () => {
    expect(standsAlone('id 123-45-6789.', 3, 14, '-')).toBe(true);
    expect(standsAlone('123-45-6789-0', 0, 11, '-')).toBe(false);
    expect(standsAlone('9-123-45-6789', 2, 13, '-')).toBe(false);
    expect(standsAlone('x123', 1, 4)).toBe(false);
    expect(standsAlone('é123', 1, 4)).toBe(false);
  });
});
