import { cpuStopwatch } from '@bastion/testing';
import { buildScope, evaluateExpression, renderTemplate, TemplateError, type TemplateErrorCode } from './index';

/**
 * Attempts to get from a template to the host: prototypes, constructors, globals, host functions,
 * prototype pollution, and work or memory without bound. Each must end in a TemplateError, and no
 * attempt may leave a trace on the host's shared objects or a secret in a message.
 */

const SECRET = 'sk-live-SECRET-VALUE';

const scope = () =>
  buildScope({
    prompt: 'hello',
    messages: [{ role: 'user', content: 'hello' }],
    inputs: { model: 'm' },
    secrets: { apiKey: SECRET },
    response: { statusCode: 200, headers: { 'content-type': 'application/json' }, body: '{"ok": true}' },
  });

/** Everything an escape would most likely touch, to compare before and after. */
function hostFingerprint(): string {
  const names = (o: object) => Reflect.ownKeys(o).map(String).sort().join(',');
  return [
    names(Object.prototype),
    names(Array.prototype),
    names(String.prototype),
    names(Function.prototype),
    names(globalThis),
    names(JSON),
    String(Object.getPrototypeOf({}) === Object.prototype),
  ].join('|');
}

function failure(run: () => unknown): TemplateError {
  let result: unknown;
  try {
    result = run();
  } catch (err) {
    if (err instanceof TemplateError) return err;
    throw new Error(`escaped with a non-template error: ${String(err)}`, { cause: err });
  }
  throw new Error(`did not fail; produced ${typeof result}: ${JSON.stringify(result)}`);
}

const ATTEMPTS: [string, TemplateErrorCode][] = [
  // Constructors and prototypes, the classic way to Function and then to process.
  ["constructor.constructor('return process')()", 'forbidden'],
  ["''.constructor", 'forbidden'],
  ["''.constructor.constructor('return process')()", 'forbidden'],
  ["[].constructor.constructor('return process')()", 'forbidden'],
  ['[].__proto__', 'forbidden'],
  ["[]['__proto__']", 'forbidden'],
  ['({}).__proto__', 'forbidden'],
  ['({}).toString', 'forbidden'],
  ['({}).valueOf()', 'forbidden'],
  ["({}).hasOwnProperty('x')", 'forbidden'],
  ['({}).__defineGetter__', 'forbidden'],
  ["({}).__lookupGetter__('__proto__')", 'forbidden'],
  ['prompt.constructor', 'forbidden'],
  ["prompt['constr' + 'uctor']", 'forbidden'],
  ["prompt[['constructor']]", 'type'],
  ['prompt.toString()', 'type'],
  ['prompt.at(0)', 'type'],
  ['messages.__lookupGetter__', 'type'],
  ['messages[0].constructor', 'forbidden'],
  ['messages[0].toString()', 'forbidden'],
  ["model[['__proto__']]", 'type'],
  ['model[{}]', 'type'],
  ['__proto__', 'forbidden'],
  ['prototype', 'forbidden'],
  // Host globals.
  ['this', 'unsupported'],
  ['this.constructor', 'unsupported'],
  ['globalThis', 'forbidden'],
  ['globalThis.process', 'forbidden'],
  ['global.process', 'forbidden'],
  ['process', 'forbidden'],
  ['process.env', 'forbidden'],
  ["process.mainModule.require('child_process')", 'forbidden'],
  ['typeof process', 'forbidden'],
  ["require('fs')", 'forbidden'],
  ['module.constructor', 'forbidden'],
  ['arguments', 'forbidden'],
  ["eval('1')", 'forbidden'],
  ["Function('return this')()", 'forbidden'],
  ['Object.keys(prompt)', 'forbidden'],
  ['Reflect.ownKeys(JSON)', 'forbidden'],
  ['Symbol.iterator', 'forbidden'],
  ["Buffer.from('x')", 'forbidden'],
  ['`${constructor}`', 'forbidden'],
  // Our built-ins: none of them is a way back to the host.
  ['response.json.constructor', 'forbidden'],
  ["response['json']['constructor']", 'forbidden'],
  ['(response.json)?.constructor', 'forbidden'],
  ['response.json.call', 'type'],
  ['response.json.bind(null)', 'type'],
  ['response.json.apply(null, [])', 'type'],
  ['response.json.name', 'type'],
  ["response.json()['__proto__']", 'forbidden'],
  ['response.headers.constructor', 'forbidden'],
  ['String.constructor', 'forbidden'],
  ['String.prototype', 'forbidden'],
  ['String.decode.constructor', 'forbidden'],
  ["String['decode']['constructor']", 'forbidden'],
  ['String.fromCharCode(112)', 'type'],
  ['String.raw`x`', 'unsupported'],
  ['JSON.__proto__', 'forbidden'],
  ['JSON.parse.constructor', 'forbidden'],
  ["JSON.parse('{}').constructor", 'forbidden'],
  ['JSON.stringify.call(null, 1)', 'type'],
  ['Array.contains.constructor', 'forbidden'],
  ['Array.from([1])', 'type'],
  ['Array(1e9)', 'type'],
  ['encodeURIComponent.length', 'type'],
  // Prototype pollution through created or parsed objects.
  ['{__proto__: {polluted: true}}', 'forbidden'],
  ["{'__proto__': {polluted: true}}", 'forbidden'],
  ['JSON.parse(\'{"__proto__": {"polluted": true}}\')', 'forbidden'],
  ['{...JSON.parse(\'{"__proto__": {"polluted": true}}\')}', 'forbidden'],
  ['JSON.parse(\'{"__proto__": {"polluted": true}}\').__proto__.polluted', 'forbidden'],
  // Code in any form.
  ['(() => 1)()', 'unsupported'],
  ['(function () { return this })()', 'unsupported'],
  ['async () => await 1', 'unsupported'],
  ["new Function('return process')", 'unsupported'],
  ['class { static { } }', 'unsupported'],
  ["import('child_process')", 'unsupported'],
  ['import.meta', 'unsupported'],
  ['prompt`x`', 'unsupported'],
  ['apiKey = 1', 'unsupported'],
  ['response.statusCode = 1', 'unsupported'],
  ['delete JSON.parse', 'unsupported'],
  ['(0, eval)', 'unsupported'],
  ["'x' in JSON", 'unsupported'],
  ['JSON instanceof JSON', 'unsupported'],
  ['while (true) {}', 'syntax'],
  ['for (;;) {}', 'syntax'],
  ['a; process', 'syntax'],
];

describe('sandbox escapes', () => {
  const before = hostFingerprint();

  afterAll(() => {
    expect(hostFingerprint()).toBe(before);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it.each(ATTEMPTS)('%s is refused (%s)', (attempt, code) => {
    const asExpression = failure(() => evaluateExpression(attempt, scope()));
    expect(asExpression.code).toBe(code);
    expect(asExpression.message).not.toContain(SECRET);

    const inTemplate = failure(() => renderTemplate({ json: { content: `{{ ${attempt} }}` } }, scope()));
    expect(inTemplate.code).toBe(code);
    expect(inTemplate.path).toBe('json.content');
    expect(inTemplate.message).not.toContain(SECRET);
  });

  it('does not put a secret in a message when an operation on it fails', () => {
    for (const attempt of [
      'apiKey.x',
      '-apiKey',
      '+apiKey',
      'apiKey + null',
      'apiKey < 1',
      'JSON.parse(apiKey)',
      'apiKey()',
    ]) {
      expect(failure(() => evaluateExpression(attempt, scope())).message).not.toContain(SECRET);
    }
  });

  it('cannot close a placeholder early to smuggle in a second one', () => {
    const err = failure(() => renderTemplate({ a: '{{ 1 }} {{ process }}' }, scope()));
    expect(err).toMatchObject({ code: 'forbidden', placeholder: 'process', position: 8 });
  });

  it('renders a built-in namespace or the response as data, without its functions', () => {
    expect(renderTemplate('{{ JSON }}', scope())).toEqual({});
    expect(renderTemplate('{{ response }}', scope())).toEqual({
      statusCode: 200,
      headers: { 'content-type': 'application/json' },
      body: '{"ok": true}',
    });
  });

  it('returns only fresh data, never a host object', () => {
    const out = renderTemplate({ a: '{{ response.json() }}', b: '{{ messages }}' }, scope()) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBeNull();
    expect(Object.getPrototypeOf(out.a)).toBeNull();
    expect(Array.isArray(out.b)).toBe(true);
  });
});

describe('limits', () => {
  const code = (run: () => unknown) => failure(run).code;
  const big = (n: number) => 'x'.repeat(n);

  it('refuses an expression longer than the limit', () => {
    expect(code(() => evaluateExpression('1+'.repeat(1_000) + '1', {}))).toBe('limit');
  });

  it('refuses deep nesting, even past what the parser can recurse', () => {
    expect(code(() => evaluateExpression('['.repeat(150) + ']'.repeat(150), {}))).toBe('limit');
    const deep = '('.repeat(20_000) + '1' + ')'.repeat(20_000);
    expect(code(() => evaluateExpression(deep, {}, { limits: { maxExpressionLength: 50_000 } }))).toBe('limit');
    expect(code(() => evaluateExpression('!'.repeat(1_500) + '1', {}))).toBe('limit');
  });

  it('has no loops, and counts evaluation steps', () => {
    expect(code(() => evaluateExpression('1' + '+1'.repeat(60), {}, { limits: { maxSteps: 100 } }))).toBe('limit');
    expect(evaluateExpression('1' + '+1'.repeat(40), {}, { limits: { maxSteps: 100 } })).toBe(41);
  });

  it('counts the elements a spread copies as steps', () => {
    const list = Array.from({ length: 4_000 }, (_, i) => i);
    expect(evaluateExpression('[...list, ...list].length', { list })).toBe(8_000);
    expect(code(() => evaluateExpression('[...list, ...list, ...list].length', { list }))).toBe('limit');
    const wide = Object.fromEntries(list.map((i) => [`k${i}`, i]));
    expect(code(() => evaluateExpression('{...wide, ...wide, ...wide}', { wide }))).toBe('limit');
  });

  it('bounds strings built with +, template literals and built-ins', () => {
    const s = big(600_000);
    expect(code(() => evaluateExpression('(s + s).length', { s }))).toBe('limit');
    expect(code(() => evaluateExpression('`${s}${s}`.length', { s }))).toBe('limit');
    expect(code(() => evaluateExpression('JSON.stringify([s, s]).length', { s }))).toBe('limit');
    expect(code(() => evaluateExpression('encodeURIComponent(e).length', { e: 'é'.repeat(200_000) }))).toBe('limit');
    expect(evaluateExpression('(s + s).length', { s: big(1_000) })).toBe(2_000);
  });

  it('bounds string doubling however it is written', () => {
    const doubling = 'JSON.stringify([' + 's,'.repeat(300) + 's])';
    expect(code(() => evaluateExpression(doubling, { s: big(10_000) }))).toBe('limit');
  });

  it('bounds the rendered output, even when it is many references to one string', () => {
    const s = big(300_000);
    expect(code(() => renderTemplate({ a: '{{ [s, s, s, s] }}' }, { s }))).toBe('limit');
    expect(code(() => renderTemplate({ a: '{{ s }}{{ s }}{{ s }}{{ s }}' }, { s }))).toBe('limit');
    expect(code(() => renderTemplate({ a: '{{ s }}', b: '{{ s }}', c: '{{ s }}', d: '{{ s }}' }, { s }))).toBe('limit');
    expect(code(() => renderTemplate({ a: `{{ [${'s,'.repeat(500)}] }}` }, { s: big(5_000) }))).toBe('limit');
  });

  it('bounds the nesting of parsed response bodies', () => {
    const body = '['.repeat(1_000) + ']'.repeat(1_000);
    const withResponse = buildScope({ response: { statusCode: 200, headers: {}, body } });
    expect(code(() => evaluateExpression('response.json()', withResponse))).toBe('limit');
  });

  it('finishes the worst cases quickly', () => {
    const cpuMs = cpuStopwatch();
    for (let i = 0; i < 20; i++) {
      failure(() => evaluateExpression('JSON.stringify([' + 's,'.repeat(300) + 's])', { s: big(100_000) }));
    }
    expect(cpuMs()).toBeLessThan(2_000);
  });
});
