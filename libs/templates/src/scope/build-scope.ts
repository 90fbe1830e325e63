import { createResponseValue, type TemplateResponse } from '../builtins/response-value';
import { TemplateError } from '../errors/template-error';
import { resolveLimits, type TemplateLimits } from '../limits/template-limits';
import { TemplateScope } from './template-scope';

export interface ScopeParts {
  /** The user's prompt text. */
  prompt?: string;
  /** The conversation, as chat messages (JSON data). */
  messages?: unknown;
  /** The provider's inputs, readable by bare name. */
  inputs?: Readonly<Record<string, string>>;
  /** The provider's secrets, readable by bare name. */
  secrets?: Readonly<Record<string, string>>;
  /** The provider's response, when rendering `outputs`. */
  response?: TemplateResponse;
  /**
   * Names a workflow's earlier stages yielded (and `attempt` inside a retry), readable by bare
   * name. Later values replace earlier ones; one that clashes with a fixed name, an input or a
   * secret is an error.
   */
  values?: Readonly<Record<string, unknown>>;
}

const FIXED_NAMES = ['prompt', 'messages', 'response'];

/**
 * The scope a provider template renders against. Inputs and secrets share one namespace with the
 * fixed names, and there is no precedence between them: a clash is an error, because a template
 * whose `apiKey` silently means one thing or the other is worse than a provider that is refused.
 */
export function buildScope(parts: ScopeParts, options: { limits?: Partial<TemplateLimits> } = {}): TemplateScope {
  const limits = resolveLimits(options.limits);
  const entries = new Map<string, unknown>();
  if (parts.prompt !== undefined) entries.set('prompt', parts.prompt);
  if (parts.messages !== undefined) entries.set('messages', parts.messages);
  if (parts.response !== undefined) entries.set('response', createResponseValue(parts.response, limits.maxDataDepth));

  const add = (kind: 'input' | 'secret', record: Readonly<Record<string, string>> | undefined): void => {
    for (const [name, value] of Object.entries(record ?? {})) {
      if (FIXED_NAMES.includes(name)) {
        throw new TemplateError('scope', `the ${kind} "${name}" clashes with the built-in scope name "${name}"`);
      }
      if (entries.has(name)) throw new TemplateError('scope', `"${name}" is both an input and a secret`);
      entries.set(name, value);
    }
  };
  add('input', parts.inputs);
  add('secret', parts.secrets);
  for (const [name, value] of Object.entries(parts.values ?? {})) {
    if (value === undefined) continue;
    if (FIXED_NAMES.includes(name) || entries.has(name)) {
      throw new TemplateError('scope', `the stage output "${name}" clashes with the scope name "${name}"`);
    }
    entries.set(name, value);
  }
  return TemplateScope.fromEntries(entries, limits);
}
