import type { Span } from '@bastion/guardrails';
import { isObject, type TextLeaf, type Unreadable, walkBlock, walkResponse, walkValue } from '../anthropic/content';
import type { DirectionGuard, GuardStream, WindowVerdict } from './direction-guard';

/** An event of the Messages stream, as parsed: `type` names it. */
export type StreamEvent = Record<string, unknown> & { type: string };

export type StreamStep = {
  events: StreamEvent[];
  stop?: { reason: 'blocked' | 'unreadable' | 'malformed'; detail: string };
};

/** Where a leaf's text sits in the answer's one scanned text. */
interface PlacedLeaf {
  leaf: TextLeaf;
  start: number;
}

interface Pending {
  event: StreamEvent;
  leaves: PlacedLeaf[];
  /** Offset just past the event's text (for an event without text: where it stands in the answer). */
  end: number;
  /** A text or thinking delta: may leave in parts, the part already safe first. */
  splittable: boolean;
  /** Re-serialises fields built from the leaves (a tool's input) once masks are applied. */
  seal?: () => void;
}

const SPLITTABLE: Record<string, string> = { text_delta: 'text', thinking_delta: 'thinking' };

/**
 * Guards one streamed answer across all of its content blocks. Every delta that carries content
 * (text, thinking, tool input, citations, server-tool results) adds to one text, scanned as one,
 * so a match split across deltas, events or blocks is seen whole. An event leaves only once no
 * match that could touch its text can still be in progress (the engines' stream scanner says where
 * that is: on clean prose a few characters; never more than the longest match the project's
 * response scanners can make, capped at `cap`). Redactions mask exactly the characters the client
 * would have received; a block stops the stream before any of the match leaves. The scanner reads
 * each character a bounded number of times, however long the answer.
 *
 * A tool's input arrives as fragments of JSON: it is held until its block ends, parsed, scanned by
 * its string values and sent on as one fragment. Events that carry content the proxy cannot read
 * stop the stream, or pass (flagged) when the project allows it.
 */
export class AnswerStreamGuard {
  /** Length of everything pushed to the scanner (the answer's text so far). */
  private length = 0;
  private released = 0;
  /** Where the scanner says no finding can still start. */
  private safe = 0;
  private blocked = false;
  private readonly scan?: GuardStream;
  private readonly queue: Pending[] = [];
  private masks: Span[] = [];
  private readonly toolInputs = new Map<number, string>();
  private readonly deliveredText: string[] = [];
  readonly unreadable: Unreadable[] = [];
  private stopped = false;

  constructor(
    private readonly guard: DirectionGuard,
    cap: number,
    private readonly passUnreadable: boolean,
  ) {
    if (guard.active) this.scan = guard.stream(cap);
  }

  /** The answer's text as the client received it (masked where redacted). */
  get delivered(): string {
    return this.deliveredText.join('');
  }

  push(event: StreamEvent): StreamStep {
    if (this.stopped) return { events: [] };
    const problem = this.take(event);
    if (problem) return this.stop(problem.reason, problem.detail);
    return this.advance(false);
  }

  /** The upstream ended: scan what is left and release it. */
  finish(): StreamStep {
    if (this.stopped) return { events: [] };
    for (const [index, partial] of this.toolInputs) {
      if (partial) return this.stop('malformed', `the tool input of block ${index} never ended`);
    }
    return this.advance(true);
  }

  private take(event: StreamEvent): { reason: 'unreadable' | 'malformed'; detail: string } | undefined {
    const index = typeof event.index === 'number' ? event.index : -1;
    switch (event.type) {
      case 'message_start':
        return this.enqueue(event, isObject(event.message) ? walkResponse(event.message) : undefined);
      case 'content_block_start': {
        const block = isObject(event.content_block) ? event.content_block : {};
        if (['tool_use', 'server_tool_use', 'mcp_tool_use'].includes(String(block.type)))
          this.toolInputs.set(index, '');
        return this.enqueue(event, walkBlock(block, `content[${index}]`));
      }
      case 'content_block_delta': {
        const delta = isObject(event.delta) ? event.delta : {};
        const field = SPLITTABLE[String(delta.type)];
        if (field) {
          const text = typeof delta[field] === 'string' ? (delta[field] as string) : '';
          return this.enqueue(
            event,
            { leaves: text ? [{ owner: delta, key: field, text, where: `content[${index}]` }] : [], unreadable: [] },
            true,
          );
        }
        if (delta.type === 'input_json_delta') {
          const partial = this.toolInputs.get(index);
          if (partial === undefined)
            return { reason: 'malformed', detail: `tool input for block ${index}, which is not a tool call` };
          this.toolInputs.set(index, partial + String(delta.partial_json ?? ''));
          return undefined;
        }
        if (delta.type === 'signature_delta') return this.enqueue(event);
        if (delta.type === 'citations_delta')
          return this.enqueue(event, walkValue(delta.citation, `content[${index}].citations`));
        return this.enqueue(event, {
          leaves: [],
          unreadable: [{ where: `content[${index}]`, type: `delta/${String(delta.type)}`, kind: 'unknown' }],
        });
      }
      case 'content_block_stop': {
        const partial = this.toolInputs.get(index);
        if (partial !== undefined) {
          this.toolInputs.delete(index);
          const problem = this.enqueueToolInput(index, partial);
          if (problem) return problem;
        }
        return this.enqueue(event);
      }
      case 'message_delta':
      case 'message_stop':
      case 'ping':
        return this.enqueue(event);
      case 'error':
        return this.enqueue(event, isObject(event.error) ? walkValue(event.error, 'error') : undefined);
      default:
        return this.enqueue(event, {
          leaves: [],
          unreadable: [{ where: 'stream', type: `event/${event.type}`, kind: 'unknown' }],
        });
    }
  }

  private enqueueToolInput(
    index: number,
    json: string,
  ): { reason: 'unreadable' | 'malformed'; detail: string } | undefined {
    let input: unknown;
    try {
      input = json.trim() === '' ? {} : JSON.parse(json);
    } catch {
      return { reason: 'malformed', detail: `the tool input of block ${index} is not JSON` };
    }
    const delta: Record<string, unknown> = { type: 'input_json_delta', partial_json: '' };
    const event: StreamEvent = { type: 'content_block_delta', index, delta };
    const problem = this.enqueue(event, walkValue(input, `content[${index}].input`));
    const item = this.queue.at(-1);
    if (item) item.seal = () => void (delta.partial_json = JSON.stringify(input));
    return problem;
  }

  private enqueue(
    event: StreamEvent,
    walk?: { leaves: TextLeaf[]; unreadable: Unreadable[] },
    splittable = false,
  ): { reason: 'unreadable'; detail: string } | undefined {
    if (walk?.unreadable.length) {
      this.unreadable.push(...walk.unreadable);
      if (!this.passUnreadable)
        return { reason: 'unreadable', detail: walk.unreadable.map((u) => `${u.type} at ${u.where}`).join(', ') };
    }
    const leaves: PlacedLeaf[] = [];
    for (const leaf of walk?.leaves ?? []) {
      leaves.push({ leaf, start: this.length });
      this.length += leaf.text.length;
      if (this.scan) this.absorb(this.scan.push(leaf.text));
    }
    this.queue.push({ event, leaves, end: this.length, splittable: splittable && leaves.length === 1 });
    return undefined;
  }

  private absorb(verdict: WindowVerdict & { safeUpTo: number }): void {
    if (verdict.blocked) this.blocked = true;
    this.masks.push(...verdict.redactions);
    this.safe = Math.max(this.safe, verdict.safeUpTo);
  }

  private advance(final: boolean): StreamStep {
    if (!this.scan) return { events: this.release(this.length) };
    if (final) this.absorb(this.scan.finish());
    if (this.blocked) return this.stop('blocked', 'a guardrail blocked the answer');
    // A project that does not enforce only records: nothing waits for the scan.
    const events = this.release(this.guard.enforcing ? this.safe : this.length);
    if (this.masks.length > 64) this.masks = this.masks.filter(([, e]) => e > this.released);
    return { events };
  }

  /** Releases, in order, every queued event whose text lies before `safe` (a delta in part). */
  private release(safe: number): StreamEvent[] {
    const out: StreamEvent[] = [];
    while (this.queue.length) {
      const item = this.queue[0];
      if (item.end <= safe) {
        this.queue.shift();
        for (const p of item.leaves) this.deliver(p.leaf, p.start, p.leaf.text);
        item.seal?.();
        out.push(item.event);
        continue;
      }
      if (item.splittable && item.leaves[0].start < safe) {
        const p = item.leaves[0];
        const cut = safe - p.start;
        const head = structuredClone(item.event);
        const headDelta = head.delta as Record<string, unknown>;
        headDelta[p.leaf.key as string] = this.deliverText(p.start, p.leaf.text.slice(0, cut));
        p.leaf.text = p.leaf.text.slice(cut);
        (p.leaf.owner as Record<string, unknown>)[p.leaf.key as string] = p.leaf.text;
        p.start = safe;
        out.push(head);
      }
      break;
    }
    this.released = this.queue.length
      ? Math.min(safe, this.queue[0].leaves[0]?.start ?? this.queue[0].end)
      : Math.max(this.released, safe);
    return out;
  }

  private deliver(leaf: TextLeaf, start: number, text: string): void {
    const masked = this.deliverText(start, text);
    if (masked !== text) (leaf.owner as Record<string | number, unknown>)[leaf.key] = masked;
  }

  /** The text as it leaves: masked where a redaction covers it. */
  private deliverText(start: number, text: string): string {
    let out = text;
    for (const [s, e] of this.masks) {
      const a = Math.max(s, start) - start;
      const b = Math.min(e, start + text.length) - start;
      if (b > a) out = out.slice(0, a) + '*'.repeat(b - a) + out.slice(b);
    }
    this.deliveredText.push(out);
    return out;
  }

  private stop(reason: 'blocked' | 'unreadable' | 'malformed', detail: string): StreamStep {
    this.stopped = true;
    this.queue.length = 0;
    return { events: [], stop: { reason, detail } };
  }
}
