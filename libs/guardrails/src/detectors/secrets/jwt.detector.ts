import type { Detector } from '../detector';

const BASE64URL_OR_DOT = /^[A-Za-z0-9_.-]$/;

function headerHasAlg(segment: string): boolean {
  try {
    const header: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/**
 * JSON Web Tokens: three base64url segments whose first decodes to a JSON header naming an `alg`.
 * "eyJ" is how every base64-encoded JSON object starts, which keeps the candidates rare.
 */
export const jwt: Detector<'jwt'> = {
  id: 'jwt',
  name: 'JSON Web Token',
  description: 'JWTs (header.payload.signature, the header a JSON object with "alg").',
  pattern: 'eyJ[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]*',
  confirm(value, text, start) {
    if (BASE64URL_OR_DOT.test(text[start - 1] ?? '')) return false;
    return headerHasAlg(value.slice(0, value.indexOf('.')));
  },
};
