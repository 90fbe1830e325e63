import { cpuStopwatch } from '@bastion/testing';
import { TemplateError } from '../errors/template-error';
import { renderTemplate } from '../template/render-template';
import { evaluateExpression } from '../expression/evaluate-expression';

/** A placeholder that builds megabyte strings only to compare them: tiny output, heavy work. */
const HEAVY = `{{ ${Array.from({ length: 40 }, () => '(x + x) == (x + x)').join(' && ')} }}`;

describe('render budgets', () => {
  const scope = { x: 'a'.repeat(400_000) };

  it('stops a render whose placeholders together build too many characters', () => {
    const template = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, HEAVY]));
    const err = (() => {
      try {
        renderTemplate(template, scope);
      } catch (e) {
        return e as TemplateError;
      }
      throw new Error('rendered');
    })();
    expect(err).toBeInstanceOf(TemplateError);
    expect(err.message).toContain('characters of strings in total');
  });

  it('stops a render whose placeholders together take too many steps', () => {
    const many = `{{ [${Array.from({ length: 300 }, (_, i) => `${i % 10}`).join(', ')}].length }}`;
    const template = Array.from({ length: 400 }, () => many);
    expect(() => renderTemplate(template, {}, { limits: { maxRenderSteps: 50_000 } })).toThrow(
      'evaluation steps in total',
    );
    expect(renderTemplate(template.slice(0, 10), {}, { limits: { maxRenderSteps: 50_000 } })).toHaveLength(10);
  });

  it('gives each render and each evaluation its own budget', () => {
    const template = { a: '{{ (x + x) == (x + x) }}' };
    for (let i = 0; i < 50; i++) expect(renderTemplate(template, scope)).toEqual({ a: true });
    for (let i = 0; i < 50; i++) expect(evaluateExpression('(x + x) == (x + x)', scope)).toBe(true);
  });
});

/**
 * Renders `template`, returning the TemplateError it fails with and the CPU time that took: CPU
 * time, not wall time, bounds the work the render did however busy the machine is.
 */
function failureOf(template: unknown, scope: Record<string, unknown>): { err: TemplateError; ms: number } {
  const cpuMs = cpuStopwatch();
  try {
    renderTemplate(template, scope);
  } catch (e) {
    if (!(e instanceof TemplateError)) throw e;
    return { err: e, ms: cpuMs() };
  }
  throw new Error('rendered');
}

/** `n` copies of `part` joined with `&&`, one placeholder. */
const chain = (part: string, n: number) => `{{ ${Array.from({ length: n }, () => part).join('&&')} }}`;

describe('render budgets: work that grows with a value', () => {
  // 350,000 zeros: each JSON.parse of it is a third of a million values to copy.
  const p = `[${Array.from({ length: 350_000 }, () => '0').join(',')}]`;

  it('charges JSON.parse a step per value it yields', () => {
    // 128 parses in all (an expression nests at most 100 deep, so over 8 placeholders).
    const template = Array.from({ length: 8 }, () => chain('JSON.parse(p).length', 16));
    const { err, ms } = failureOf(template, { p });
    expect(err.code).toBe('limit');
    expect(err.message).toContain('evaluation steps in total');
    expect(ms).toBeLessThan(500);
  });

  it('charges JSON.parse its text as characters, before parsing', () => {
    // 100,000 characters a parse and one value each: 200 parses pass the 16 Mi characters.
    const q = JSON.stringify('x'.repeat(99_998));
    const template = Array.from({ length: 20 }, () => chain('JSON.parse(q) != ""', 10));
    const { err, ms } = failureOf(template, { q });
    expect(err.code).toBe('limit');
    expect(err.message).toContain('characters of strings in total');
    expect(ms).toBeLessThan(500);
  });

  it('charges Array.contains a step per element it scans', () => {
    const list = Array.from({ length: 60_000 }, () => 0);
    const { err, ms } = failureOf(chain('!Array.contains(list,1)', 50), { list });
    expect(err.code).toBe('limit');
    expect(err.message).toContain('evaluation steps in total');
    expect(ms).toBeLessThan(500);
  });

  it('charges Array.contains the strings it compares', () => {
    const x = `${'a'.repeat(500_000)}b`;
    const y = `${'a'.repeat(500_000)}c`;
    const list = `[${Array.from({ length: 40 }, () => 'x').join(', ')}]`;
    const template = Array.from({ length: 20 }, () => `{{ Array.contains(${list}, y) }}`);
    const { err, ms } = failureOf(template, { x, y });
    expect(err.message).toContain('characters of strings in total');
    expect(ms).toBeLessThan(500);
  });

  it('charges comparisons of strings, unary "+" and string indexes by their length', () => {
    const x = `${'a'.repeat(500_000)}b`;
    const y = `${'a'.repeat(500_000)}c`;
    const digits = '1'.repeat(500_000);
    const list = [1];
    for (const part of ['x != y', 'x < y', '+digits > 0', 'list[digits] === undefined']) {
      const template = Array.from({ length: 40 }, () => chain(part, 30));
      const { err, ms } = failureOf(template, { x, y, digits, list });
      expect([part, err.message]).toEqual([part, expect.stringContaining('characters of strings in total')]);
      expect(ms).toBeLessThan(500);
    }
  });

  it('leaves ordinary uses alone', () => {
    const body = JSON.stringify({ choices: [{ message: { content: 'hi' } }], usage: { total_tokens: 12 } });
    const template = {
      content: '{{ JSON.parse(body).choices[0].message.content }}',
      tokens: '{{ JSON.parse(body).usage.total_tokens }}',
      streaming: '{{ Array.contains(["a", "b", "c"], mode) }}',
      other: '{{ Array.contains([1, 2, 0 / 0], 0 / 0) && !Array.contains([], 1) }}',
      same: '{{ mode == "b" && mode < "c" && +"42" === 42 && ["x", "y"]["1"] }}',
    };
    expect(renderTemplate(template, { body, mode: 'b' })).toEqual({
      content: 'hi',
      tokens: 12,
      streaming: true,
      other: true,
      same: 'y',
    });
  });
});
