import type { TemplatePathSegment } from '../errors/template-error';
import type { TemplateLimits } from '../limits/template-limits';

export interface TemplateOptions {
  /** Overrides of `DEFAULT_TEMPLATE_LIMITS`. */
  limits?: Partial<TemplateLimits>;
  /** Where the value sits in a larger document, prefixed to error paths (e.g. `['template', 'outputs']`). */
  path?: readonly TemplatePathSegment[];
}
