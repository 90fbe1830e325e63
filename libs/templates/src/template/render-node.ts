import { TemplateError } from '../errors/template-error';
import { evaluateNode } from '../expression/evaluate-node';
import type { TemplateLimits } from '../limits/template-limits';
import type { TemplateScope } from '../scope/template-scope';
import { exportValue } from '../values/export-value';
import type { SizeBudget } from '../values/size-budget';
import type { JsonValue } from '../values/template-value';
import { toText } from '../values/to-text';
import type { PlaceholderNode, TemplateNode } from './template-node';

interface Render {
  readonly scope: TemplateScope;
  readonly limits: Readonly<TemplateLimits>;
  /** Shared by the whole template, so its total output is bounded, not each string. */
  readonly budget: SizeBudget;
}

/**
 * Renders a compiled template. An object property that renders to `undefined` is left out and an
 * array item becomes null, as `JSON.stringify` would do, so the result is always JSON data.
 */
export function renderNode(node: TemplateNode, render: Render): JsonValue | undefined {
  switch (node.kind) {
    case 'constant':
      return exportValue(node.value, render.budget, render.limits.maxDataDepth);
    case 'whole':
      return withLocation(node.placeholder, () => {
        const value = evaluateNode(node.placeholder.expression.root, render.scope, render.limits);
        return exportValue(value, render.budget, render.limits.maxDataDepth);
      });
    case 'text': {
      let out = '';
      render.budget.charge(2);
      for (const part of node.parts) {
        const text = typeof part === 'string' ? part : withLocation(part, () => evaluateText(part, render));
        withLocation(typeof part === 'string' ? { loc: node.loc } : part, () => render.budget.charge(text.length));
        out += text;
      }
      return out;
    }
    case 'array':
      render.budget.charge(2 + Math.max(0, node.items.length - 1));
      return node.items.map((item) => {
        const value = renderNode(item, render);
        if (value !== undefined) return value;
        render.budget.charge(4);
        return null;
      });
    case 'object': {
      render.budget.charge(2);
      const out = Object.create(null) as { [key: string]: JsonValue };
      for (const [key, child] of node.entries) {
        const value = renderNode(child, render);
        if (value === undefined) continue;
        render.budget.charge(key.length + 4);
        out[key] = value;
      }
      return out;
    }
  }
}

function evaluateText(placeholder: PlaceholderNode, render: Render): string {
  return toText(evaluateNode(placeholder.expression.root, render.scope, render.limits), render.limits);
}

function withLocation<T>(where: Partial<PlaceholderNode> & Pick<PlaceholderNode, 'loc'>, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TemplateError) {
      throw err.at({ placeholder: where.source, position: where.position, loc: where.loc });
    }
    throw err;
  }
}
