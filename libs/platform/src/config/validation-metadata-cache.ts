import { getMetadataStorage } from 'class-validator';

type Lookup = (
  target: unknown,
  schema: unknown,
  always: unknown,
  strictGroups: unknown,
  groups?: string[],
) => unknown[];
const MEMOIZED = Symbol('bastion.memoizedValidationMetadata');

/**
 * class-validator looks up a class's rules on every validation by walking every class it knows
 * (hundreds of DTOs in one process) with an `instanceof` each; profiles of the gateway showed this
 * lookup alone at several percent of its CPU. The rules of a class are fixed once its module has
 * loaded, so this remembers each lookup, and forgets them all whenever a rule is registered later.
 * Idempotent; validation results are unchanged.
 */
export function memoizeValidationMetadata(): void {
  const storage = getMetadataStorage() as unknown as Record<string | symbol, unknown> & {
    getTargetValidationMetadatas: Lookup;
  };
  if (storage[MEMOIZED]) return;
  storage[MEMOIZED] = true;
  let cache = new Map<unknown, Map<string, unknown[]>>();
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${String(schema)}|${String(always)}|${String(strictGroups)}|${groups?.join('\u0000') ?? ''}`;
    let forTarget = cache.get(target);
    if (!forTarget) cache.set(target, (forTarget = new Map()));
    let found = forTarget.get(key);
    if (!found) forTarget.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  for (const name of ['addValidationMetadata', 'addConstraintMetadata', 'addValidationSchema']) {
    const add = storage[name] as ((...args: unknown[]) => unknown) | undefined;
    if (typeof add !== 'function') continue;
    storage[name] = (...args: unknown[]) => {
      cache = new Map();
      return add.apply(storage, args);
    };
  }
}
