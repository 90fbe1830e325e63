import type { Span } from '../../engine/span';
import type { Detector } from '../detector';

/** Far larger than any PEM private key (an RSA-16384 key is about 13 KB), so a real END is found. */
const MAX_BLOCK = 32 * 1024;
const BEGIN = '-----BEGIN';
const END = /-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----/;
/** What a PEM body is made of, including the "\n" of a key pasted as a JSON string. */
const BODY_CHAR = /[A-Za-z0-9+/=\r\n\\]/;

/**
 * PEM private key blocks (PKCS#1, PKCS#8, encrypted, OpenSSH, PGP): from BEGIN to END, so the
 * whole key is redacted. RE2 only finds the BEGIN line; the END is looked for here, no further
 * than the next BEGIN, so a text of many unterminated BEGIN lines costs one pass, not one per line.
 * A key with no END (cut off) is redacted up to where its base64 body stops.
 */
export const privateKey: Detector<'private-key'> = {
  id: 'private-key',
  name: 'Private key',
  description: 'PEM private key blocks (-----BEGIN ... PRIVATE KEY-----).',
  pattern: '-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----',
  confirm(value, text, start): Span[] {
    const bodyStart = start + value.length;
    const nextBegin = text.indexOf(BEGIN, bodyStart);
    const limit = Math.min(nextBegin < 0 ? text.length : nextBegin, bodyStart + MAX_BLOCK);
    const end = END.exec(text.slice(bodyStart, limit));
    if (end) return [[start, bodyStart + end.index + end[0].length]];
    let stop = bodyStart;
    while (stop < limit && BODY_CHAR.test(text[stop])) stop++;
    return [[start, stop]];
  },
};
