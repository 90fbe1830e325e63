import { DomainError } from '@bastion/contracts';
import { compileTemplate } from '@bastion/templates';
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
  if (change.inputs || change.secrets) {
    const where = new Set([
      ...whereNames(current.template),
      ...whereNames(current.authTemplate),
      ...whereNames(change.template),
      ...whereNames(change.authTemplate),
    ]);
    for (const [name, value] of Object.entries(change.inputs ?? {})) {
      if (current.inputs[name] === value) continue;
      if (where.has(name) || WHERE_NAMES.test(name)) reasons.push(`inputs.${name}`);
    }
    // A secret the url or host reads moves the other secrets with it.
    for (const [name, value] of Object.entries(change.secrets ?? {})) {
      if (where.has(name) && name in current.secrets && current.secrets[name] !== value)
        reasons.push(`secrets.${name}`);
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

/**
 * The names that decide where a template's requests go: those read under a where-key, and those a
 * workflow stage's output reads when a where-key reads that output (`url: '{{ next }}'` with a
 * stage output `next: '{{ target }}'` makes `target` one), however many stages it passes.
 */
export function whereNames(template: unknown): Set<string> {
  const where = new Set(namesUnderWhereKeys(template));
  const feeds = stageOutputReads(template);
  for (let grew = true; grew;) {
    grew = false;
    for (const [output, reads] of feeds) {
      if (!where.has(output)) continue;
      for (const name of reads) {
        if (where.has(name)) continue;
        where.add(name);
        grew = true;
      }
    }
  }
  return where;
}

/** Each workflow stage output (a retry's block's too) and the names its expressions read. */
function stageOutputReads(template: unknown): [string, string[]][] {
  const stages = isRecord(template) && Array.isArray(template.stages) ? template.stages : [];
  const out: [string, string[]][] = [];
  for (const stage of stages) {
    for (const s of [stage, isRecord(stage) ? stage.block : undefined]) {
      const outputs = isRecord(s) && isRecord(s.outputs) ? s.outputs : {};
      for (const [name, value] of Object.entries(outputs)) out.push([name, namesUnderWhereKeys(value, true)]);
    }
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
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

/**
 * The names the `{{ }}` expressions of a string read (property names excluded), as the template
 * language's own parser reads them: inside template literals and past a `}}` in a string too, in
 * one linear pass. A string that does not parse reads nothing here; the template check refuses it.
 */
export function identifiersIn(text: string): string[] {
  if (!text.includes('{{')) return [];
  try {
    return [...compileTemplate(text).names];
  } catch {
    return [];
  }
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
