/** One server-sent event of the Messages API stream. */
export interface SseEvent {
  event: string;
  data: string;
}

export function formatSse(e: SseEvent): string {
  return `event: ${e.event}\ndata: ${e.data}\n\n`;
}

/**
 * Splits a byte stream of server-sent events into events, whatever the chunking: call `push` with
 * each chunk; it returns the events completed so far. Comments and `id:`/`retry:` lines are dropped.
 */
export class SseParser {
  /** Text read since the last complete event, as it came (joined only once an event completes). */
  private parts: string[] = [];
  private lastChar = '';
  private pendingCr = false;

  push(chunk: string): SseEvent[] {
    // A CRLF may be split between chunks: hold a trailing CR until the next chunk shows what follows.
    let text = (this.pendingCr ? '\r' : '') + chunk;
    this.pendingCr = text.endsWith('\r');
    if (this.pendingCr) text = text.slice(0, -1);
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n');
    if (text === '') return [];
    // An event ends at a blank line: in this text, or across its start and the text before. Until
    // one does, the text waits unjoined, so a large event read in many pieces costs its length
    // once, not once per piece.
    if (!(this.lastChar === '\n' && text.charCodeAt(0) === 10) && !text.includes('\n\n')) {
      this.parts.push(text);
      this.lastChar = text[text.length - 1];
      return [];
    }
    this.parts.push(text);
    const buffer = this.parts.length === 1 ? text : this.parts.join('');
    const events: SseEvent[] = [];
    let from = 0;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n', from)) {
      const event = readBlock(buffer, from, end);
      if (event) events.push(event);
      from = end + 2;
    }
    const rest = from === 0 ? buffer : buffer.slice(from);
    this.parts = rest ? [rest] : [];
    this.lastChar = rest ? rest[rest.length - 1] : '';
    return events;
  }
}

/** The event of the lines from `from` to `end` (a newline), if it has data. */
function readBlock(text: string, from: number, end: number): SseEvent | undefined {
  let event = 'message';
  let data: string | undefined;
  for (let line = from; line < end;) {
    // text[end] is a newline, so a line never runs past the block.
    const eol = text.indexOf('\n', line);
    if (text.startsWith('data:', line)) {
      const value = text.slice(text.charCodeAt(line + 5) === 32 ? line + 6 : line + 5, eol);
      data = data === undefined ? value : `${data}\n${value}`;
    } else if (text.startsWith('event:', line)) {
      event = text.slice(line + 6, eol).trim();
    }
    line = eol + 1;
  }
  return data === undefined ? undefined : { event, data };
}

/** The stream of a complete answer, as Anthropic streams one (for providers that do not stream). */
export function synthesizeStream(message: { id?: string; model?: string }, text: string, chunkSize = 64): SseEvent[] {
  const start = {
    type: 'message_start',
    message: {
      ...message,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    },
  };
  const events: SseEvent[] = [
    { event: 'message_start', data: JSON.stringify(start) },
    {
      event: 'content_block_start',
      data: JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    },
  ];
  for (let i = 0; i < text.length; i += chunkSize) {
    events.push(textDelta(0, text.slice(i, i + chunkSize)));
  }
  events.push(
    { event: 'content_block_stop', data: JSON.stringify({ type: 'content_block_stop', index: 0 }) },
    {
      event: 'message_delta',
      data: JSON.stringify({
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: 0 },
      }),
    },
    { event: 'message_stop', data: JSON.stringify({ type: 'message_stop' }) },
  );
  return events;
}

export function textDelta(index: number, text: string): SseEvent {
  return {
    event: 'content_block_delta',
    data: JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
  };
}

export function errorEvent(type: string, message: string, extra: Record<string, unknown> = {}): SseEvent {
  return { event: 'error', data: JSON.stringify({ type: 'error', error: { type, message, ...extra } }) };
}
