import { TemplateError } from '../errors/template-error';
import { buildScope } from '../scope/build-scope';
import { compileTemplate } from './compile-template';
import { renderTemplate } from './render-template';

const scope = {
  obj: { k: 'v', n: 1 },
  list: [1, 'two', null],
  num: 0.5,
  yes: true,
  nil: null,
  text: 'hello',
};

function renderError(template: unknown, options = {}): TemplateError {
  try {
    renderTemplate(template, scope, options);
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
  throw new Error('expected the render to fail');
}

describe('renderTemplate: types', () => {
  it.each([
    ['{{ obj }}', { k: 'v', n: 1 }],
    ['{{ list }}', [1, 'two', null]],
    ['{{ num }}', 0.5],
    ['{{ yes }}', true],
    ['{{ nil }}', null],
    ['{{ text }}', 'hello'],
    ['{{obj}}', { k: 'v', n: 1 }],
    ['{{   num   }}', 0.5],
  ])('a string that is exactly %s keeps the value type', (template, expected) => {
    expect(renderTemplate(template, scope)).toEqual(expected);
  });

  it.each([
    ['n={{ num }}', 'n=0.5'],
    ['{{ yes }}!', 'true!'],
    [' {{ num }}', ' 0.5'],
    ['{{ num }} ', '0.5 '],
    ['[{{ nil }}][{{ missing }}]', '[][]'],
    ['obj: {{ obj }}', 'obj: {"k":"v","n":1}'],
    ['{{ list }}{{ list }}', '[1,"two",null][1,"two",null]'],
    ['{{ text }} {{ text }}', 'hello hello'],
  ])('a string mixing text and placeholders, %s, becomes a string', (template, expected) => {
    expect(renderTemplate(template, scope)).toBe(expected);
  });

  it('renders every string in objects and arrays, leaving keys and other values alone', () => {
    const template = {
      '{{ key }}': '{{ num }}',
      nested: [{ a: '{{ list[1] }}', b: 3, c: false, d: null }, 'x{{ num }}'],
    };
    expect(renderTemplate(template, scope)).toEqual({
      '{{ key }}': 0.5,
      nested: [{ a: 'two', b: 3, c: false, d: null }, 'x0.5'],
    });
  });

  it('leaves out a property that renders to undefined and puts null in an array', () => {
    expect(renderTemplate({ a: '{{ missing }}', b: 1, c: ['{{ missing }}'] }, scope)).toEqual({ b: 1, c: [null] });
    expect(renderTemplate('{{ missing }}', scope)).toBeUndefined();
  });

  it('returns fresh null-prototype objects, so changing the result changes nothing else', () => {
    const template = { a: { b: 1 }, c: '{{ obj }}' };
    const compiled = compileTemplate(template);
    const first = compiled.render(scope) as { a: { b: number }; c: { k: string } };
    expect(Object.getPrototypeOf(first)).toBeNull();
    first.a.b = 2;
    first.c.k = 'changed';
    expect(compiled.render(scope)).toEqual({ a: { b: 1 }, c: { k: 'v', n: 1 } });
    expect(template.a.b).toBe(1);
  });

  it('renders a compiled template against many scopes', () => {
    const compiled = compileTemplate({ greeting: 'Hi {{ name }}' });
    expect(compiled.render({ name: 'Ada' })).toEqual({ greeting: 'Hi Ada' });
    expect(compiled.render(buildScope({ inputs: { name: 'Bob' } }))).toEqual({ greeting: 'Hi Bob' });
    expect(compiled.names).toEqual(['name']);
  });

  it('writes a literal {{ with a string expression', () => {
    expect(renderTemplate("{{ '{{' }} not a placeholder }}", scope)).toBe('{{ not a placeholder }}');
  });
});

describe('renderTemplate: errors', () => {
  it('names the template path, the placeholder and its position', () => {
    const err = renderError({ json: { messages: [{ content: 'Say {{ obj.none.y }}' }] } });
    expect(err).toBeInstanceOf(TemplateError);
    expect(err.code).toBe('type');
    expect(err.path).toBe('json.messages[0].content');
    expect(err.loc).toEqual(['json', 'messages', 0, 'content']);
    expect(err.placeholder).toBe('obj.none.y');
    expect(err.position).toBe(4);
    expect(err.expressionOffset).toBe(9);
    expect(err.message).toBe(
      'json.messages[0].content: cannot read "y" of undefined (use "?." if it may be missing) in {{ obj.none.y }} (position 4, expression offset 9)',
    );
  });

  it('quotes path segments that are not identifiers', () => {
    expect(renderError({ headers: { 'x-api-key': '{{ nil.x }}' } }).path).toBe('headers["x-api-key"]');
  });

  it('prefixes the path given in the options', () => {
    expect(renderError({ content: '{{ nil.x }}' }, { path: ['template', 'outputs'] }).path).toBe(
      'template.outputs.content',
    );
  });

  it('fails to compile before rendering anything', () => {
    const err = renderError({ ok: '{{ text }}', bad: 'x {{ a = 1 }}' });
    expect(err.code).toBe('unsupported');
    expect(err.path).toBe('bad');
    expect(err.position).toBe(2);
  });

  it('refuses a function where text is wanted', () => {
    expect(renderError('x{{ JSON.stringify }}').reason).toBe(
      'the built-in JSON.stringify is a function and cannot become text (call it?)',
    );
  });

  it('refuses a template that is not JSON data', () => {
    expect(renderError({ when: new Date(0) }).reason).toBe('a template value must be JSON data, not [object Date]');
    expect(renderError({ f: () => 1 }).reason).toBe('a template value must be JSON data, not a function');
    expect(renderError({ n: Number.NaN }).reason).toBe('a template number must be finite');
  });

  it('keeps the result to the output size limit', () => {
    const options = { limits: { maxOutputSize: 50 } };
    expect(renderTemplate({ a: '{{ text }}' }, scope, options)).toEqual({ a: 'hello' });
    const err = renderError({ a: '{{ [text, text, text, text, text, text, text, text] }}' }, options);
    expect(err.code).toBe('limit');
    expect(err.reason).toBe('the rendered template would exceed 50 characters');
    expect(err.path).toBe('a');
    expect(renderError({ a: '{{ text }}'.repeat(10) }, options).code).toBe('limit');
  });
});
