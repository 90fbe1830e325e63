import { DomainError } from '@bastion/contracts';
import { maskSecret } from './secret-mask';

/** Template keys whose values decide where a request goes or how it is signed. */
const WHERE_KEYS = /^(url|host|baseurl|endpoint|region|awsauth|ociauth|service|hostname|authority)$/i;
/** Input names that, by their name, say where requests go. */
const WHERE_NAMES = /(url|host|endpoint|region|domain|server|authority)/i;

export interface ProviderChange {
  template?: unknown;
  authTemplate?: unknown;
  inputs?: Record<string, string>;
  secrets?: Record<string, string>;
}

export interface StoredProvider {
  template: unknown;
  authTemplate: unknown;
  inputs: Record<string, string>;
  secrets: Record<string, string>;
}

/**
 * Secrets are bound to where they go. A change to the template, the auth template, or an input that
 * the URL, host, region or signing reads (or whose name says it is one) could send the stored
 * secrets somewhere else, so it must carry every stored secret again, in clear, in the same request.
 * Throws a 422 naming the rule otherwise.
 */
export function checkSecretsRebound(current: StoredProvider, change: ProviderChange): void {
  const stored = Object.keys(current.secrets);
  if (stored.length === 0) return;
  const reasons: string[] = [];
  if (change.template !== undefined && JSON.stringify(change.template) !== JSON.stringify(current.template))
    reasons.push('template');
  if (
    change.authTemplate !== undefined &&
    JSON.stringify(change.authTemplate ?? null) !== JSON.stringify(current.authTemplate ?? null)
  )
    reasons.push('authTemplate');
  if (change.inputs) {
    const where = new Set([
      ...namesUnderWhereKeys(current.template),
      ...namesUnderWhereKeys(current.authTemplate),
      ...namesUnderWhereKeys(change.template),
      ...namesUnderWhereKeys(change.authTemplate),
    ]);
    for (const [name, value] of Object.entries(change.inputs)) {
      if (current.inputs[name] === value) continue;
      if (where.has(name) || WHERE_NAMES.test(name)) reasons.push(`inputs.${name}`);
    }
  }
  if (reasons.length === 0) return;
  const resent = change.secrets ?? {};
  const missing = stored.filter((name) => {
    const v = resent[name];
    return (
      v === undefined ||
      v === '' ||
      v === maskSecret(current.secrets[name], true) ||
      v === maskSecret(current.secrets[name], false)
    );
  });
  if (missing.length === 0) return;
  const msg = `changing ${reasons.join(', ')} changes where the provider's secrets are sent: send every secret again in the same request (missing: ${missing.join(', ')})`;
  throw DomainError.invalid(msg, [{ loc: ['body', 'secrets'], msg, type: 'secrets.rebind_required' }]);
}

/** Names read by `{{ }}` expressions anywhere under a key that decides where a request goes. */
export function namesUnderWhereKeys(node: unknown, inside = false): string[] {
  if (typeof node === 'string') return inside ? identifiersIn(node) : [];
  if (Array.isArray(node)) return node.flatMap((n) => namesUnderWhereKeys(n, inside));
  if (node && typeof node === 'object') {
    return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) =>
      namesUnderWhereKeys(v, inside || WHERE_KEYS.test(k)),
    );
  }
  return [];
}

/** Identifiers in the `{{ }}` expressions of a string (property names after a dot excluded). */
export function identifiersIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/\{\{([\s\S]*?)\}\}/g)) {
    const expr = m[1].replace(/(["'`])(?:\\.|(?!\1).)*\1/g, '');
    for (const id of expr.matchAll(/(?<![.\w$])([A-Za-z_$][\w$]*)/g)) out.push(id[1]);
  }
  return out;
}

/** Refuses outputs that name a secret: they are rendered with no secrets in scope. */
export function checkOutputsReadNoSecret(template: unknown, secretNames: string[]): void {
  const outputs = template && typeof template === 'object' ? (template as { outputs?: unknown }).outputs : undefined;
  if (outputs === undefined) return;
  const read = new Set(namesUnderWhereKeys(outputs, true));
  const named = secretNames.filter((n) => read.has(n));
  if (named.length === 0) return;
  const msg = `template outputs are rendered without secrets: they cannot read ${named.join(', ')}`;
  throw DomainError.invalid(msg, [{ loc: ['body', 'template', 'outputs'], msg, type: 'template.secret_in_outputs' }]);
}
