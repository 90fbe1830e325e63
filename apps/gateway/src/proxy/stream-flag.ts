/**
 * Whether a model call's JSON body asks for a stream (`"stream": true` at its top level), read
 * from the bytes as received, without decoding or parsing them: the gateway passes bodies on as
 * bytes, and only needs this flag to pick the NATS call (stream or long call). JSON's structure is
 * ASCII and no byte of a multi-byte UTF-8 character is, so the bytes can be walked as the text
 * would be. Strings are skipped with indexOf, so a large prompt costs little. As JSON.parse would,
 * the last `stream` key wins, and an escaped key is decoded first. Bytes that are not JSON give an
 * answer of no consequence: the proxy parses the body, refuses it, and the route, not this flag,
 * decides how the provider is called.
 */
export function asksForStream(json: Buffer): boolean {
  let depth = 0;
  let expectKey = false;
  let streamValue: boolean | undefined;
  let i = 0;
  const n = json.length;
  while (i < n) {
    const c = json[i];
    if (c === QUOTE) {
      const end = stringEnd(json, i);
      if (end < 0) return false;
      if (depth === 1 && expectKey) {
        expectKey = false;
        if (keyIs(json, i, end, 'stream')) {
          let j = skipSpace(json, end + 1);
          if (json[j] !== COLON) return false;
          j = skipSpace(json, j + 1);
          streamValue = TRUE.equals(json.subarray(j, j + 4));
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
const TRUE = Buffer.from('true');
const SPACES = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** The index of the quote that closes the string opened at `start`, or -1. */
function stringEnd(json: Buffer, start: number): number {
  let at = json.indexOf(QUOTE, start + 1);
  while (at >= 0) {
    let slashes = 0;
    while (json[at - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
    at = json.indexOf(QUOTE, at + 1);
  }
  return -1;
}

function keyIs(json: Buffer, start: number, end: number, name: string): boolean {
  if (end - start > 64) return false; // no spelling of "stream", escaped or not, is that long
  const quoted = json.toString('utf8', start, end + 1);
  if (!quoted.includes('\\')) return quoted.slice(1, -1) === name;
  try {
    return JSON.parse(quoted) === name;
  } catch {
    return false;
  }
}

function skipSpace(json: Buffer, from: number): number {
  let i = from;
  while (i < json.length && SPACES.has(json[i])) i++;
  return i;
}
