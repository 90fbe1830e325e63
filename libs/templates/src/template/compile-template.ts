import { RenderBudget, withRenderBudget } from '../limits/render-budget';
import { resolveLimits, type TemplateLimits } from '../limits/template-limits';
import { type ScopeLike, TemplateScope } from '../scope/template-scope';
import { SizeBudget } from '../values/size-budget';
import type { JsonValue } from '../values/template-value';
import { compileNode, placeholdersOf } from './compile-node';
import { renderNode } from './render-node';
import type { TemplateOptions } from './template-options';
import type { TemplateNode } from './template-node';

/** A template parsed and checked once, to render many times (once per request). */
export class CompiledTemplate {
  /** Every name the template's expressions read, built-ins included, each once. */
  readonly names: readonly string[];

  /** @internal use `compileTemplate` */
  constructor(
    private readonly root: TemplateNode,
    private readonly limits: Readonly<TemplateLimits>,
  ) {
    const names = placeholdersOf(root).flatMap((p) => p.expression.identifiers.map((id) => id.name));
    this.names = [...new Set(names)];
  }

  /**
   * Renders against a scope (from `buildScope`, or a plain record, which is copied first). Objects in
   * the result have a null prototype. Throws a `TemplateError` naming the failing placeholder.
   */
  render(scope: ScopeLike): JsonValue | undefined {
    return withRenderBudget(new RenderBudget(this.limits), () =>
      renderNode(this.root, {
        scope: TemplateScope.from(scope, this.limits),
        limits: this.limits,
        budget: new SizeBudget(this.limits.maxOutputSize, 'the rendered template'),
      }),
    );
  }
}

/** Parses every placeholder in `template`; throws a `TemplateError` for the first problem found. */
export function compileTemplate(template: unknown, options: TemplateOptions = {}): CompiledTemplate {
  const limits = resolveLimits(options.limits);
  const root = compileNode(template, limits, options.path ?? [], (error) => {
    throw error;
  });
  return new CompiledTemplate(root, limits);
}
