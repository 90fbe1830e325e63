import { TemplateError } from '../errors/template-error';
import { chargeSteps } from '../limits/render-budget';
import { checkStringLength, type TemplateLimits } from '../limits/template-limits';
import type { TemplateScope } from '../scope/template-scope';
import { toText } from '../values/to-text';
import {
  BuiltinFunction,
  createDataObject,
  isDataObject,
  isTemplateArray,
  kindOf,
  type TemplateValue,
} from '../values/template-value';
import type { ExpressionNode } from './expression-node';
import { readProperty } from './member-access';
import { applyBinary, applyUnary, isTruthy } from './operators';

// Returned through the links of an optional chain when `?.` meets null or undefined; the chain's
// boundary turns it into `undefined`. It never escapes `evaluateNode`.
const SHORT_CIRCUIT: unique symbol = Symbol('short-circuit');
type Linked = TemplateValue | typeof SHORT_CIRCUIT;

interface Run {
  readonly scope: TemplateScope;
  readonly limits: Readonly<TemplateLimits>;
  steps: number;
}

/**
 * Evaluates a checked syntax tree. The language has no loops and no user functions, so each node is
 * visited at most once; the step count still bounds the work (spreads count the elements they copy).
 */
export function evaluateNode(
  root: ExpressionNode,
  scope: TemplateScope,
  limits: Readonly<TemplateLimits>,
): TemplateValue {
  return evaluate(root, { scope, limits, steps: 0 });
}

function tick(run: Run, count = 1): void {
  run.steps += count;
  chargeSteps(count);
  if (run.steps > run.limits.maxSteps) {
    throw new TemplateError('limit', `the expression needs more than ${run.limits.maxSteps} evaluation steps`);
  }
}

/** Runs `fn`, attributing an error that has no offset yet to `node` (or to an explicit offset). */
function at<T>(node: ExpressionNode | number, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof TemplateError && err.expressionOffset === undefined) {
      throw err.at({ expressionOffset: typeof node === 'number' ? node : node.start });
    }
    throw err;
  }
}

function evaluate(node: ExpressionNode, run: Run): TemplateValue {
  tick(run);
  switch (node.kind) {
    case 'literal':
      return node.value;
    case 'identifier':
      return run.scope.lookup(node.name);
    case 'template': {
      let out = node.quasis[0];
      node.expressions.forEach((expression, i) => {
        const text = at(expression, () => toText(evaluate(expression, run), run.limits));
        const next = node.quasis[i + 1];
        at(node, () => checkStringLength(out.length + text.length + next.length, run.limits));
        out += text + next;
      });
      return out;
    }
    case 'array':
      return evaluateArray(node, run);
    case 'object':
      return evaluateObject(node, run);
    case 'member':
    case 'call': {
      const value = evaluateLink(node, run);
      return value === SHORT_CIRCUIT ? undefined : value;
    }
    case 'chain': {
      const value = evaluateLink(node.expression, run);
      return value === SHORT_CIRCUIT ? undefined : value;
    }
    case 'unary': {
      const value = evaluate(node.argument, run);
      return at(node, () => applyUnary(node.operator, value));
    }
    case 'binary': {
      const left = evaluate(node.left, run);
      const right = evaluate(node.right, run);
      return at(node, () => applyBinary(node.operator, left, right, run.limits));
    }
    case 'logical': {
      const left = evaluate(node.left, run);
      if (node.operator === '||') return isTruthy(left) ? left : evaluate(node.right, run);
      if (node.operator === '&&') return isTruthy(left) ? evaluate(node.right, run) : left;
      return left === null || left === undefined ? evaluate(node.right, run) : left;
    }
    case 'conditional':
      return isTruthy(evaluate(node.test, run)) ? evaluate(node.consequent, run) : evaluate(node.alternate, run);
  }
}

/** One link of a member/call chain, which may short-circuit on `?.`. */
function evaluateLink(node: ExpressionNode, run: Run): Linked {
  if (node.kind !== 'member' && node.kind !== 'call') return evaluate(node, run);
  tick(run);
  if (node.kind === 'member') {
    const target = evaluateLink(node.object, run);
    if (target === SHORT_CIRCUIT) return SHORT_CIRCUIT;
    if (node.optional && (target === null || target === undefined)) return SHORT_CIRCUIT;
    const key = 'fixed' in node.property ? node.property.fixed : evaluate(node.property.computed, run);
    return at(node.keyStart, () => readProperty(target, key));
  }
  const callee = evaluateLink(node.callee, run);
  if (callee === SHORT_CIRCUIT) return SHORT_CIRCUIT;
  if (node.optional && (callee === null || callee === undefined)) return SHORT_CIRCUIT;
  if (!(callee instanceof BuiltinFunction)) {
    throw new TemplateError(
      'type',
      `${describeCallee(node.callee)} is ${kindOf(callee)}, not a function: only built-in functions can be called`,
      { expressionOffset: node.start },
    );
  }
  const args = node.args.map((arg) => evaluate(arg, run));
  return at(node, () => callee.invoke(args, { limits: run.limits }));
}

function describeCallee(node: ExpressionNode): string {
  if (node.kind === 'identifier') return `"${node.name}"`;
  if (node.kind === 'member' && 'fixed' in node.property) return `"${node.property.fixed}"`;
  return 'the callee';
}

function evaluateArray(node: ExpressionNode & { kind: 'array' }, run: Run): TemplateValue {
  const out: TemplateValue[] = [];
  for (const element of node.elements) {
    const value = evaluate(element.value, run);
    if (!element.spread) {
      out.push(value);
      continue;
    }
    if (!isTemplateArray(value)) {
      throw new TemplateError('type', `only an array can be spread into an array, got ${kindOf(value)}`, {
        expressionOffset: element.value.start,
      });
    }
    at(element.value, () => tick(run, value.length));
    out.push(...value);
  }
  return out;
}

function evaluateObject(node: ExpressionNode & { kind: 'object' }, run: Run): TemplateValue {
  const out = createDataObject();
  for (const entry of node.entries) {
    if ('key' in entry) {
      out[entry.key] = evaluate(entry.value, run);
      continue;
    }
    const source = evaluate(entry.spread, run);
    // As in JavaScript, spreading null or undefined adds nothing: `{...(extra ?? null)}`.
    if (source === null || source === undefined) continue;
    if (!isDataObject(source)) {
      throw new TemplateError('type', `only an object can be spread into an object, got ${kindOf(source)}`, {
        expressionOffset: entry.spread.start,
      });
    }
    const keys = Object.keys(source);
    at(entry.spread, () => tick(run, keys.length));
    for (const key of keys) out[key] = source[key];
  }
  return out;
}
