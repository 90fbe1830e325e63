import { TemplateError } from '../errors/template-error';
import { checkStringLength } from '../limits/template-limits';
import { BuiltinFunction, kindOf, type TemplateValue } from '../values/template-value';
import { expectArgumentCount } from './builtin-arguments';

// Standard or URL-safe alphabet, padding optional; Buffer would otherwise skip junk silently.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$|^[A-Za-z0-9_-]*={0,2}$/;
const utf8 = new TextDecoder('utf-8');

/**
 * `String.decode(bytes)`: bytes to text as UTF-8. Bytes come as an array of numbers 0-255 (byte
 * arrays in the scope arrive this way) or as a base64 string, which is how JSON APIs carry them (for
 * instance Bedrock's `chunk.bytes`). Invalid UTF-8 sequences become U+FFFD rather than failing, as
 * in `TextDecoder`'s default mode.
 */
export const stringDecode = new BuiltinFunction('String.decode', (args, { limits }) => {
  expectArgumentCount('String.decode', args, 1);
  const text = utf8.decode(toBytes(args[0]));
  checkStringLength(text.length, limits);
  return text;
});

function toBytes(input: TemplateValue): Uint8Array {
  if (typeof input === 'string') {
    if (input.length % 4 === 1 || !BASE64.test(input)) {
      throw new TemplateError('builtin', 'String.decode(): the string is not valid base64');
    }
    return Buffer.from(input, 'base64');
  }
  if (Array.isArray(input)) {
    const list: readonly TemplateValue[] = input;
    const bytes = new Uint8Array(list.length);
    for (let i = 0; i < list.length; i++) {
      const b = list[i];
      if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > 255) {
        throw new TemplateError('builtin', `String.decode(): element ${i} is not a byte (a whole number 0-255)`);
      }
      bytes[i] = b;
    }
    return bytes;
  }
  throw new TemplateError('type', `String.decode() needs an array of bytes or a base64 string, got ${kindOf(input)}`);
}
