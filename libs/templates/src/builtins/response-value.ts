import { TemplateError } from '../errors/template-error';
import { BuiltinFunction, createDataObject, type DataObject, type TemplateValue } from '../values/template-value';
import { expectArgumentCount } from './builtin-arguments';
import { parseJson } from './global-builtins';

/** A provider's HTTP response, as the caller hands it over for rendering `outputs`. */
export interface TemplateResponse {
  statusCode: number;
  /** Any case; several values of one header are joined with ", " as `fetch` does. */
  headers: Readonly<Record<string, string | number | readonly string[] | undefined>>;
  /** The body as text. */
  body: string;
}

/**
 * `response` in the scope: `statusCode`, `headers` (lower-case names), `body` and `json()`, which
 * parses the body once however many outputs call it.
 */
export function createResponseValue(response: TemplateResponse, maxDataDepth: number): DataObject {
  if (typeof response.body !== 'string') throw new TemplateError('scope', 'response.body must be a string');
  if (!Number.isInteger(response.statusCode))
    throw new TemplateError('scope', 'response.statusCode must be an integer');

  const headers = createDataObject();
  for (const [name, value] of Object.entries(response.headers)) {
    if (value === undefined) continue;
    const text = typeof value === 'object' ? value.join(', ') : String(value);
    const key = name.toLowerCase();
    const previous = headers[key];
    headers[key] = typeof previous === 'string' ? `${previous}, ${text}` : text;
  }

  const body = response.body;
  let parsed: { value: TemplateValue } | undefined;
  const json = new BuiltinFunction('response.json', (args) => {
    expectArgumentCount('response.json', args, 0);
    // Not charged to the render: the body is parsed once however often it is called, so the work is
    // bounded by the body the provider sent, as scope data is, and not multiplied by the template.
    parsed ??= { value: parseJson(body, 'response.json()', 'the response body', maxDataDepth, false) };
    return parsed.value;
  });

  const value = createDataObject();
  value.statusCode = response.statusCode;
  value.headers = Object.freeze(headers);
  value.body = body;
  value.json = json;
  return Object.freeze(value);
}
