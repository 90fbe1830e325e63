import fc from 'fast-check';
import { ContentDelta, readStreamEvent, readStreamEvents } from './stream-event';

/** What the reader gave, as the event it stands for. */
const whole = (data: string) => {
  const read = readStreamEvent(data);
  return read instanceof ContentDelta ? read.toEvent() : read;
};

/** What JSON.parse gives, when it is an object with a string type (what the proxy accepts). */
function parsed(data: string): unknown {
  try {
    const v: unknown = JSON.parse(data);
    return typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v) &&
      typeof (v as { type?: unknown }).type === 'string'
      ? v
      : undefined;
  } catch {
    return undefined;
  }
}

const field = fc.constantFrom<'text' | 'thinking'>('text', 'thinking');
const delta = fc.record({
  index: fc.nat({ max: 2_000_000 }),
  field,
  text: fc.string({ unit: 'binary', maxLength: 40 }),
});
const asWritten = ({ index, field: f, text }: { index: number; field: 'text' | 'thinking'; text: string }) =>
  JSON.stringify({ type: 'content_block_delta', index, delta: { type: `${f}_delta`, [f]: text } });

describe('readStreamEvent', () => {
  it('property: a delta written as the Messages API writes one is read without a full parse, to the same event', () => {
    fc.assert(
      fc.property(delta, (d) => {
        const data = asWritten(d);
        const read = readStreamEvent(data);
        expect(read).toBeInstanceOf(ContentDelta);
        expect((read as ContentDelta).toEvent()).toEqual(JSON.parse(data));
      }),
      { numRuns: 500 },
    );
  });

  it('property: whatever an upstream writes near that template, the event read is what JSON.parse reads', () => {
    // Edits of a well-formed delta: a character inserted, removed or replaced anywhere, keys added.
    const edited = fc
      .tuple(delta, fc.nat(), fc.constantFrom('insert', 'remove', 'replace'), fc.constantFrom(...' "\\,:{}[]0a1\u2028'))
      .map(([d, at, how, c]) => {
        const data = asWritten(d);
        const i = at % (data.length + 1);
        if (how === 'insert') return data.slice(0, i) + c + data.slice(i);
        if (how === 'remove') return data.slice(0, i) + data.slice(i + 1);
        return data.slice(0, i) + c + data.slice(i + 1);
      });
    const extraKey = delta.map((d) => asWritten(d).replace(/}}$/, ',"x":"y"}}'));
    fc.assert(
      fc.property(fc.oneof(edited, extraKey, fc.json()), (data) => {
        expect(whole(data)).toEqual(parsed(data));
      }),
      { numRuns: 2000 },
    );
  });

  it('parses a delta with its keys in another order or with spaces whole, and refuses what is not an event', () => {
    expect(
      readStreamEvent('{"index":0,"type":"content_block_delta","delta":{"text":"hi","type":"text_delta"}}'),
    ).toEqual({
      index: 0,
      type: 'content_block_delta',
      delta: { text: 'hi', type: 'text_delta' },
    });
    expect(readStreamEvent('{"type":"content_block_delta","index":01,"delta":{"type":"text_delta","text":"a"}}')).toBe(
      undefined,
    );
    expect(
      readStreamEvent('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a"},"x":"b"}}'),
    ).toBe(undefined);
    expect(readStreamEvent('[1]')).toBeUndefined();
    expect(readStreamEvent('{"type":1}')).toBeUndefined();
  });
});

describe('readStreamEvents', () => {
  const data = (e: object) => ({ event: 'x', data: JSON.stringify(e) });
  const text = (index: number, t: string, f: 'text' | 'thinking' = 'text') =>
    data({ type: 'content_block_delta', index, delta: { type: `${f}_delta`, [f]: t } });

  it('joins a run of deltas of one block and field, and keeps every other event where it was', () => {
    const { events, malformed } = readStreamEvents([
      text(0, 'a'),
      text(0, 'b'),
      text(0, 'c', 'thinking'),
      text(1, 'd'),
      text(1, 'e'),
      data({ type: 'ping' }),
      text(1, 'f'),
      data({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'g', extra: 1 } }),
    ]);
    expect(malformed).toBeUndefined();
    expect(events.map((e) => (e instanceof ContentDelta ? e.toEvent() : e))).toEqual([
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ab' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'c' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'de' } },
      { type: 'ping' },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'f' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'g', extra: 1 } },
    ]);
  });

  it('stops at data that is not an event, with what came before it read', () => {
    const bad = { event: 'content_block_delta', data: '{"type":' };
    const { events, malformed } = readStreamEvents([text(0, 'a'), text(0, 'b'), bad, text(0, 'c')]);
    expect(malformed).toBe(bad);
    expect(events).toEqual([new ContentDelta(0, 'text', 'ab')]);
  });
});
