import { GLOBAL_BUILTINS } from '../builtins/global-builtins';
import { TemplateError } from '../errors/template-error';
import { FORBIDDEN_IDENTIFIERS } from '../expression/forbidden-names';
import { type TemplateLimits } from '../limits/template-limits';
import { importValue } from '../values/import-value';
import type { TemplateValue } from '../values/template-value';

/** What a render reads names from: a `TemplateScope`, or a plain record that is copied into one. */
export type ScopeLike = TemplateScope | Readonly<Record<string, unknown>>;

/**
 * The names a template can read, already copied into sandbox values. Build one per request (with
 * `buildScope`) and render several templates against it without copying the data again.
 */
export class TemplateScope {
  private constructor(private readonly entries: ReadonlyMap<string, TemplateValue>) {}

  /** Copies each value into plain data; refuses names that would shadow a built-in or are forbidden. */
  static fromEntries(entries: Iterable<readonly [string, unknown]>, limits: Readonly<TemplateLimits>): TemplateScope {
    const map = new Map<string, TemplateValue>();
    for (const [name, value] of entries) {
      checkScopeName(name);
      map.set(name, importValue(value, limits.maxDataDepth, `scope value "${name}"`));
    }
    return new TemplateScope(map);
  }

  static from(scope: ScopeLike, limits: Readonly<TemplateLimits>): TemplateScope {
    return scope instanceof TemplateScope ? scope : TemplateScope.fromEntries(Object.entries(scope), limits);
  }

  /** Built-ins first, then scope entries; a name in neither is `undefined`, so `x ?? default` works. */
  lookup(name: string): TemplateValue {
    return GLOBAL_BUILTINS.has(name) ? GLOBAL_BUILTINS.get(name) : this.entries.get(name);
  }

  get names(): readonly string[] {
    return [...this.entries.keys()];
  }
}

function checkScopeName(name: string): void {
  if (GLOBAL_BUILTINS.has(name) || FORBIDDEN_IDENTIFIERS.has(name) || name === 'undefined') {
    throw new TemplateError('scope', `the scope name "${name}" is reserved`);
  }
}
