import { TemplateError } from '../errors/template-error';
import { chargeChars } from './render-budget';

/**
 * Bounds on the work one template may cause. Provider templates are written by tenants and rendered
 * on the request path, so every dimension a template controls has a ceiling. Lengths and sizes are
 * counted in UTF-16 code units (JavaScript string length).
 */
export interface TemplateLimits {
  /** Longest expression inside one `{{ }}`. */
  maxExpressionLength: number;
  /** Deepest nesting of an expression's syntax tree (parentheses, operators, literals). */
  maxExpressionDepth: number;
  /** Node visits per evaluation of one expression. */
  maxSteps: number;
  /** Longest string an expression may build (`+`, template literals, built-ins). */
  maxStringLength: number;
  /** Largest rendered template, measured as its JSON text. */
  maxOutputSize: number;
  /** Deepest nesting of data: the template itself, scope values, parsed JSON. */
  maxDataDepth: number;
  /** Node visits of one whole render, all placeholders together. */
  maxRenderSteps: number;
  /** Characters of strings one whole render may build, intermediate ones included. */
  maxRenderChars: number;
}

export const DEFAULT_TEMPLATE_LIMITS: Readonly<TemplateLimits> = Object.freeze({
  maxExpressionLength: 2_000,
  maxExpressionDepth: 100,
  maxSteps: 10_000,
  maxStringLength: 1_048_576,
  maxOutputSize: 1_048_576,
  maxDataDepth: 256,
  maxRenderSteps: 100_000,
  maxRenderChars: 16_777_216,
});

/** Fills in defaults and refuses nonsense, so a misconfigured caller fails at once, not per request. */
export function resolveLimits(overrides: Partial<TemplateLimits> = {}): Readonly<TemplateLimits> {
  const limits = { ...DEFAULT_TEMPLATE_LIMITS };
  for (const key of Object.keys(DEFAULT_TEMPLATE_LIMITS) as (keyof TemplateLimits)[]) {
    const value = overrides[key];
    if (value === undefined) continue;
    if (!Number.isInteger(value) || value < 1) {
      throw new TemplateError('limit', `limit ${key} must be a positive integer`);
    }
    limits[key] = value;
  }
  return Object.freeze(limits);
}

/**
 * Refuses a string longer than `maxStringLength` before it is built, and charges its length to
 * the render's total (maxRenderChars).
 */
export function checkStringLength(length: number, limits: Readonly<TemplateLimits>): void {
  if (length > limits.maxStringLength) {
    throw new TemplateError('limit', `a string would exceed ${limits.maxStringLength} characters`);
  }
  chargeChars(length);
}
