import { TemplateError } from '../errors/template-error';
import { scanPlaceholders } from './scan-placeholders';

const sources = (text: string) =>
  scanPlaceholders(text).map((s) => (s.kind === 'text' ? s.text : { source: s.source, position: s.position }));

describe('scanPlaceholders', () => {
  it('returns plain text as one segment, and nothing for an empty string', () => {
    expect(sources('no placeholders } here {')).toEqual(['no placeholders } here {']);
    expect(sources('')).toEqual([]);
  });

  it('splits text and placeholders, trimming the expressions', () => {
    expect(sources('Bearer {{ apiKey }}')).toEqual(['Bearer ', { source: 'apiKey', position: 7 }]);
    expect(sources('{{a}}-{{  b  }}!')).toEqual([{ source: 'a', position: 0 }, '-', { source: 'b', position: 6 }, '!']);
  });

  it('reports the end of a placeholder that is the whole string', () => {
    expect(scanPlaceholders('{{ x }}')).toEqual([{ kind: 'placeholder', source: 'x', position: 0, end: 7 }]);
  });

  it.each([
    ['{{ {a: {b: 1}} }}', '{a: {b: 1}}'],
    ['{{ {a: {b: 1}}}}', '{a: {b: 1}}'],
    ["{{ '}}' }}", "'}}'"],
    ['{{ "a}}b" + "\\"}}" }}', '"a}}b" + "\\"}}"'],
    ['{{ `x}}${ {y: 1}.y }}}` }}', '`x}}${ {y: 1}.y }}}`'],
    ['{{ `a\\`}}` }}', '`a\\`}}`'],
    ["{{ '{{' }}", "'{{'"],
  ])('finds the closing braces of %s past literals', (text, source) => {
    expect(sources(text)).toEqual([{ source, position: 0 }]);
  });

  it('refuses a placeholder that is never closed, saying where it starts', () => {
    expect(() => scanPlaceholders('ok {{ a } b')).toThrow(TemplateError);
    try {
      scanPlaceholders('ok {{ a } b');
    } catch (err) {
      expect(err).toMatchObject({ code: 'syntax', position: 3, reason: 'the placeholder is not closed with "}}"' });
    }
    expect(() => scanPlaceholders("{{ '}} ")).toThrow('not closed');
    expect(() => scanPlaceholders('{{ {a: 1 }}')).toThrow('not closed');
  });
});
