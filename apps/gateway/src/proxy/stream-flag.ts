/**
 * Whether a model call's JSON body asks for a stream (`"stream": true` at its top level), read
 * without parsing the body: the gateway passes bodies on as text, and only needs this flag to pick
 * the NATS call (stream or long call). Strings are skipped with indexOf, so a large prompt costs
 * little. As JSON.parse would, the last `stream` key wins, and an escaped key is decoded first.
 * Text that is not JSON gives an answer of no consequence: the proxy parses the body, refuses it,
 * and the route, not this flag, decides how the provider is called.
 */
export function asksForStream(json: string): boolean {
  let depth = 0;
  let expectKey = false;
  let streamValue: boolean | undefined;
  let i = 0;
  const n = json.length;
  while (i < n) {
    const c = json.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(json, i);
      if (end < 0) return false;
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (keyIs(json, i, end, 'stream')) {
          let j = skipSpace(json, end + 1);
          if (json.charCodeAt(j) !== COLON) return false;
          j = skipSpace(json, j + 1);
          streamValue = json.startsWith('true', j);
        }
      }
      i = end + 1;
      continue;
    }
    if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      expectKey = depth === 1 && c === OPEN_BRACE;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    } else if (c === COMMA && depth === 1) {
      expectKey = true;
    }
    i++;
  }
  return streamValue === true;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The index of the quote that closes the string opened at `start`, or -1. */
function stringEnd(json: string, start: number): number {
  let at = json.indexOf('"', start + 1);
  while (at >= 0) {
    let slashes = 0;
    while (json.charCodeAt(at - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = json.indexOf('"', at + 1);
  }
  return -1;
}

function keyIs(json: string, start: number, end: number, name: string): boolean {
  const raw = json.slice(start + 1, end);
  if (!raw.includes('\\')) return raw === name;
  try {
    return JSON.parse(json.slice(start, end + 1)) === name;
  } catch {
    return false;
  }
}

function skipSpace(json: string, from: number): number {
  let i = from;
  while (i < json.length && ' \t\n\r'.includes(json[i])) i++;
  return i;
}
