/**
 * The request as it will go out, which a signature covers. `body` must be the exact bytes the
 * client sends (OutboundClient sends strings as UTF-8), and `headers` every header the caller
 * sets; headers added later by the HTTP stack (User-Agent, Accept-Encoding) are left unsigned.
 */
export interface SignableRequest {
  method: string;
  url: string;
  headers?: Readonly<Record<string, string>>;
  body?: string | Uint8Array;
}

/** Header names lowercased (HTTP names are case-insensitive; signatures use lowercase). */
export function lowercaseHeaders(headers: Readonly<Record<string, string>> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}
