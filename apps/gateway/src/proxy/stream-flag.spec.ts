import fc from 'fast-check';
import { asksForStream } from './stream-flag';

/** The flag of a body given as text, sent as its UTF-8 bytes. */
const flag = (text: string) => asksForStream(Buffer.from(text));

describe('asksForStream', () => {
  it('reads the top-level stream flag', () => {
    expect(flag('{"model":"m","stream":true}')).toBe(true);
    expect(flag('{ "stream" :\n true , "model":"m"}')).toBe(true);
    expect(flag('{"stream":false}')).toBe(false);
    expect(flag('{"stream":"true"}')).toBe(false);
    expect(flag('{"model":"m"}')).toBe(false);
  });

  it('ignores a stream key below the top level or inside a string', () => {
    expect(flag('{"metadata":{"stream":true},"model":"m"}')).toBe(false);
    expect(flag('{"messages":[{"stream":true}]}')).toBe(false);
    expect(flag('{"model":"\\"stream\\":true","x":1}')).toBe(false);
    expect(flag('{"model":"a\\\\","stream":true}')).toBe(true);
  });

  it('decodes escaped keys and lets the last key win, as JSON.parse does', () => {
    expect(flag('{"str\\u0065am":true}')).toBe(true);
    expect(flag('{"stream":true,"stream":false}')).toBe(false);
    expect(flag('{"stream":false,"stream":true}')).toBe(true);
  });

  it('answers false for text that is not JSON', () => {
    expect(flag('')).toBe(false);
    expect(flag('{"stream')).toBe(false);
    expect(flag('{"stream" true}')).toBe(false);
  });

  it('agrees with JSON.parse on any JSON object', () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    const body = fc.record(
      { stream: fc.oneof(fc.boolean(), value), model: fc.string(), messages: fc.array(value, { maxLength: 3 }) },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(body, fc.dictionary(fc.string(), value, { maxKeys: 3 }), (b, extra) => {
        const text = JSON.stringify({ ...extra, ...b });
        return flag(text) === ((JSON.parse(text) as { stream?: unknown }).stream === true);
      }),
      { numRuns: 500 },
    );
  });
});
