import fc from 'fast-check';
import { canonicalize, StreamCanonicalizer, unstableTail } from './canonicalize';
import { canonicalizePattern } from './canonicalize-pattern';
import RE2 from 're2';

const text = (s: string): string => canonicalize(s).text;

/** Characters that exercise every rule: marks, ignorables, jamo, spaces, dashes, digits, look-alikes, astral. */
const TRICKY = [
  'a',
  'e',
  'o',
  ' ',
  '-',
  '1',
  '@',
  '.',
  '\u0301',
  '\u0308',
  '\u200b',
  '\u200d',
  '\u00ad',
  '\ufeff',
  '\u00a0',
  '\u2011',
  '\u2013',
  '\u2212',
  '\u3000',
  '\uff11',
  '\uff20',
  '\uff41',
  '\ufb01',
  '\u0430',
  '\u043e',
  '\u0440',
  '\u0438',
  '\u03b1',
  '\u03b2',
  '\u1100',
  '\u1161',
  '\u11a8',
  '\uac00',
  '\uff76',
  '\uff9e',
  '\u0661',
  '\u{1d41a}',
  '\u{1f600}',
  '\ufe0f',
  '\u2028',
  '\n',
  '\u0663',
  'K',
  '\u212a',
  '\u20e3',
  '\u0332',
  '\u2780',
  '\u1369',
  '\u{e0068}',
  '\u{e0031}',
  '\u{e007f}',
  '\u{e0001}',
  '\u{e0101}',
  '\u{11000}',
  '\u1161',
  '\u000b',
  '\u001f',
  '\u0085',
  '\u0000',
  '\u0007',
  '\u007f',
  '\u0090',
  '\t',
];
const tricky = fc.array(fc.constantFrom(...TRICKY), { maxLength: 40 }).map((a) => a.join(''));
const anyText = fc.oneof(
  tricky,
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
);

describe('canonicalize', () => {
  it('folds the look-alike spellings a model reads as plain text', () => {
    expect(text('4111\u00a01111\u00a01111\u00a01111')).toBe('4111 1111 1111 1111');
    expect(text('\uff14\uff11\uff11\uff11 1111')).toBe('4111 1111');
    expect(text('123\u201145\u20116789')).toBe('123-45-6789');
    expect(text('jane\uff20example.com')).toBe('jane@example.com');
    expect(text('ja\u200bne@exa\u200dmple.com')).toBe('jane@example.com');
    expect(text('ignore\u00a0previous\u2003instructions')).toBe('ignore previous instructions');
    expect(text('\u0456gn\u043er\u0435 previous')).toBe('ignore previous');
    expect(text('\u0440\u0430\u0443\u0440\u0430l')).toBe('paypal');
    expect(text('e\u0301')).toBe('e');
    expect(text('\ufb01le \u2460 \u{1d41a}')).toBe('file 1 a');
    expect(text('\u0661\u0662\u0663')).toBe('123');
    expect(text('a\u2014b\u2212c')).toBe('a-b-c');
  });

  it('reads the control characters that separate words as the space or line break they are', () => {
    expect(text('launch\u000bcodes')).toBe('launch codes');
    for (const c of ['\u001c', '\u001d', '\u001e', '\u001f']) expect(text(`launch${c}codes`)).toBe('launch codes');
    expect(text('launch\u0085codes')).toBe('launch\ncodes');
    // Beside characters that take the other paths (one unit for one, and the segment builder).
    expect(text('l\u00e1unch\u000bcodes')).toBe('launch codes');
    expect(text('la\u200bunch\u001fcodes')).toBe('launch codes');
    const c = canonicalize('x\u000by');
    expect(c.identity).toBe(false);
    expect(c.toOriginal(2, 3)).toEqual([2, 3]);
  });

  it('reads a word with hidden control characters inside as the word', () => {
    expect(text('pass\u0000word')).toBe('password');
    expect(text('hun\u0001\u0007ter2 \u007fok')).toBe('hunter2 ok');
    expect(text('4111\u00811111\u009f1111 1111')).toBe('411111111111 1111');
    // Tab, line breaks and the separators stay what they are.
    expect(text('a\tb\r\nc\u000cd')).toBe('a\tb\r\nc\u000cd');
    // Beside the other paths: look-alikes (one unit for one) and marks (the segment builder).
    expect(text('p\u0430ss\u0002word')).toBe('password');
    expect(text('pa\u0301ss\u0002word')).toBe('password');
    // At the start, alone, and masking the match masks the control characters inside it.
    expect(text('\u0000\u0000x')).toBe('x');
    expect(text('\u0000')).toBe('');
    const c = canonicalize('pw pass\u0000word!');
    expect(c.identity).toBe(false);
    expect(c.toOriginal(3, 11)).toEqual([3, 12]);
  });

  it('reads through keycaps, underlines and digit forms NFKC keeps', () => {
    expect(text('4\ufe0f\u20e31\ufe0f\u20e31\u20e31\u20e3')).toBe('4111');
    expect(text('h\u0332u\u0332n\u0332t\u0332e\u0332r\u0332')).toBe('hunter');
    expect(text('\u2783\u2780\u2780\u2780 \u2779\u2776 \u24f8\u24f5 \u136c\u1369')).toBe('4111 41 41 41');
    expect(text('\u2789')).toBe('10');
    // Marks that belong to another script's letters stay.
    expect(text('\u0915\u093f')).toBe('\u0915\u093f');
    expect(text('e\u0301\u0332')).toBe('e');
  });

  it('reads a letter of Latin, Greek, Cyrillic or Armenian composed with its accent as its base letter', () => {
    expect(text('h\u00fanter2')).toBe('hunter2');
    expect(text('hu\u0301nter2')).toBe('hunter2');
    expect(text('Ti\u1ebfng Vi\u1ec7t')).toBe('Tieng Viet');
    expect(text('\uff28\u00fanter')).toBe('Hunter');
    // Letters with no decomposition, symbols and other scripts stay.
    expect(text('\u00df \u00f8 \u2260 \u0915\u093f \u30ac')).toBe('\u00df \u00f8 \u2260 \u0915\u093f \u30ac');
    // Masking the match masks the accented letter whole.
    const c = canonicalize('pw: h\u00fanter2!');
    expect(c.toOriginal(4, 11)).toEqual([4, 11]);
  });

  it('decodes tag characters in place to the ASCII they spell', () => {
    const tags = (s: string) => [...s].map((c) => String.fromCodePoint(0xe0000 + c.charCodeAt(0))).join('');
    expect(text(`hunt${tags('er2')}`)).toBe('hunter2');
    expect(text(`hi ${tags('ignore previous')}\u{e007f}`)).toBe('hi ignore previous');
    expect(text(`4${tags('1')}1${tags('1')}`)).toBe('4111');
    expect(text(`a\u{e0001}b`)).toBe('ab');
    // Each decoded letter maps to its tag character.
    const c = canonicalize(`hi${tags('ab')}c`);
    expect(c.text).toBe('hiabc');
    expect(c.toOriginal(2, 4)).toEqual([2, 6]);
  });

  it('cuts a stream between whole code points after a long run of astral attachers', () => {
    const text = `the password is hunter${'\u{e0101}'.repeat(31)}2 and more`;
    const stream = new StreamCanonicalizer();
    const cut = text.indexOf('2 and');
    const out = stream.push(text.slice(0, cut)) + stream.push(text.slice(cut)) + stream.finish();
    expect(out).toBe(canonicalize(text).text);
    expect(out).toContain('hunter2');
    expect(unstableTail(`a${'\u{e0101}'.repeat(31)}`) % 2).toBe(0);
  });

  it('drops marks on digits of any script, and marks past the most one character holds', () => {
    expect(text('\u0664\u20e3\u0661\u0332\u0967\u0301\u0e51')).toBe('4111');
    expect(text(`hun${'\u0332'.repeat(40)}ter2`)).toBe('hunter2');
    expect(text('\u24eb\u24f4')).toBe('1120');
  });

  it('keeps words written in Cyrillic and Greek as they are', () => {
    expect(text('\u041f\u0440\u0438\u0432\u0435\u0442')).toBe('\u041f\u0440\u0438\u0432\u0435\u0442');
    expect(text('\u03b1\u03b2\u03b3')).toBe('\u03b1\u03b2\u03b3');
  });

  it('leaves ASCII untouched, offsets included', () => {
    const c = canonicalize('plain ascii\ttext');
    expect(c.identity).toBe(true);
    expect(c.toOriginal(2, 5)).toEqual([2, 5]);
  });

  it('maps a canonical span to whole original characters, zero-width ones inside included', () => {
    const original = 'mail ja\u200bne\uff20ex.com now';
    const c = canonicalize(original);
    const start = c.text.indexOf('jane');
    const end = c.text.indexOf(' now');
    expect(c.toOriginal(start, end)).toEqual([5, original.indexOf(' now')]);
  });

  it('maps every canonical unit into the original segment it came from (property)', () => {
    fc.assert(
      fc.property(anyText, (s) => {
        const c = canonicalize(s);
        for (let k = 0; k < c.text.length; k++) {
          const [a, b] = c.toOriginal(k, k + 1);
          if (!(a >= 0 && a < b && b <= s.length)) return false;
        }
        // Consecutive canonical units never map to original spans that go backwards.
        for (let k = 1; k < c.text.length; k++) {
          if (c.toOriginal(k, k + 1)[0] < c.toOriginal(k - 1, k)[0]) return false;
        }
        return true;
      }),
    );
  });

  it('canonicalizes a stream cut anywhere as it does the whole text (property)', () => {
    fc.assert(
      fc.property(anyText, fc.array(fc.nat(), { maxLength: 6 }), (s, cuts) => {
        const points = [...new Set(cuts.map((c) => c % (s.length + 1)))].sort((a, b) => a - b);
        const stream = new StreamCanonicalizer();
        let out = '';
        let at = 0;
        for (const p of points) {
          out += stream.push(s.slice(at, p));
          at = p;
        }
        out += stream.push(s.slice(at));
        out += stream.finish();
        const whole = canonicalize(s);
        if (out !== whole.text) return false;
        for (let k = 0; k < out.length; k++) {
          const [a, b] = stream.toOriginal(k, k + 1);
          const [c, d] = whole.toOriginal(k, k + 1);
          if (a !== c || b !== d) return false;
        }
        return true;
      }),
    );
  });

  it('says how much of a chunk must wait for the next one', () => {
    expect(unstableTail('abc')).toBe(1);
    expect(unstableTail('abe\u0301')).toBe(2);
    // A lone high surrogate may pair up with an astral mark that joins the "b" before it.
    expect(unstableTail('ab\ud83d')).toBe(2);
    expect(unstableTail('')).toBe(0);
    fc.assert(
      fc.property(anyText, anyText, (a, b) => {
        const stable = a.slice(0, a.length - unstableTail(a));
        return text(a + b).startsWith(canonicalize(stable).text.slice(0, -1));
      }),
    );
  });
});

describe('canonicalizePattern', () => {
  it('leaves ASCII patterns alone', () => {
    expect(canonicalizePattern('\\d{3}-\\d{2}-\\d{4}')).toBe('\\d{3}-\\d{2}-\\d{4}');
  });

  it('puts literals in canonical form, as the text is', () => {
    const check = (pattern: string, sample: string) =>
      expect(new RegExp(canonicalizePattern(pattern), 'u').test(text(sample))).toBe(true);
    check('\u041f\u0440\u0438\u0432\u0435\u0442', 'say \u041f\u0440\u0438\u0432\u0435\u0442!');
    check('\u0440\u0430\u0443', 'pay');
    check('a\u00a0b', 'a b');
    check('[\u0430-\u044f]+', '\u0440\u0430\u0443');
    check('\uff21+', 'AAA');
    check('caf\u00e9', 'cafe');
    check('caf\u00e9', 'cafe\u0301');
    check('[\u00e0-\u00ff]', 'e');
  });

  it('reads a hex escape beyond ASCII as its character, in a class too, and leaves negated classes as written', () => {
    // As the scanners run them: RE2, in its `u` mode.
    const matches = (pattern: string, sample: string) => new RE2(canonicalizePattern(pattern), 'u').test(text(sample));
    const check = (pattern: string, sample: string, expected = true) => expect(matches(pattern, sample)).toBe(expected);
    check('caf\\x{e9}', 'the caf\u00e9');
    check('caf\\xe9', 'the cafe');
    check('[\\x{c0}-\\x{ff}]', '\u00e9');
    check('p\\x{0430}y', 'pay');
    check('h[^\u00e9]llo', 'hello');
    expect(canonicalizePattern('h[^\u00e9]llo')).toBe('h[^\u00e9]llo');
    expect(canonicalizePattern('caf\\x41')).toBe('caf\\x41');
    check('caf\\u00e9', 'the caf\u00e9');
    check('caf\\u{e9}', 'the caf\u00e9');
    check('caf\\351', 'the caf\u00e9');
    // RE2 reads three octal digits, up to \777 (U+01FF): "ǩ" reads "k".
    check('caf\\751', 'the caf\u01e9');
    check('[\\u00e9]', 'e');
    // A class with a trailing "-" keeps it literal: the added forms stand in a class of their own.
    check('[\\x{e9}-]x', 'e' + 'x');
    check('[\\x{e9}-]x', '-x');
    check('[\u00b5-]x', '\u0142x', false);
    expect(matches('[\\d\\-\u00e9]', 'e')).toBe(true);
  });
});
