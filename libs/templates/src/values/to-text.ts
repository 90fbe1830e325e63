import { chargeChars } from '../limits/render-budget';
import { TemplateError } from '../errors/template-error';
import type { TemplateLimits } from '../limits/template-limits';
import { exportValue } from './export-value';
import { SizeBudget } from './size-budget';
import { BuiltinFunction, type TemplateValue } from './template-value';

/**
 * The text a value contributes where it meets other text (a placeholder inside a longer string, a
 * template literal): missing values contribute nothing, objects and arrays their JSON.
 */
export function toText(value: TemplateValue, limits: Readonly<TemplateLimits>): string {
  if (value === undefined || value === null) return '';
  if (value instanceof BuiltinFunction) {
    throw new TemplateError('type', `the built-in ${value.name} is a function and cannot become text (call it?)`);
  }
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
    case 'boolean':
      return String(value);
  }
  return stringifyJson(value, limits) ?? '';
}

/** JSON text of a value, refused before it is built if it would pass `maxStringLength`. */
export function stringifyJson(value: TemplateValue, limits: Readonly<TemplateLimits>): string | undefined {
  const data = exportValue(value, new SizeBudget(limits.maxStringLength, 'the JSON text'), limits.maxDataDepth);
  if (data === undefined) return undefined;
  const text = JSON.stringify(data);
  // The budget does not count escapes; the exact length is checked here.
  if (text.length > limits.maxStringLength) {
    throw new TemplateError('limit', `the JSON text would exceed ${limits.maxStringLength} characters`);
  }
  chargeChars(text.length);
  return text;
}
