import { TemplateError } from '../errors/template-error';
import { chargeChars } from '../limits/render-budget';
import { BuiltinFunction, kindOf, type TemplateValue } from '../values/template-value';
import { FORBIDDEN_PROPERTIES, OBJECT_PROTOTYPE_NAMES } from './forbidden-names';

const INDEX = /^(0|[1-9]\d*)$/;

/**
 * Reads `target[key]` the only ways the sandbox allows: an own data property of a data object, an
 * index or the `length` of an array or string. Inherited properties do not exist for a template;
 * strings and arrays have no methods.
 */
export function readProperty(target: TemplateValue, key: TemplateValue): TemplateValue {
  if (typeof key !== 'string' && typeof key !== 'number') {
    // `a[['__proto__']]` would coerce an array to a key in JavaScript; here only the two key types work.
    throw new TemplateError('type', `a property key must be a string or a number, got ${kindOf(key)}`);
  }
  const name = String(key);
  if (FORBIDDEN_PROPERTIES.has(name)) {
    throw new TemplateError('forbidden', `the property "${name}" is not accessible`);
  }
  if (target === undefined || target === null) {
    throw new TemplateError('type', `cannot read "${name}" of ${kindOf(target)} (use "?." if it may be missing)`);
  }
  if (target instanceof BuiltinFunction) {
    throw new TemplateError(
      'type',
      `cannot read "${name}" of the built-in ${target.name}: functions have no properties`,
    );
  }
  if (typeof target === 'string' || Array.isArray(target)) {
    const list: ArrayLike<TemplateValue> = target;
    if (name === 'length') return list.length;
    // Telling whether a string key is an index reads all of it (a key may be a megabyte of digits).
    if (typeof key === 'string') chargeChars(key.length);
    const index = typeof key === 'number' ? key : INDEX.test(key) ? Number(key) : Number.NaN;
    if (Number.isNaN(index)) {
      const noun = typeof target === 'string' ? 'strings' : 'arrays';
      throw new TemplateError('type', `${noun} have only "length" and indexes; "${name}" is not available`);
    }
    // Out of range (or not a whole number) is missing, as in JavaScript, so `choices?.[0]` works on [].
    return Number.isInteger(index) && index >= 0 && Object.hasOwn(list, index) ? list[index] : undefined;
  }
  if (typeof target !== 'object') {
    throw new TemplateError('type', `cannot read "${name}" of ${kindOf(target)}`);
  }
  const own = Object.getOwnPropertyDescriptor(target, name);
  if (own === undefined) {
    if (OBJECT_PROTOTYPE_NAMES.has(name)) {
      throw new TemplateError('forbidden', `the property "${name}" is not accessible: templates have no methods`);
    }
    return undefined;
  }
  // Sandbox objects only ever hold data properties; anything else would mean a bug elsewhere.
  if (!('value' in own)) throw new TemplateError('forbidden', `the property "${name}" is not a data property`);
  return own.value as TemplateValue;
}
