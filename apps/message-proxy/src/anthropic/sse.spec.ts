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
