/**
 * Hand-written checks of the payload classes every model call carries, registered beside their
 * class: class-validator and class-transformer on them cost the message proxy about 8% of its CPU
 * per request. A check answers the payload as the validation pipe would leave it (an instance of
 * the class holding only its declared fields), or undefined when it does not accept the payload
 * outright; the pipe then runs class-validator as for any class, so a refusal keeps the one error
 * shape. A check may therefore be stricter than the class's decorators, never looser (a spec holds
 * each one to that against class-validator).
 */
export type FastCheck<T> = (raw: unknown) => T | undefined;

type AnyClass = abstract new (...args: never[]) => unknown;
const checks = new Map<AnyClass, FastCheck<unknown>>();

export function declareFastCheck<T>(cls: abstract new (...args: never[]) => T, check: FastCheck<T>): void {
  checks.set(cls, check);
}

/** The check registered for a class, if any. */
export function fastCheckFor(cls: unknown): FastCheck<unknown> | undefined {
  return typeof cls === 'function' ? checks.get(cls as AnyClass) : undefined;
}

/** An instance of `cls` with `fields`, as class-transformer would make it from a plain object. */
export function instanceWith<T>(cls: abstract new (...args: never[]) => T, fields: Partial<T>): T {
  return Object.assign(Object.create(cls.prototype as object) as object, fields) as T;
}

export const isPlainRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A string of at most `max` UTF-16 units (class-validator's MaxLength counts a surrogate pair once: this is stricter). */
export const isShortString = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;

/**
 * Whether an object has keys the validation pipe drops from what it copies: `prototype`, and every
 * name an object inherits (`__proto__`, `constructor`, `toString`, `valueOf`, ...), which
 * class-transformer skips when it copies a plain object. A fast check leaves such a payload to
 * class-validator.
 */
export const hasProtoKeys = (v: Record<string, unknown>): boolean => {
  for (const k of Object.keys(v)) if (k in Object.prototype || k === 'prototype') return true;
  return false;
};
