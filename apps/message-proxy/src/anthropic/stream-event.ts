import { isObject } from './content';
import type { SseEvent } from './sse';

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
  const end = data.length - 2;
  // Most strings have no escape: then the text is what lies between the quotes.
  PLAIN_STRING.lastIndex = at;
  if (PLAIN_STRING.test(data) && PLAIN_STRING.lastIndex === end)
    return new ContentDelta(index, field, data.slice(at + 1, end - 1));
  try {
    const text: unknown = JSON.parse(data.slice(at, end));
    return typeof text === 'string' ? new ContentDelta(index, field, text) : undefined;
  } catch {
    return undefined;
  }
}

/** A JSON string with no escape (nothing JSON forbids unescaped in one: a quote, a backslash, a control character). */
// eslint-disable-next-line no-control-regex -- control characters are what a JSON string must escape
const PLAIN_STRING = /"[^"\\\u0000-\u001f]*"/y;

/**
 * Reads the events of one upstream read (readStreamEvent each). A run of text (or thinking) deltas
 * of one block becomes one ContentDelta with their texts joined: they arrived together, and would
 * leave in one frame anyway, so the guard and the client's serialiser take them as one. Reading
 * stops at the first event whose data is not an event (`malformed`).
 */
export function readStreamEvents(raws: readonly SseEvent[]): {
  events: (StreamEvent | ContentDelta)[];
  malformed?: SseEvent;
} {
  const events: (StreamEvent | ContentDelta)[] = [];
  let run: string[] | undefined;
  const closeRun = () => {
    if (!run) return;
    const last = events[events.length - 1] as ContentDelta;
    events[events.length - 1] = new ContentDelta(last.index, last.field, run.join(''));
    run = undefined;
  };
  for (const raw of raws) {
    const event = readStreamEvent(raw.data);
    if (!event) {
      closeRun();
      return { events, malformed: raw };
    }
    const last = events[events.length - 1];
    if (
      event instanceof ContentDelta &&
      last instanceof ContentDelta &&
      last.index === event.index &&
      last.field === event.field
    ) {
      (run ??= [last.text]).push(event.text);
      continue;
    }
    closeRun();
    events.push(event);
  }
  closeRun();
  return { events };
}
