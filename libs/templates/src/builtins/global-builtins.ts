import { TemplateError } from '../errors/template-error';
import { chargeChars, chargeSteps } from '../limits/render-budget';
import { checkStringLength } from '../limits/template-limits';
import { importValue } from '../values/import-value';
import { stringifyJson } from '../values/to-text';
import {
  BuiltinFunction,
  createDataObject,
  kindOf,
  type DataObject,
  type TemplateValue,
} from '../values/template-value';
import { expectArgumentCount } from './builtin-arguments';
import { stringDecode } from './string-decode';

const contains = new BuiltinFunction('Array.contains', (args) => {
  expectArgumentCount('Array.contains', args, 2);
  const [list, item] = args;
  if (!Array.isArray(list))
    throw new TemplateError('type', `Array.contains() needs an array first, got ${kindOf(list)}`);
  const items: readonly TemplateValue[] = list;
  // The scan costs a step per element, and comparing two strings of one length reads them.
  chargeSteps(items.length);
  for (const element of items) {
    if (typeof element === 'string' && typeof item === 'string' && element.length === item.length) {
      chargeChars(item.length);
    }
    if (sameValueZero(element, item)) return true;
  }
  return false;
});

/** As Array.prototype.includes compares: primitives by value (NaN equals NaN), objects by identity. */
function sameValueZero(a: TemplateValue, b: TemplateValue): boolean {
  return a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b));
}

const stringify = new BuiltinFunction('JSON.stringify', (args, { limits }) => {
  expectArgumentCount('JSON.stringify', args, 1);
  return stringifyJson(args[0], limits);
});

const parse = new BuiltinFunction('JSON.parse', (args, { limits }) => {
  expectArgumentCount('JSON.parse', args, 1);
  const text = args[0];
  if (typeof text !== 'string') throw new TemplateError('type', `JSON.parse() needs a string, got ${kindOf(text)}`);
  return parseJson(text, 'JSON.parse()', 'the text', limits.maxDataDepth, true);
});

const encodeComponent = new BuiltinFunction('encodeURIComponent', (args, { limits }) => {
  expectArgumentCount('encodeURIComponent', args, 1);
  const value = args[0];
  if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
    throw new TemplateError('type', `encodeURIComponent() needs a string, number or boolean, got ${kindOf(value)}`);
  }
  let encoded: string;
  try {
    encoded = encodeURIComponent(value);
  } catch {
    throw new TemplateError('builtin', 'encodeURIComponent(): the text holds an unpaired surrogate');
  }
  checkStringLength(encoded.length, limits);
  return encoded;
});

/**
 * Parses JSON into sandbox values. The parser's own message is not repeated: it quotes the input,
 * and the input may be a secret. With `charged`, the render in progress pays for the work before it
 * is done: the text's length in characters, then a step per value (see `importValue`).
 */
export function parseJson(
  text: string,
  fn: string,
  what: string,
  maxDataDepth: number,
  charged: boolean,
): TemplateValue {
  if (charged) chargeChars(text.length);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new TemplateError('builtin', `${fn}: ${what} is not valid JSON`);
  }
  return importValue(raw, maxDataDepth, `${fn} result`, 'limit', charged);
}

function namespace(members: Record<string, BuiltinFunction>): DataObject {
  const ns = createDataObject();
  for (const [key, fn] of Object.entries(members)) ns[key] = fn;
  return Object.freeze(ns);
}

/** Names every template can read. They win over scope entries, which may not reuse them. */
export const GLOBAL_BUILTINS: ReadonlyMap<string, TemplateValue> = new Map<string, TemplateValue>([
  ['String', namespace({ decode: stringDecode })],
  ['Array', namespace({ contains })],
  ['JSON', namespace({ stringify, parse })],
  ['encodeURIComponent', encodeComponent],
]);
