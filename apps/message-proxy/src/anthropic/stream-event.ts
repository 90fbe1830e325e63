import { isObject } from './content';

/** An event of the Messages stream, as parsed: `type` names it. */
export type StreamEvent = Record<string, unknown> & { type: string };

/**
 * A text or thinking delta, read without building its event: the bulk of a stream, thousands per
 * answer. It stands for exactly `{"type":"content_block_delta","index":<index>,"delta":{"type":
 * "<field>_delta","<field>":<text>}}` and nothing else.
 */
export class ContentDelta {
  constructor(
    readonly index: number,
    readonly field: 'text' | 'thinking',
    readonly text: string,
  ) {}

  /** The event it stands for. */
  toEvent(): StreamEvent {
    const delta =
      this.field === 'text' ? { type: 'text_delta', text: this.text } : { type: 'thinking_delta', thinking: this.text };
    return { type: 'content_block_delta', index: this.index, delta };
  }
}

const HEAD = '{"type":"content_block_delta","index":';
const TEXT = ',"delta":{"type":"text_delta","text":';
const THINKING = ',"delta":{"type":"thinking_delta","thinking":';

/**
 * Reads one event's `data:`: a JSON object with a string `type`, or undefined. A text or thinking
 * delta written the way the Messages API writes one (keys in its order, no spaces) comes back as a
 * ContentDelta, its string decoded by JSON.parse alone: the data is then exactly that template
 * around one JSON string, so a full parse would give the same event. Anything else is parsed whole.
 */
export function readStreamEvent(data: string): StreamEvent | ContentDelta | undefined {
  const delta = readContentDelta(data);
  if (delta) return delta;
  try {
    const v: unknown = JSON.parse(data);
    return isObject(v) && typeof v.type === 'string' ? (v as StreamEvent) : undefined;
  } catch {
    return undefined;
  }
}

function readContentDelta(data: string): ContentDelta | undefined {
  if (!data.startsWith(HEAD) || !data.endsWith('"}}')) return undefined;
  // The index: a JSON integer (no leading zero), short enough to be exact.
  let at = HEAD.length;
  let index = 0;
  for (let c = data.charCodeAt(at); c >= 48 && c <= 57 && at - HEAD.length < 9; c = data.charCodeAt(++at))
    index = index * 10 + (c - 48);
  const digits = at - HEAD.length;
  if (digits === 0 || (digits > 1 && data.charCodeAt(HEAD.length) === 48)) return undefined;
  const field = data.startsWith(TEXT, at) ? 'text' : data.startsWith(THINKING, at) ? 'thinking' : undefined;
  if (!field) return undefined;
  at += field === 'text' ? TEXT.length : THINKING.length;
  // What lies between the key and the closing `}}` must be one JSON string and nothing more.
  if (data.charCodeAt(at) !== 34) return undefined;
  try {
    const text: unknown = JSON.parse(data.slice(at, data.length - 2));
    return typeof text === 'string' ? new ContentDelta(index, field, text) : undefined;
  } catch {
    return undefined;
  }
}
