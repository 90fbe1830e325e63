import {
  formatTemplatePath,
  TemplateError,
  type TemplateErrorCode,
  type TemplatePathSegment,
} from '../errors/template-error';
import { chargeSteps } from '../limits/render-budget';
import { BuiltinFunction, createDataObject, type TemplateValue } from './template-value';

/**
 * Copies host data into sandbox values: fresh arrays and null-prototype objects holding only
 * primitives. Whatever the caller passed (class instances, getters, functions) never reaches the
 * evaluator; byte arrays become arrays of numbers so `String.decode` can take them.
 *
 * With `charged`, the copy charges the render in progress (if any) one evaluation step per value:
 * the root, and each array's elements and each object's properties before they are copied. A
 * template that has the same large data imported again and again (`JSON.parse(p) && JSON.parse(p)
 * && ...`) then runs out of steps instead of running for minutes.
 */
export function importValue(
  value: unknown,
  maxDepth: number,
  what: string,
  code: TemplateErrorCode = 'scope',
  charged = false,
): TemplateValue {
  const path: TemplatePathSegment[] = [];
  const fail = (reason: string, failCode: TemplateErrorCode = code): never => {
    // A circular value would otherwise name a path hundreds of segments long.
    const at = formatTemplatePath(path.slice(0, 8)) + (path.length > 8 ? '...' : '');
    throw new TemplateError(failCode, `${what}${at === '' ? '' : ` at ${at}`} ${reason}`);
  };

  const copy = (v: unknown, depth: number): TemplateValue => {
    switch (typeof v) {
      case 'undefined':
      case 'boolean':
      case 'number':
      case 'string':
        return v;
      case 'object':
        break;
      default:
        return fail(`is a ${typeof v}, which templates cannot use`);
    }
    if (v === null) return null;
    if (v instanceof BuiltinFunction) return v;
    if (depth >= maxDepth) return fail(`nests deeper than ${maxDepth} levels (or is circular)`, 'limit');
    if (v instanceof Uint8Array) return Array.from(v);
    if (Array.isArray(v)) {
      if (charged) chargeSteps(v.length);
      const out: TemplateValue[] = [];
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        // A hole would otherwise read through to Array.prototype.
        out.push(Object.hasOwn(v, i) ? copy(v[i], depth + 1) : undefined);
        path.pop();
      }
      return out;
    }
    const proto: unknown = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) {
      return fail(`is ${Object.prototype.toString.call(v)}, not plain data`);
    }
    const out = createDataObject();
    const entries = Object.entries(Object.getOwnPropertyDescriptors(v));
    if (charged) chargeSteps(entries.length);
    for (const [key, desc] of entries) {
      if (!desc.enumerable) continue;
      path.push(key);
      if (!('value' in desc)) fail('is a getter or setter, not plain data');
      out[key] = copy(desc.value, depth + 1);
      path.pop();
    }
    return out;
  };

  if (charged) chargeSteps(1);
  return copy(value, 0);
}
