import { TemplateError } from '../errors/template-error';
import type { SizeBudget } from './size-budget';
import { BuiltinFunction, isTemplateArray, type JsonValue, type TemplateValue } from './template-value';

/**
 * Turns a sandbox value into fresh JSON data, with JSON's rules for what it cannot hold: an undefined
 * or function property is left out, and becomes null in an array. Two departures, both to surface
 * mistakes: a function at the top (`response.json` without the call) and a non-finite number are
 * errors rather than silently vanishing or turning into null. A `__proto__` key is refused.
 */
export function exportValue(value: TemplateValue, budget: SizeBudget, maxDepth: number): JsonValue | undefined {
  if (value instanceof BuiltinFunction) {
    throw new TemplateError('type', `the built-in ${value.name} is a function and cannot be rendered (call it?)`);
  }
  return copy(value, budget, maxDepth, 0);
}

function copy(value: TemplateValue, budget: SizeBudget, maxDepth: number, depth: number): JsonValue | undefined {
  if (value === undefined || value instanceof BuiltinFunction) return undefined;
  if (value === null) {
    budget.charge(4);
    return null;
  }
  switch (typeof value) {
    case 'boolean':
      budget.charge(value ? 4 : 5);
      return value;
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TemplateError('type', 'the result holds a number that is not finite, which JSON cannot carry');
      }
      budget.charge(String(value).length);
      return value;
    case 'string':
      budget.charge(value.length + 2);
      return value;
  }
  if (depth >= maxDepth) {
    throw new TemplateError('limit', `the result nests deeper than ${maxDepth} levels`);
  }
  if (isTemplateArray(value)) {
    budget.charge(2 + Math.max(0, value.length - 1));
    return value.map((item: TemplateValue) => {
      const out = copy(item, budget, maxDepth, depth + 1);
      if (out !== undefined) return out;
      budget.charge(4);
      return null;
    });
  }
  budget.charge(2);
  const out = Object.create(null) as { [key: string]: JsonValue };
  let first = true;
  for (const key of Object.keys(value)) {
    // Callers merge results into ordinary objects, where this key would replace the prototype.
    if (key === '__proto__') throw new TemplateError('forbidden', 'the result has a "__proto__" key');
    const item = copy(value[key], budget, maxDepth, depth + 1);
    if (item === undefined) continue;
    budget.charge(key.length + 3 + (first ? 0 : 1));
    first = false;
    out[key] = item;
  }
  return out;
}
