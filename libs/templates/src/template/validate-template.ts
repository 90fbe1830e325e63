import { GLOBAL_BUILTINS } from '../builtins/global-builtins';
import { TemplateError } from '../errors/template-error';
import { resolveLimits } from '../limits/template-limits';
import { compileNode, placeholdersOf } from './compile-node';
import type { TemplateOptions } from './template-options';

export interface ValidateOptions extends TemplateOptions {
  /**
   * The provider's input and secret names. When given, reading any other name is reported (`prompt`,
   * `messages`, `response` and the built-ins are always known). Without it, unknown names are allowed
   * and read as `undefined` at render time.
   */
  knownNames?: Iterable<string>;
}

const ALWAYS_KNOWN = ['prompt', 'messages', 'response'];

/**
 * Every problem in a template that can be found without rendering it: malformed placeholders, syntax
 * errors, constructs the language leaves out, forbidden names, and (optionally) unknown names.
 * An empty list means the template compiles. Meant for answering 422 before anything is sent.
 */
export function validateTemplate(template: unknown, options: ValidateOptions = {}): TemplateError[] {
  const limits = resolveLimits(options.limits);
  const errors: TemplateError[] = [];
  const root = compileNode(template, limits, options.path ?? [], (error) => errors.push(error));
  if (options.knownNames !== undefined) {
    const known = new Set([...options.knownNames, ...ALWAYS_KNOWN, ...GLOBAL_BUILTINS.keys()]);
    for (const p of placeholdersOf(root)) {
      for (const id of p.expression.identifiers) {
        if (known.has(id.name)) continue;
        errors.push(
          new TemplateError('scope', `unknown name "${id.name}"`, {
            placeholder: p.source,
            position: p.position,
            expressionOffset: id.start,
            loc: p.loc,
          }),
        );
      }
    }
  }
  return errors;
}
