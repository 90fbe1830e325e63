import { TemplateError } from '../errors/template-error';
import { evaluateExpression } from '../expression/evaluate-expression';
import { buildScope } from '../scope/build-scope';
import type { TemplateResponse } from './response-value';

const response = (body: string, extra: Partial<TemplateResponse> = {}) =>
  buildScope({ response: { statusCode: 200, headers: {}, body, ...extra } });
const ev = (source: string, scope: Parameters<typeof evaluateExpression>[1] = {}) => evaluateExpression(source, scope);

function errorOf(source: string, scope: Parameters<typeof evaluateExpression>[1] = {}): TemplateError {
  try {
    ev(source, scope);
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw err;
  }
  throw new Error(`expected ${source} to fail`);
}

describe('response', () => {
  it('exposes the status code, the body and lower-cased headers', () => {
    const scope = response('raw', {
      statusCode: 201,
      headers: {
        'Content-Type': 'text/plain',
        'X-Multi': ['a', 'b'],
        'x-multi': 'c',
        'Content-Length': 3,
        Gone: undefined,
      },
    });
    expect(ev('response.statusCode', scope)).toBe(201);
    expect(ev('response.body', scope)).toBe('raw');
    expect(ev('response.headers', scope)).toEqual({
      'content-type': 'text/plain',
      'x-multi': 'a, b, c',
      'content-length': '3',
    });
    expect(ev("response.headers['content-type']", scope)).toBe('text/plain');
  });

  it('parses the body as JSON with json()', () => {
    const scope = response('{"choices": [{"message": {"content": "hi"}}], "n": 1.5}');
    expect(ev('response.json().choices[0].message.content', scope)).toBe('hi');
    expect(ev('response.json()', scope)).toEqual({ choices: [{ message: { content: 'hi' } }], n: 1.5 });
    expect(ev('response.json()?.missing?.[0]', scope)).toBeUndefined();
  });

  it('refuses a body that is not JSON without quoting it', () => {
    const err = errorOf('response.json()', response('secret-token not json'));
    expect(err.code).toBe('builtin');
    expect(err.reason).toBe('response.json(): the response body is not valid JSON');
    expect(err.message).not.toContain('secret-token');
  });

  it('takes no arguments', () => {
    expect(errorOf('response.json(1)', response('{}')).reason).toBe('response.json() takes 0 arguments, got 1');
  });

  it('is undefined before there is a response', () => {
    expect(errorOf('response.json()').reason).toBe('cannot read "json" of undefined (use "?." if it may be missing)');
  });
});

describe('String.decode', () => {
  it.each([
    ['String.decode([104, 105, 32, 226, 130, 172])', 'hi €'],
    ["String.decode('aGkg4oKs')", 'hi €'],
    ["String.decode('aGkg4oKs'.length ? 'aGk' : '')", 'hi'],
    ["String.decode('-_8')", '\ufffd\ufffd'],
    ["String.decode('')", ''],
    ['String.decode([])', ''],
    ['String.decode([255])', '\ufffd'],
  ])('%s', (source, expected) => {
    expect(ev(source)).toBe(expected);
  });

  it('decodes byte arrays handed over in the scope', () => {
    expect(ev('String.decode(bytes)', { bytes: new TextEncoder().encode('héllo') })).toBe('héllo');
    expect(ev('String.decode(chunk.bytes)', { chunk: { bytes: Buffer.from('ok').toString('base64') } })).toBe('ok');
  });

  it.each([
    ["String.decode('not base64!')", 'builtin', 'String.decode(): the string is not valid base64'],
    ["String.decode('abcde')", 'builtin', 'String.decode(): the string is not valid base64'],
    ['String.decode([1, 256])', 'builtin', 'String.decode(): element 1 is not a byte (a whole number 0-255)'],
    ["String.decode([1, '2'])", 'builtin', 'String.decode(): element 1 is not a byte (a whole number 0-255)'],
    ['String.decode([1.5])', 'builtin', 'String.decode(): element 0 is not a byte (a whole number 0-255)'],
    ['String.decode(5)', 'type', 'String.decode() needs an array of bytes or a base64 string, got a number'],
    ['String.decode()', 'type', 'String.decode() takes 1 argument, got 0'],
  ])('refuses %s', (source, code, reason) => {
    expect(errorOf(source)).toMatchObject({ code, reason });
  });
});

describe('Array.contains', () => {
  it.each([
    ["Array.contains(['a', 'b'], 'b')", true],
    ["Array.contains(['a', 'b'], 'c')", false],
    ["Array.contains([1, 2], '1')", false],
    ['Array.contains([null], null)', true],
    ['Array.contains([], undefined)', false],
    ['Array.contains(list, list[1])', true],
    ['Array.contains([{a: 1}], {a: 1})', false],
  ])('%s', (source, expected) => {
    expect(ev(source, { list: [{ x: 1 }, { y: 2 }] })).toBe(expected);
  });

  it('needs an array and an item', () => {
    expect(errorOf("Array.contains('abc', 'a')").reason).toBe('Array.contains() needs an array first, got a string');
    expect(errorOf('Array.contains([1])').reason).toBe('Array.contains() takes 2 arguments, got 1');
  });
});

describe('JSON', () => {
  it('stringifies with JSON rules', () => {
    expect(ev("JSON.stringify({a: [1, 'x', null], b: undefined, c: JSON.parse})")).toBe('{"a":[1,"x",null]}');
    expect(ev("JSON.stringify('q\"')")).toBe('"q\\""');
    expect(ev('JSON.stringify(undefined)')).toBeUndefined();
    expect(ev('JSON.stringify(messages)', { messages: [{ role: 'user', content: 'hi' }] })).toBe(
      '[{"role":"user","content":"hi"}]',
    );
  });

  it('parses JSON text', () => {
    expect(ev(`JSON.parse('{"a": [1, true]}').a[1]`)).toBe(true);
    expect(ev('JSON.parse(body).k', { body: '{"k": "v"}' })).toBe('v');
    expect(errorOf("JSON.parse('{bad')")).toMatchObject({
      code: 'builtin',
      reason: 'JSON.parse(): the text is not valid JSON',
    });
    expect(errorOf('JSON.parse(1)').reason).toBe('JSON.parse() needs a string, got a number');
  });

  it('keeps stringify within the string limit', () => {
    const err = (() => {
      try {
        evaluateExpression('JSON.stringify([s, s, s])', { s: 'x'.repeat(40) }, { limits: { maxStringLength: 100 } });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toMatchObject({ code: 'limit', reason: 'the JSON text would exceed 100 characters' });
  });
});

describe('encodeURIComponent', () => {
  it.each([
    ["encodeURIComponent('a b&c=d/é')", 'a%20b%26c%3Dd%2F%C3%A9'],
    ['encodeURIComponent(12)', '12'],
    ['encodeURIComponent(true)', 'true'],
  ])('%s', (source, expected) => {
    expect(ev(source)).toBe(expected);
  });

  it('refuses objects and unpaired surrogates', () => {
    expect(errorOf('encodeURIComponent({})').reason).toBe(
      'encodeURIComponent() needs a string, number or boolean, got an object',
    );
    expect(errorOf("encodeURIComponent('\\uD800')")).toMatchObject({
      code: 'builtin',
      reason: 'encodeURIComponent(): the text holds an unpaired surrogate',
    });
  });
});
