import type { ScopeLike } from '../scope/template-scope';
import type { JsonValue } from '../values/template-value';
import { compileTemplate } from './compile-template';
import type { TemplateOptions } from './template-options';

/**
 * Compiles and renders in one go. A string that is exactly one `{{ expr }}` becomes the expression's
 * value, whatever its type; any other string with placeholders becomes a string. Compile once with
 * `compileTemplate` where the same template renders many times.
 */
export function renderTemplate(
  template: unknown,
  scope: ScopeLike,
  options: TemplateOptions = {},
): JsonValue | undefined {
  return compileTemplate(template, options).render(scope);
}
