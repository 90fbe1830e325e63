import fc from 'fast-check';
import { asksForStream } from './stream-flag';

describe('asksForStream', () => {
  it('reads the top-level stream flag', () => {
    expect(asksForStream('{"model":"m","stream":true}')).toBe(true);
    expect(asksForStream('{ "stream" :\n true , "model":"m"}')).toBe(true);
    expect(asksForStream('{"stream":false}')).toBe(false);
    expect(asksForStream('{"stream":"true"}')).toBe(false);
    expect(asksForStream('{"model":"m"}')).toBe(false);
  });

  it('ignores a stream key below the top level or inside a string', () => {
    expect(asksForStream('{"metadata":{"stream":true},"model":"m"}')).toBe(false);
    expect(asksForStream('{"messages":[{"stream":true}]}')).toBe(false);
    expect(asksForStream('{"model":"\\"stream\\":true","x":1}')).toBe(false);
    expect(asksForStream('{"model":"a\\\\","stream":true}')).toBe(true);
  });

  it('decodes escaped keys and lets the last key win, as JSON.parse does', () => {
    expect(asksForStream('{"str\\u0065am":true}')).toBe(true);
    expect(asksForStream('{"stream":true,"stream":false}')).toBe(false);
    expect(asksForStream('{"stream":false,"stream":true}')).toBe(true);
  });

  it('answers false for text that is not JSON', () => {
    expect(asksForStream('')).toBe(false);
    expect(asksForStream('{"stream')).toBe(false);
    expect(asksForStream('{"stream" true}')).toBe(false);
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
        return asksForStream(text) === ((JSON.parse(text) as { stream?: unknown }).stream === true);
      }),
      { numRuns: 500 },
    );
  });
});
