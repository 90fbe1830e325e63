export {
  formatTemplatePath,
  TemplateError,
  type TemplateErrorCode,
  type TemplateErrorLocation,
  type TemplatePathSegment,
} from './errors/template-error';
export { DEFAULT_TEMPLATE_LIMITS, resolveLimits, type TemplateLimits } from './limits/template-limits';
export { RenderBudget } from './limits/render-budget';
export type { JsonValue } from './values/template-value';
export type { TemplateResponse } from './builtins/response-value';
export { type ScopeLike, TemplateScope } from './scope/template-scope';
export { buildScope, type ScopeParts } from './scope/build-scope';
export type { TemplateOptions } from './template/template-options';
export { CompiledTemplate, compileTemplate } from './template/compile-template';
export { renderTemplate } from './template/render-template';
export { validateTemplate, type ValidateOptions } from './template/validate-template';
export { evaluateExpression } from './expression/evaluate-expression';
export {
  RESERVED_STAGE_OUTPUTS,
  validateProviderTemplate,
  WORKFLOW_LIMITS,
  type ProviderTemplateCheck,
} from './workflow/validate-provider-template';
