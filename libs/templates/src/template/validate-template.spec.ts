import { validateTemplate } from './validate-template';

const summary = (template: unknown, options = {}) =>
  validateTemplate(template, options).map((e) => ({
    path: e.path,
    code: e.code,
    placeholder: e.placeholder,
    reason: e.reason,
  }));

describe('validateTemplate', () => {
  it('finds nothing wrong with a good template', () => {
    expect(validateTemplate({ url: '{{ baseUrl }}/v1', json: { n: 1, list: ['{{ prompt }}', true, null] } })).toEqual(
      [],
    );
    expect(validateTemplate('plain text')).toEqual([]);
  });

  it('lists every problem, each with its path and placeholder', () => {
    const template = {
      url: '{{ baseUrl }}/{{ a + }}',
      headers: { Authorization: 'Bearer {{ this.key }}' },
      json: { messages: ['{{ messages.constructor }}', '{{ open'] },
    };
    expect(summary(template)).toEqual([
      { path: 'url', code: 'syntax', placeholder: 'a +', reason: 'syntax error: Unexpected token' },
      {
        path: 'headers.Authorization',
        code: 'unsupported',
        placeholder: 'this.key',
        reason: 'templates do not support "this"',
      },
      {
        path: 'json.messages[0]',
        code: 'forbidden',
        placeholder: 'messages.constructor',
        reason: 'the property "constructor" is not accessible',
      },
      {
        path: 'json.messages[1]',
        code: 'syntax',
        placeholder: undefined,
        reason: 'the placeholder is not closed with "}}"',
      },
    ]);
  });

  it('reports names outside the known inputs and secrets when given them', () => {
    const template = {
      h: 'Bearer {{ apiKye }}',
      m: '{{ model }}',
      p: '{{ prompt }}',
      j: '{{ JSON.stringify(messages) }}',
    };
    expect(validateTemplate(template)).toEqual([]);
    const errors = validateTemplate(template, { knownNames: ['apiKey', 'model'] });
    expect(errors.map((e) => e.message)).toEqual([
      'h: unknown name "apiKye" in {{ apiKye }} (position 7, expression offset 0)',
    ]);
    expect(errors[0].code).toBe('scope');
  });

  it('refuses values that are not JSON data, and a __proto__ key', () => {
    const template = JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}') as unknown;
    expect(summary(template)).toEqual([
      { path: '__proto__', code: 'forbidden', placeholder: undefined, reason: 'the key "__proto__" is not allowed' },
    ]);
    expect(summary({ big: 10n })).toEqual([
      { path: 'big', code: 'type', placeholder: undefined, reason: 'a template value must be JSON data, not a bigint' },
    ]);
    expect(summary({ m: new Map() })[0].reason).toBe('a template value must be JSON data, not [object Map]');
  });

  it('refuses a template nested past the data depth limit', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 10; i++) deep = [deep];
    expect(validateTemplate(deep, { limits: { maxDataDepth: 10 } })).toEqual([]);
    expect(summary([deep], { limits: { maxDataDepth: 10 } })).toEqual([
      {
        path: '[0][0][0][0][0][0][0][0][0][0]',
        code: 'limit',
        placeholder: undefined,
        reason: 'the template nests deeper than 10 levels',
      },
    ]);
  });
});
