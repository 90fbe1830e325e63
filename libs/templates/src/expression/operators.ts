import { TemplateError } from '../errors/template-error';
import { chargeChars } from '../limits/render-budget';
import { checkStringLength, type TemplateLimits } from '../limits/template-limits';
import { BuiltinFunction, kindOf, type TemplateValue } from '../values/template-value';
import type { BinaryOperator, UnaryOperator } from './expression-node';

/**
 * Operator semantics. JavaScript's where they are unsurprising; where JavaScript would coerce
 * (`'1' == 1`, `[] + {}`, `null + 1`) the operators refuse instead, so a template bug shows up as an
 * error rather than as `"undefined"` or `"[object Object]"` sent to a provider. None of them ever
 * calls back into a value (no `valueOf`, `toString` or `Symbol.toPrimitive`).
 */

export function isTruthy(value: TemplateValue): boolean {
  switch (typeof value) {
    case 'undefined':
      return false;
    case 'boolean':
      return value;
    case 'number':
      return value !== 0 && !Number.isNaN(value);
    case 'string':
      return value !== '';
    default:
      return value !== null;
  }
}

/**
 * Comparing two strings can read them up to the shorter one's length (equal ones to the end), so that
 * is charged as characters: a comparison of megabyte strings is not one step's work.
 */
function chargeComparison(a: TemplateValue, b: TemplateValue): void {
  if (typeof a === 'string' && typeof b === 'string') chargeChars(Math.min(a.length, b.length));
}

/** `===`: primitives by value, arrays and objects by identity. `==` differs only in `null == undefined`. */
function strictEquals(a: TemplateValue, b: TemplateValue): boolean {
  chargeComparison(a, b);
  return a === b;
}

function looseEquals(a: TemplateValue, b: TemplateValue): boolean {
  chargeComparison(a, b);
  return a === b || ((a === null || a === undefined) && (b === null || b === undefined));
}

export function typeOf(value: TemplateValue): string {
  if (value instanceof BuiltinFunction) return 'function';
  if (value === null || Array.isArray(value)) return 'object';
  return typeof value;
}

export function applyBinary(
  operator: BinaryOperator,
  a: TemplateValue,
  b: TemplateValue,
  limits: Readonly<TemplateLimits>,
): TemplateValue {
  switch (operator) {
    case '===':
      return strictEquals(a, b);
    case '!==':
      return !strictEquals(a, b);
    case '==':
      return looseEquals(a, b);
    case '!=':
      return !looseEquals(a, b);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return compare(operator, a, b);
    case '+':
      return add(a, b, limits);
    case '-':
    case '*':
    case '/':
    case '%': {
      if (typeof a !== 'number' || typeof b !== 'number') throw numbersOnly(operator, a, b);
      if (operator === '-') return a - b;
      if (operator === '*') return a * b;
      if (operator === '/') return a / b;
      return a % b;
    }
  }
}

function numbersOnly(operator: string, a: TemplateValue, b: TemplateValue): TemplateError {
  return new TemplateError('type', `"${operator}" needs two numbers, got ${kindOf(a)} and ${kindOf(b)}`);
}

function compare(operator: '<' | '<=' | '>' | '>=', a: TemplateValue, b: TemplateValue): boolean {
  const comparable =
    (typeof a === 'number' && typeof b === 'number') || (typeof a === 'string' && typeof b === 'string');
  if (!comparable) {
    throw new TemplateError(
      'type',
      `"${operator}" needs two numbers or two strings, got ${kindOf(a)} and ${kindOf(b)}`,
    );
  }
  chargeComparison(a, b);
  switch (operator) {
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
  }
}

/** Numbers add; a string joins with a string, number or boolean. Anything else is a mistake. */
function add(a: TemplateValue, b: TemplateValue, limits: Readonly<TemplateLimits>): TemplateValue {
  if (typeof a === 'number' && typeof b === 'number') return a + b;
  if ((typeof a === 'string' && isJoinable(b)) || (typeof b === 'string' && isJoinable(a))) {
    const left = String(a);
    const right = String(b);
    checkStringLength(left.length + right.length, limits);
    return left + right;
  }
  throw new TemplateError(
    'type',
    `"+" needs two numbers, or a string and a string, number or boolean; got ${kindOf(a)} and ${kindOf(b)}`,
  );
}

function isJoinable(v: TemplateValue): v is string | number | boolean {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function applyUnary(operator: UnaryOperator, value: TemplateValue): TemplateValue {
  switch (operator) {
    case '!':
      return !isTruthy(value);
    case 'typeof':
      return typeOf(value);
    case '-':
      if (typeof value !== 'number') throw new TemplateError('type', `unary "-" needs a number, got ${kindOf(value)}`);
      return -value;
    case '+':
      // The way to read a numeric input (inputs are strings): `+temperature`.
      if (typeof value === 'number') return value;
      // Reading the number reads the whole string; charged as characters, as building one would be.
      if (typeof value === 'string') chargeChars(value.length);
      if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
      throw new TemplateError('type', `unary "+" needs a number or a numeric string, got ${kindOf(value)}`);
  }
}
