/**
 * Why a template failed. `syntax`, `unsupported` and `forbidden` are found by validation, before
 * anything is evaluated; the others can also happen while rendering.
 */
export type TemplateErrorCode =
  | 'syntax' // not a well-formed placeholder or expression
  | 'unsupported' // a JavaScript construct the language leaves out
  | 'forbidden' // a name or property the sandbox never hands out
  | 'type' // an operator, property or built-in used on the wrong kind of value
  | 'builtin' // a built-in refused its input (invalid JSON, bad base64, ...)
  | 'limit' // a size, depth or step limit was reached
  | 'scope'; // the data given to render with is not usable (name clash, non-data value)

/** A key or index on the way from the template's root to the failing string. */
export type TemplatePathSegment = string | number;

export interface TemplateErrorLocation {
  /** The expression between the braces, trimmed. */
  placeholder?: string;
  /** Offset of the placeholder's `{{` in its string. */
  position?: number;
  /** Offset within `placeholder` of the part that failed, when known. */
  expressionOffset?: number;
  /** Path from the template's root, e.g. `['json', 'messages', 0, 'content']`. */
  loc?: readonly TemplatePathSegment[];
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
// The placeholder is repeated in the message for a human; the field keeps all of it.
const MESSAGE_PLACEHOLDER_MAX = 120;

/** `['json', 'messages', 0, 'x-y']` -> `json.messages[0]["x-y"]`. */
export function formatTemplatePath(loc: readonly TemplatePathSegment[]): string {
  let out = '';
  for (const seg of loc) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (IDENTIFIER.test(seg)) out += out === '' ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/**
 * The one error the template library throws. Messages name the template path, the placeholder and
 * the offsets, and never a value from the scope: scopes hold secrets.
 */
export class TemplateError extends Error {
  readonly code: TemplateErrorCode;
  /** The reason alone, without the location. */
  readonly reason: string;
  readonly placeholder?: string;
  readonly position?: number;
  readonly expressionOffset?: number;
  readonly loc: readonly TemplatePathSegment[];

  constructor(code: TemplateErrorCode, reason: string, location: TemplateErrorLocation = {}) {
    super(describe(reason, location));
    this.name = 'TemplateError';
    this.code = code;
    this.reason = reason;
    this.placeholder = location.placeholder;
    this.position = location.position;
    this.expressionOffset = location.expressionOffset;
    this.loc = location.loc ?? [];
  }

  /** The template path as text (`json.messages[0].content`); empty at the root. */
  get path(): string {
    return formatTemplatePath(this.loc);
  }

  /** The same error, placed: fields already known (e.g. the offset inside an expression) are kept. */
  at(location: TemplateErrorLocation): TemplateError {
    return new TemplateError(this.code, this.reason, {
      placeholder: this.placeholder ?? location.placeholder,
      position: this.position ?? location.position,
      expressionOffset: this.expressionOffset ?? location.expressionOffset,
      loc: this.loc.length > 0 ? this.loc : location.loc,
    });
  }
}

function describe(reason: string, l: TemplateErrorLocation): string {
  const path = l.loc && l.loc.length > 0 ? `${formatTemplatePath(l.loc)}: ` : '';
  let where = '';
  if (l.placeholder !== undefined) {
    const long = l.placeholder.length > MESSAGE_PLACEHOLDER_MAX;
    where += ` in {{ ${long ? `${l.placeholder.slice(0, MESSAGE_PLACEHOLDER_MAX)}...` : l.placeholder} }}`;
  }
  const at: string[] = [];
  if (l.position !== undefined) at.push(`position ${l.position}`);
  if (l.expressionOffset !== undefined) at.push(`expression offset ${l.expressionOffset}`);
  if (at.length > 0) where += ` (${at.join(', ')})`;
  return `${path}${reason}${where}`;
}
