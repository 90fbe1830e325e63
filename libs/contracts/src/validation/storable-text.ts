import { registerDecorator, type ValidationOptions } from 'class-validator';

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** How deep IsStorableJson looks into nested objects and arrays; deeper values are refused. */
const MAX_DEPTH = 32;

/**
 * Text Postgres can store as sent: no U+0000 (refused in text and in jsonb) and no unpaired
 * surrogate (refused in jsonb, and not text in any encoding).
 */
export function isStorableString(value: string): boolean {
  return !value.includes('\u0000') && !UNPAIRED_SURROGATE.test(value);
}

/** Every string (and every key) in a JSON value is storable text, at most MAX_DEPTH levels deep. */
export function isStorableJson(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return isStorableString(value);
  if (value === null || typeof value !== 'object') return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) return value.every((v) => isStorableJson(v, depth + 1));
  return Object.entries(value).every(([k, v]) => isStorableString(k) && isStorableJson(v, depth + 1));
}

function storable(name: string, check: (value: unknown) => boolean, message: (property: string) => string) {
  return (options?: ValidationOptions): PropertyDecorator =>
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName: propertyName.toString(),
        options: { message: message(propertyName.toString()), ...options },
        validator: { validate: check },
      });
}

/** A string without U+0000 or an unpaired surrogate (see isStorableString). */
export const IsStorableText = storable(
  'isStorableText',
  (value) => typeof value !== 'string' || isStorableString(value),
  (property) => `${property} must not contain U+0000 or an unpaired surrogate`,
);

/** A JSON value whose strings and keys are all storable text (see isStorableJson). */
export const IsStorableJson = storable(
  'isStorableJson',
  (value) => isStorableJson(value),
  (property) =>
    `${property} must not contain U+0000 or an unpaired surrogate, nor nest deeper than ${MAX_DEPTH} levels`,
);
