import { evaluateExpression } from '../expression/evaluate-expression';
import { buildScope } from './build-scope';

describe('buildScope', () => {
  it('puts the prompt, messages, inputs and secrets under bare names', () => {
    const scope = buildScope({
      prompt: 'Hi',
      messages: [{ role: 'user', content: 'Hi' }],
      inputs: { model: 'gpt-4o', baseUrl: 'https://api.example.com' },
      secrets: { apiKey: 'sk-1' },
    });
    expect(evaluateExpression('[prompt, messages[0].role, model, baseUrl, apiKey]', scope)).toEqual([
      'Hi',
      'user',
      'gpt-4o',
      'https://api.example.com',
      'sk-1',
    ]);
    expect(scope.names).toEqual(['prompt', 'messages', 'model', 'baseUrl', 'apiKey']);
  });

  it('refuses a name that is both an input and a secret, rather than picking one', () => {
    expect(() => buildScope({ inputs: { key: 'a' }, secrets: { key: 'b' } })).toThrow(
      '"key" is both an input and a secret',
    );
  });

  it.each(['prompt', 'messages', 'response'])('refuses an input or secret named %s', (name) => {
    expect(() => buildScope({ inputs: { [name]: 'x' } })).toThrow(
      `the input "${name}" clashes with the built-in scope name "${name}"`,
    );
    expect(() => buildScope({ secrets: { [name]: 'x' } })).toThrow(`the secret "${name}" clashes`);
  });

  it.each(['String', 'JSON', 'Array', 'encodeURIComponent', 'process', 'constructor', '__proto__', 'undefined'])(
    'refuses the reserved name %s',
    (name) => {
      expect(() => buildScope({ inputs: { [name]: 'x' } })).toThrow(`the scope name "${name}" is reserved`);
    },
  );

  it("puts a workflow's stage values under bare names, leaving undefined ones out", () => {
    const scope = buildScope({
      prompt: 'Hi',
      inputs: { model: 'm' },
      values: { access_token: 'tok', attempt: 2, missing: undefined },
    });
    expect(evaluateExpression('[access_token, attempt, model, missing ?? "none"]', scope)).toEqual([
      'tok',
      2,
      'm',
      'none',
    ]);
    expect(scope.names).toEqual(['prompt', 'model', 'access_token', 'attempt']);
  });

  it('refuses a stage value that clashes with a fixed name, an input or a secret', () => {
    expect(() => buildScope({ prompt: 'x', values: { prompt: 'y' } })).toThrow('the stage output "prompt" clashes');
    expect(() => buildScope({ inputs: { model: 'm' }, values: { model: 'n' } })).toThrow(
      'the stage output "model" clashes',
    );
    expect(() => buildScope({ secrets: { apiKey: 'k' }, values: { apiKey: 'n' } })).toThrow(
      'the stage output "apiKey" clashes',
    );
  });

  it('copies the data, so later changes to it are not seen', () => {
    const messages = [{ role: 'user', content: 'before' }];
    const scope = buildScope({ messages });
    messages[0].content = 'after';
    expect(evaluateExpression('messages[0].content', scope)).toBe('before');
  });
});

describe('plain records as scopes', () => {
  const fails = (record: Record<string, unknown>) => () => evaluateExpression('1', record);

  it('copies plain data and turns byte arrays into arrays of numbers', () => {
    expect(evaluateExpression('b', { b: Uint8Array.of(1, 2) })).toEqual([1, 2]);
    expect(evaluateExpression('o', { o: Object.assign(Object.create(null) as object, { k: 1 }) })).toEqual({ k: 1 });
  });

  it('refuses anything that is not plain data, naming where it is', () => {
    expect(fails({ f: () => 1 })).toThrow('scope value "f" is a function, which templates cannot use');
    expect(fails({ o: { list: [1, new Date()] } })).toThrow(
      'scope value "o" at list[1] is [object Date], not plain data',
    );
    expect(fails({ o: new (class Thing {})() })).toThrow('scope value "o" is [object Object], not plain data');
    expect(
      fails({
        o: {
          get g() {
            return 1;
          },
        },
      }),
    ).toThrow('scope value "o" at g is a getter or setter, not plain data');
    expect(fails({ s: Symbol('x') })).toThrow('scope value "s" is a symbol');
    expect(fails({ String: 'x' })).toThrow('the scope name "String" is reserved');
  });

  it('refuses data nested too deeply, or circular', () => {
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(fails({ loop })).toThrow('scope value "loop" at self.self');
    expect(fails({ loop })).toThrow('nests deeper than 256 levels (or is circular)');
  });
});
