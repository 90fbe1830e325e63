import { TemplateError } from '../errors/template-error';
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
  // SameValueZero, as Array.prototype.includes: primitives by value, objects by identity.
  return items.includes(item);
});

const stringify = new BuiltinFunction('JSON.stringify', (args, { limits }) => {
  expectArgumentCount('JSON.stringify', args, 1);
  return stringifyJson(args[0], limits);
});

const parse = new BuiltinFunction('JSON.parse', (args, { limits }) => {
  expectArgumentCount('JSON.parse', args, 1);
  const text = args[0];
  if (typeof text !== 'string') throw new TemplateError('type', `JSON.parse() needs a string, got ${kindOf(text)}`);
  return parseJson(text, 'JSON.parse()', 'the text', limits.maxDataDepth);
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
 * and the input may be a secret.
 */
export function parseJson(text: string, fn: string, what: string, maxDataDepth: number): TemplateValue {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new TemplateError('builtin', `${fn}: ${what} is not valid JSON`);
  }
  return importValue(raw, maxDataDepth, `${fn} result`, 'limit');
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
