import { formatSse, SseParser, synthesizeStream } from './sse';

describe('SseParser', () => {
  it('reassembles events split anywhere, CRLF or LF', () => {
    const text = 'event: a\ndata: {"x":1}\n\nevent: b\r\ndata: line1\r\ndata: line2\r\n\r\n: comment\n\n';
    for (const size of [1, 3, 7, text.length]) {
      const p = new SseParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...p.push(text.slice(i, i + size)));
      expect(events).toEqual([
        { event: 'a', data: '{"x":1}' },
        { event: 'b', data: 'line1\nline2' },
      ]);
    }
  });

  it('reassembles events split at every position, and a large event read in many small pieces', () => {
    const text = 'event: a\ndata: {"x":1}\n\nevent: b\r\ndata: y\r\n\r\ndata: z\n\n';
    for (let cut = 0; cut <= text.length; cut++) {
      for (let cut2 = cut; cut2 <= text.length; cut2++) {
        const p = new SseParser();
        const events = [text.slice(0, cut), text.slice(cut, cut2), text.slice(cut2)].flatMap((t) => p.push(t));
        expect(events).toEqual([
          { event: 'a', data: '{"x":1}' },
          { event: 'b', data: 'y' },
          { event: 'message', data: 'z' },
        ]);
      }
    }
    const big = `data: ${'x'.repeat(1 << 20)}\n\n`;
    const p = new SseParser();
    const events = [];
    for (let i = 0; i < big.length; i += 4096) events.push(...p.push(big.slice(i, i + 4096)));
    expect(events).toEqual([{ event: 'message', data: 'x'.repeat(1 << 20) }]);
  });

  it('round-trips what it formats, and synthesizes a whole Anthropic stream', () => {
    const events = synthesizeStream({ id: 'msg_1', model: 'm' }, 'hello world', 4);
    const parsed = new SseParser().push(events.map(formatSse).join(''));
    expect(parsed.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const text = parsed
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => JSON.parse(e.data).delta.text)
      .join('');
    expect(text).toBe('hello world');
  });
});
