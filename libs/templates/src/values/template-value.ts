import type { TemplateLimits } from '../limits/template-limits';

/**
 * What an expression can hold: plain data plus our own built-in functions, nothing else. Objects are
 * created with a null prototype (see `createDataObject`), so no inherited property exists to reach.
 */
export type TemplateValue = undefined | null | boolean | number | string | TemplateArray | DataObject | BuiltinFunction;
export type TemplateArray = readonly TemplateValue[];
export interface DataObject {
  readonly [key: string]: TemplateValue;
}

/** What rendering hands back: JSON data (objects with a null prototype). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface BuiltinContext {
  readonly limits: Readonly<TemplateLimits>;
}

type BuiltinImpl = (args: readonly TemplateValue[], context: BuiltinContext) => TemplateValue;

/**
 * A function the template may call. It is an instance of our class rather than a host function, so
 * the evaluator can tell it apart from anything else and a template can never obtain a host
 * function (or its `constructor`) as a value. Implementations never see `this`.
 */
export class BuiltinFunction {
  constructor(
    readonly name: string,
    private readonly impl: BuiltinImpl,
  ) {
    Object.freeze(this);
  }

  invoke(args: readonly TemplateValue[], context: BuiltinContext): TemplateValue {
    return this.impl(args, context);
  }
}

export function createDataObject(): Record<string, TemplateValue> {
  // Null prototype: assigning `__proto__` creates an own property instead of changing the prototype.
  return Object.create(null) as Record<string, TemplateValue>;
}

export function isDataObject(value: TemplateValue): value is DataObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof BuiltinFunction);
}

export function isTemplateArray(value: TemplateValue): value is TemplateArray {
  return Array.isArray(value);
}

/** A word for a value's kind, for error messages (which never show values themselves). */
export function kindOf(value: TemplateValue): string {
  if (value === undefined) return 'undefined';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (value instanceof BuiltinFunction) return 'a function';
  switch (typeof value) {
    case 'boolean':
      return 'a boolean';
    case 'number':
      return 'a number';
    case 'string':
      return 'a string';
    default:
      return 'an object';
  }
}
