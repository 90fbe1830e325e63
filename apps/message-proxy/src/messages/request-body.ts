import { DomainError } from '@bastion/contracts';
import { summarise, toViolations } from '@bastion/messaging';
import { validateSync } from 'class-validator';

type Json = Record<string, unknown>;

/**
 * A model call's body as the client sent it (JSON text, passed on unparsed by the gateway), parsed
 * once here and checked against its request class: only the fields the class declares are checked,
 * every other field is left as sent. `each` names an array field whose elements are checked as
 * instances of their own class (the request's `messages`); `meets`, a hand-written check of the same
 * rules that may only be stricter, spares class-validator the bodies it accepts.
 *
 * The check works on shallow instances (the top level and each element of `each` copied into
 * their classes): nothing deeper is copied, so a large prompt is parsed once and never cloned. A
 * violation is INVALID_ARGUMENT with `loc` starting at `body`, as the gateway's own validation had it.
 */
export function readRequestBody<T extends object>(
  rawBody: string,
  request: new () => T,
  each: { field: keyof T & string; element: new () => object; meets?: (json: Json) => boolean },
): Json {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    throw DomainError.invalid('request body is not valid JSON', [
      { loc: ['body'], msg: 'request body is not valid JSON', type: 'json' },
    ]);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw DomainError.invalid('request body must be a JSON object', [
      { loc: ['body'], msg: 'request body must be a JSON object', type: 'object' },
    ]);
  }
  const json = body as Json;
  const list = json[each.field];
  // JSON.parse keeps `__proto__` as an own key, which Object.assign below would take for the
  // prototype: the instance would no longer be the request class and nothing would be checked.
  if (hasProtoKey(json) || (Array.isArray(list) && list.some(hasProtoKey))) {
    throw DomainError.invalid('request body has a "__proto__" field', [
      { loc: ['body'], msg: '"__proto__" is not a field of this request', type: 'forbidden' },
    ]);
  }
  // A body that meets the rules by the hand-written check needs no class-validator pass.
  if (each.meets?.(json)) return json;
  const dto = Object.assign(new request(), json) as Json;
  if (Array.isArray(list)) {
    dto[each.field] = list.map((item: unknown) =>
      typeof item === 'object' && item !== null && !Array.isArray(item)
        ? Object.assign(new each.element(), item)
        : item,
    );
  }
  const errors = validateSync(dto, { forbidUnknownValues: false });
  if (errors.length) {
    const violations = toViolations(errors, ['body']);
    throw DomainError.invalid(summarise(violations.map((v) => ({ ...v, loc: v.loc.slice(1) }))), violations);
  }
  return json;
}

function hasProtoKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, '__proto__');
}
