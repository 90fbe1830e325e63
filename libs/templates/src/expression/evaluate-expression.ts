import { TemplateError } from '../errors/template-error';
import { RenderBudget, withRenderBudget } from '../limits/render-budget';
import { resolveLimits } from '../limits/template-limits';
import { type ScopeLike, TemplateScope } from '../scope/template-scope';
import type { TemplateOptions } from '../template/template-options';
import { exportValue } from '../values/export-value';
import { SizeBudget } from '../values/size-budget';
import type { JsonValue } from '../values/template-value';
import { evaluateNode } from './evaluate-node';
import { parseExpression } from './parse-expression';

/**
 * Evaluates one bare expression (no braces), e.g. `response.json()?.usage`. The result follows the
 * same rules as a whole-string placeholder.
 */
export function evaluateExpression(
  source: string,
  scope: ScopeLike,
  options: TemplateOptions = {},
): JsonValue | undefined {
  const limits = resolveLimits(options.limits);
  try {
    const { root } = parseExpression(source, limits);
    return withRenderBudget(new RenderBudget(limits), () => {
      const value = evaluateNode(root, TemplateScope.from(scope, limits), limits);
      return exportValue(value, new SizeBudget(limits.maxOutputSize, 'the result'), limits.maxDataDepth);
    });
  } catch (err) {
    if (err instanceof TemplateError) throw err.at({ placeholder: source, loc: options.path });
    throw err;
  }
}
