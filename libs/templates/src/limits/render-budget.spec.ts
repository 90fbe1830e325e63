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
