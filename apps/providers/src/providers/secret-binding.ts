import { DomainError, isPlainRecord } from '@bastion/contracts';
import { templateNamesRead } from '@bastion/provider-runtime';
import { maskSecret } from './secret-mask';

/** Template keys whose values decide where a request goes or how it is signed. */
const WHERE_KEYS = /^(url|host|baseurl|endpoint|region|awsauth|ociauth|service|hostname|authority)$/i;
/** The keys among those that name the place itself (not a signing block's credentials). */
const PLACE_KEYS = /^(url|host|baseurl|endpoint|region|service|hostname|authority)$/i;
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
    // The names that decide where requests go, in the templates as stored and as changed.
    const templates = [current.template, current.authTemplate, change.template, change.authTemplate];
    const namesUnder = (keys: RegExp) => new Set(templates.flatMap((t) => [...whereNames(t, keys)]));
    const where = namesUnder(WHERE_KEYS);
    for (const [name, value] of Object.entries(change.inputs ?? {})) {
      if (current.inputs[name] === value) continue;
      if (where.has(name) || WHERE_NAMES.test(name)) reasons.push(`inputs.${name}`);
    }
    // A secret the url or host reads moves the other secrets with it (a signing block's own
    // credentials, rotated alone, do not; a mask sent back is the stored secret, unchanged).
    const place = namesUnder(PLACE_KEYS);
    for (const [name, value] of Object.entries(change.secrets ?? {})) {
      if (!place.has(name) || !(name in current.secrets) || isUnchanged(current.secrets[name], value)) continue;
      reasons.push(`secrets.${name}`);
    }
  }
  if (reasons.length === 0) return;
  const resent = change.secrets ?? {};
  const missing = stored.filter((name) => {
    const v = resent[name];
    return v === undefined || v === '' || isMask(current.secrets[name], v);
  });
  if (missing.length === 0) return;
  const msg = `changing ${reasons.join(', ')} changes where the provider's secrets are sent: send every secret again in the same request (missing: ${missing.join(', ')})`;
  throw DomainError.invalid(msg, [{ loc: ['body', 'secrets'], msg, type: 'secrets.rebind_required' }]);
}

/** Whether `value` is what a client was shown of `stored` (its mask). */
function isMask(stored: string, value: string): boolean {
  return value === maskSecret(stored, true) || value === maskSecret(stored, false);
}

/** Whether a secret sent in a change leaves the stored one as it is (the same value, or its mask). */
function isUnchanged(stored: string, value: string): boolean {
  return value === stored || isMask(stored, value);
}

/**
 * The names that decide where a template's requests go: those read under a where-key, and those a
 * workflow stage's output reads when a where-key reads that output (`url: '{{ next }}'` with a
 * stage output `next: '{{ target }}'` makes `target` one), however many stages it passes.
 */
export function whereNames(template: unknown, keys: RegExp = WHERE_KEYS): Set<string> {
  const where = new Set(namesUnderWhereKeys(template, false, keys));
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
  const stages = isPlainRecord(template) && Array.isArray(template.stages) ? template.stages : [];
  const out: [string, string[]][] = [];
  for (const stage of stages) {
    for (const s of [stage, isPlainRecord(stage) ? stage.block : undefined]) {
      const outputs = isPlainRecord(s) && isPlainRecord(s.outputs) ? s.outputs : {};
      for (const [name, value] of Object.entries(outputs)) out.push([name, namesUnderWhereKeys(value, true)]);
    }
  }
  return out;
}

/** Names read by `{{ }}` expressions anywhere under a key that decides where a request goes. */
export function namesUnderWhereKeys(node: unknown, inside = false, keys: RegExp = WHERE_KEYS): string[] {
  if (typeof node === 'string') return inside ? identifiersIn(node) : [];
  if (Array.isArray(node)) return node.flatMap((n) => namesUnderWhereKeys(n, inside, keys));
  if (node && typeof node === 'object') {
    return Object.entries(node as Record<string, unknown>).flatMap(([k, v]) =>
      namesUnderWhereKeys(v, inside || keys.test(k), keys),
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
  return [...templateNamesRead(text)];
}

/**
 * Refuses a template whose outputs (its own, and a workflow stage's or retry block's), retry
 * conditions or backoffs name a secret: they are rendered with no secrets in scope, where the name
 * would read as nothing (a retry condition `secret != ""` would always hold).
 */
export function checkOutputsReadNoSecret(template: unknown, secretNames: string[]): void {
  if (secretNames.length === 0 || !isPlainRecord(template)) return;
  const places: [(string | number)[], unknown][] = [[['outputs'], template.outputs]];
  const stages = Array.isArray(template.stages) ? template.stages : [];
  stages.forEach((stage, i) => {
    if (!isPlainRecord(stage)) return;
    places.push([['stages', i, 'outputs'], stage.outputs]);
    places.push([['stages', i, 'when'], stage.when]);
    places.push([['stages', i, 'backoff'], stage.backoff]);
    if (isPlainRecord(stage.block)) places.push([['stages', i, 'block', 'outputs'], stage.block.outputs]);
  });
  for (const [loc, value] of places) {
    if (value === undefined) continue;
    const read = new Set(namesUnderWhereKeys(value, true));
    const named = secretNames.filter((n) => read.has(n));
    if (named.length === 0) continue;
    const what = loc.at(-1) === 'outputs' ? 'template outputs' : `a retry's ${String(loc.at(-1))}`;
    const msg = `${what} ${what.endsWith('s') ? 'are' : 'is'} rendered without secrets: ${what.endsWith('s') ? 'they' : 'it'} cannot read ${named.join(', ')}`;
    throw DomainError.invalid(msg, [
      { loc: ['body', 'template', ...loc.map(String)], msg, type: 'template.secret_in_outputs' },
    ]);
  }
}
