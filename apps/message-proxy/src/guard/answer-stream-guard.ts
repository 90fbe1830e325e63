import { isLowSurrogate, MATCH_CONTEXT, maskSpans, type Span } from '@bastion/guardrails';
import {
  applyWrites,
  type ContentWalk,
  joinLeaves,
  isCount,
  isObject,
  mergeWalks,
  type TextLeaf,
  type Unreadable,
  unreadableName,
  walkBlock,
  walkFields,
  walkResponse,
  walkValue,
  leafWrites,
} from '../anthropic/content';
import { ContentDelta, type StreamEvent } from '../anthropic/stream-event';
import { type DirectionGuard, edgeHolds, type GuardStream, type WindowVerdict } from './direction-guard';

export type { StreamEvent } from '../anthropic/stream-event';

export type StreamStep = {
  events: StreamEvent[];
  stop?: { reason: 'blocked' | 'unreadable' | 'malformed'; detail: string };
};

/** A leaf with where its text sits in the answer's one scanned text. */
type PlacedLeaf = TextLeaf & { start: number };

interface Pending {
  event: StreamEvent;
  leaves: PlacedLeaf[];
  /** Offset just past the event's text (for an event without text: where it stands in the answer). */
  end: number;
  /** A text or thinking delta: may leave in parts, the part already safe first. */
  splittable: boolean;
  /**
   * A delta of block `mergeInto` with nothing but its type and text: the next such delta of the
   * same block and type, while both wait, joins it (one event leaves, as the client would have
   * read both).
   */
  mergeInto?: number;
  /** Re-serialises fields built from the leaves (a tool's input) once masks are applied. */
  seal?: () => void;
  /** Keys scanned alone and masked: renamed as the event leaves, once its texts are written. */
  renames?: [TextLeaf, string][];
}

/**
 * One text of the answer as the client reads it apart from the others: a block's text (what its
 * start brings and its deltas), or one string of a walked event (a citation's, a tool input's).
 */
interface Part {
  /** Block index and field of a block's own text; block -1: a part of one string. */
  block: number;
  field?: string;
  /** Where it ends in the answer's one scanned text. */
  end: number;
  /** Its last characters: at least `tailMax` of them (or all), at most twice that. */
  tail: string;
  /**
   * When it met the part before letter to letter: its own scan, from its start, as if the part
   * before were not there; `aloneSafe` is where that scan says no finding can still start. A part
   * of one string (whole when it arrives) is scanned alone at once instead (`whole`).
   */
  alone?: GuardStream;
  aloneSafe: number;
  whole?: true;
  /**
   * A text block's text that follows an earlier one with other parts between (a thinking block, a
   * tool input): scanned also as the client shows it, right after the earlier text block's last
   * characters (see `partText`); `bridgeSafe` as `aloneSafe`.
   */
  bridge?: GuardStream;
  bridgeSafe?: number;
  /** Where the part starts in the answer's text (set with `bridge`). */
  bridgeStart?: number;
}

/** Characters past the longest match a part's edge can change: a few times what the detectors read around a match. */
const EDGE_CONTEXT = 4 * MATCH_CONTEXT;

/** The fields of events and deltas their type reads itself (the rest are walked as API fields). */
const MESSAGE_FIELD = new Set(['message']);
const BLOCK_FIELD = new Set(['content_block']);
const DELTA_FIELD = new Set(['delta']);
const FIELDS_OF = { text: new Set(['text']), thinking: new Set(['thinking']) };
const TOOL_DELTA_KEYS = new Set(['type', 'partial_json']);

/** Most pushes release nothing: they share this (never changed) list and step. */
const NO_EVENTS: StreamEvent[] = [];
const NOTHING: StreamStep = { events: NO_EVENTS };

/** The field of a delta that may leave in parts; compared, not looked up, so no inherited key ("constructor") counts. */
function splittableField(type: unknown): 'text' | 'thinking' | undefined {
  return type === 'text_delta' ? 'text' : type === 'thinking_delta' ? 'thinking' : undefined;
}

/**
 * Guards one streamed answer across all of its content blocks. Every delta that carries content
 * (text, thinking, tool input, server-tool results) adds to one text, scanned as one, so a match
 * split across deltas, events or blocks is seen whole; what a text or thinking block's events carry
 * besides its own text (citations, titles) is scanned alone, as the client shows it apart. An event leaves only once no
 * match that could touch its text can still be in progress (the engines' stream scanner says where
 * that is: on clean prose a few characters; never more than the longest match the project's
 * response scanners can make, capped at `cap`). Redactions mask exactly the characters the client
 * would have received; a block stops the stream before any of the match leaves. The scanner reads
 * each character a bounded number of times, however long the answer.
 *
 * Parts that meet letter to letter (a block ending in a word, the next one starting with one) are
 * scanned on their own as well, as a request's and a JSON answer's are: the part that begins so
 * from its start (its own stream scanner, which holds its text back too), the one that ended so
 * over its last characters once the next part's first one shows the edge is hidden in the join.
 *
 * Every other field of an event (identifiers, a model name, keys and numbers, fields the API does
 * not define) is scanned on its own as soon as its event arrives, and masked before the event can
 * leave. A tool's input arrives as fragments of JSON: it is held until its block ends, parsed,
 * scanned (its strings as text, its keys and numbers on their own) and sent on as one fragment.
 * Events that carry content the proxy cannot read stop the stream, or pass (flagged, their fields
 * scanned) when the project allows it. An event that is not the API's shape (a block event without
 * a block index, a delta that is not an object) is malformed.
 */
export class AnswerStreamGuard {
  /** Length of everything pushed to the scanner (the answer's text so far). */
  private length = 0;
  private released = 0;
  /** Where the scanner says no finding can still start. */
  private safe = 0;
  private blocked = false;
  private readonly scan?: GuardStream;
  /**
   * Text not yet handed to the scanner, and how much more may gather before the scanner would
   * scan: the pieces of a stream go to it a scan's worth at a time, not delta by delta.
   */
  private unscanned: string[] = [];
  private room = 0;
  /** Events not yet released: `queue[head]` on (a list with a moving head, not shifted item by item). */
  private queue: Pending[] = [];
  private head = 0;
  /** The `safe` of the last release and the event that then had to wait. */
  private lastSafe = -1;
  private waiting?: Pending;
  private masks: Span[] = [];
  private readonly toolInputs = new Map<number, string>();
  /** `content[<index>]` per block index, made once. */
  private readonly blockWhere: string[] = [];
  private readonly deliveredText: string[] = [];
  /** Characters of the answer's text delivered so far (the length of `deliveredText` joined). */
  private deliveredLength = 0;
  readonly unreadable: Unreadable[] = [];
  private stopped = false;
  /** The part text was last added to. */
  private part?: Part;
  /** The last part that was a text block's own text. */
  private lastText?: Part;
  /**
   * The last characters of the text blocks' own texts as a client that shows only them reads them
   * (at least `tailMax` of them, or all, at most twice that): what a bridge starts from.
   */
  private shownTail = '';
  /**
   * The block started and not yet stopped (-1: none), and how many blocks started: blocks come one
   * after the other, indexed from 0, as the API sends them. A client puts each start's block at
   * its index and each delta into its index's block, so a block started twice, or a delta for
   * another block than the open one, would put text side by side for the client that the guard
   * read apart (or the other way round): such a stream is malformed.
   */
  private openBlock = -1;
  private blocksStarted = 0;
  /** Whether the open block is a text or thinking block (see `besideOwnText`). */
  private openIsText = false;
  /** A part's end scanned on its own: long enough for any match the stream can see, with its context. */
  private readonly tailMax: number;

  constructor(
    private readonly guard: DirectionGuard,
    private readonly cap: number,
    /** Whether the project refuses this content the proxy cannot read (else it passes, flagged). */
    private readonly refuses: (u: Unreadable) => boolean,
  ) {
    if (guard.active) {
      this.scan = guard.stream(cap);
      this.room = this.scan.untilScan;
    }
    // The cut may move up to EDGE_CONTEXT on to an edge: what is left still holds a match of `cap`
    // ending within EDGE_CONTEXT of the part's end.
    this.tailMax = cap + 2 * EDGE_CONTEXT;
  }

  /** The answer's text as the client received it (masked where redacted). */
  get delivered(): string {
    return this.deliveredText.join('');
  }

  /** The next event of the answer, parsed or (a text or thinking delta) read as a ContentDelta. */
  push(event: StreamEvent | ContentDelta): StreamStep {
    if (this.stopped) return { events: [] };
    // Text and thinking deltas, the bulk of a stream, go straight to their own path.
    if (event instanceof ContentDelta) return this.pushDelta(event.index, event.field, event.text, event);
    if (event.type === 'content_block_delta' && isObject(event.delta) && typeof event.index === 'number') {
      const field = splittableField(event.delta.type);
      const text = field && event.delta[field];
      if (field && typeof text === 'string' && isPlainDelta(event))
        return this.pushDelta(event.index, field, text, event);
    }
    const problem = this.take(event);
    if (problem) return this.stop(problem.reason, problem.detail);
    return this.advance(false);
  }

  private pushDelta(index: number, field: 'text' | 'thinking', text: string, event: StreamEvent | ContentDelta) {
    const outOfOrder = this.outOfOrder('content_block_delta', index);
    if (outOfOrder) return this.stop('malformed', outOfOrder);
    if (!this.scan && this.head === this.queue.length) {
      // No response scanner and nothing queued: it leaves as it came.
      this.deliverText(this.length, text);
      this.length += text.length;
      return { events: [event instanceof ContentDelta ? event.toEvent() : event] };
    }
    this.enqueueDelta(event, field, text, index);
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
    const malformed = (detail: string) => ({ reason: 'malformed' as const, detail });
    const blockEvent = event.type.startsWith('content_block_');
    // A block's events carry its index, a count: anything else is not the API's stream.
    if (blockEvent && !(isCount(event.index) && event.index >= 0))
      return malformed(`a ${event.type} event whose index is not a block index`);
    const index = blockEvent ? (event.index as number) : -1;
    const outOfOrder = blockEvent ? this.outOfOrder(event.type, index) : undefined;
    if (outOfOrder) return malformed(outOfOrder);
    // Every field of an event but the one its type reads below is scanned too (walkFields): what
    // the API does not define, identifiers, the model's name, stop sequences, long numbers.
    const where = index >= 0 ? (this.blockWhere[index] ??= `content[${index}]`) : event.type;
    switch (event.type) {
      case 'message_start':
        if (!isObject(event.message)) return malformed('a message_start whose message is not an object');
        // The API starts a message with no content: a client would put blocks given here before
        // the streamed ones, beside text the guard read apart from them.
        if (Array.isArray(event.message.content) && event.message.content.length > 0)
          return malformed('a message_start whose message already has content');
        return this.enqueue(
          event,
          mergeWalks(walkResponse(event.message), walkFields(event, event.type, MESSAGE_FIELD)),
        );
      case 'content_block_start': {
        const block = event.content_block;
        if (!isObject(block)) return malformed(`a content_block_start of block ${index} without a block`);
        if (['tool_use', 'server_tool_use', 'mcp_tool_use'].includes(String(block.type)))
          this.toolInputs.set(index, '');
        // A text or thinking block's own text, as its start brings it, is the start of the part its deltas go on.
        const key = block.type === 'text' || block.type === 'thinking' ? block.type : undefined;
        this.openIsText = key !== undefined;
        return this.enqueue(
          event,
          this.besideOwnText(mergeWalks(walkBlock(block, where), walkFields(event, where, BLOCK_FIELD)), block, key),
          key && { owner: block, index, key },
        );
      }
      case 'content_block_delta': {
        const delta = event.delta;
        if (!isObject(delta)) return malformed(`a content_block_delta of block ${index} without a delta`);
        const around = walkFields(event, where, DELTA_FIELD);
        const field = splittableField(delta.type);
        if (field) {
          const text = delta[field];
          // A client adds a delta's text to its block's whatever its type: one that is not a string
          // would join the text before it, which the guard read apart from it.
          if (typeof text !== 'string')
            return malformed(`a ${String(delta.type)} of block ${index} whose ${field} is not a string`);
          if (isPlainDelta(event)) return this.enqueueDelta(event, field, text, index);
          // A delta with more than its text: its text joins the answer's, the rest is scanned alone.
          const own: TextLeaf[] = text ? [{ owner: delta, key: field, text, where }] : [];
          const rest = walkFields(delta, where, FIELDS_OF[field]);
          return this.enqueue(
            event,
            this.besideOwnText(mergeWalks({ leaves: own, unreadable: [] }, rest, around), delta, field),
            {
              owner: delta,
              index,
              key: field,
            },
          );
        }
        if (delta.type === 'input_json_delta') {
          const partial = this.toolInputs.get(index);
          if (partial === undefined) return malformed(`tool input for block ${index}, which is not a tool call`);
          if (
            around.leaves.length ||
            typeof delta.partial_json !== 'string' ||
            Object.keys(delta).some((k) => !TOOL_DELTA_KEYS.has(k))
          )
            return malformed(`a tool input delta of block ${index} that is not one string of JSON`);
          this.toolInputs.set(index, partial + delta.partial_json);
          return undefined;
        }
        if (delta.type === 'signature_delta' || delta.type === 'citations_delta')
          return this.enqueue(event, this.besideOwnText(mergeWalks(walkFields(delta, where), around)));
        // A delta type it does not know: refused, or passed flagged with its fields scanned.
        return this.enqueue(
          event,
          this.besideOwnText(
            mergeWalks(
              { leaves: [], unreadable: [{ where, type: `delta/${String(delta.type)}`, kind: 'unknown' }] },
              walkFields(delta, where),
              around,
            ),
          ),
        );
      }
      case 'content_block_stop': {
        const partial = this.toolInputs.get(index);
        if (partial !== undefined) {
          this.toolInputs.delete(index);
          const problem = this.enqueueToolInput(index, partial);
          if (problem) return problem;
        }
        const walk = this.besideOwnText(walkFields(event, where));
        this.openIsText = false;
        return this.enqueue(event, walk);
      }
      case 'message_delta':
      case 'message_stop':
      case 'ping':
      case 'error':
        return this.enqueue(event, walkFields(event, where));
      default:
        // An event type it does not know: refused, or passed flagged with its fields scanned.
        return this.enqueue(
          event,
          mergeWalks(
            { leaves: [], unreadable: [{ where: 'stream', type: `event/${event.type}`, kind: 'unknown' }] },
            walkFields(event, where),
          ),
        );
    }
  }

  /**
   * An event of the open text or thinking block: what it carries besides the block's own text
   * (`owner[key]`), a citation's text, a title, a field beside an empty delta, is shown by the
   * client apart from that text, so it is scanned alone rather than in the join, where it would
   * stand inside the block's text and part it ("top sec", a citation, "ret plan"). The events of
   * other blocks keep their texts in the join, as the client shows adjacent blocks' texts.
   */
  private besideOwnText(walk: ContentWalk, owner?: object, key?: string): ContentWalk {
    if (!this.openIsText || !walk.leaves.some((l) => !l.alone && !(l.owner === owner && l.key === key))) return walk;
    return {
      ...walk,
      leaves: walk.leaves.map((l) => (l.alone || (l.owner === owner && l.key === key) ? l : { ...l, alone: 'string' })),
    };
  }

  /** Why a block event is out of the API's order (see `openBlock`), else undefined; keeps the order. */
  private outOfOrder(type: string, index: number): string | undefined {
    if (type === 'content_block_start') {
      if (this.openBlock >= 0) return `a content_block_start of block ${index} while block ${this.openBlock} is open`;
      if (index !== this.blocksStarted)
        return `a content_block_start of block ${index} where block ${this.blocksStarted} comes next`;
      this.openBlock = index;
      this.blocksStarted++;
      return undefined;
    }
    if (index !== this.openBlock) return `a ${type} of block ${index}, which is not the open block`;
    if (type === 'content_block_stop') this.openBlock = -1;
    return undefined;
  }

  /**
   * A tool call's input, streamed as fragments of JSON and gathered until its block ended: parsed,
   * scanned whatever its shape (an object, or a bare string or number), and sent on as one
   * fragment. Nothing streamed (the input the block started with stands): nothing is sent.
   */
  private enqueueToolInput(
    index: number,
    json: string,
  ): { reason: 'unreadable' | 'malformed'; detail: string } | undefined {
    if (json.trim() === '') return undefined;
    const holder: Record<string, unknown> = {};
    try {
      holder.input = JSON.parse(json);
    } catch {
      return { reason: 'malformed', detail: `the tool input of block ${index} is not JSON` };
    }
    const delta: Record<string, unknown> = { type: 'input_json_delta', partial_json: '' };
    const event: StreamEvent = { type: 'content_block_delta', index, delta };
    const problem = this.enqueue(event, walkValue(holder, 'input', `content[${index}].input`));
    const item = this.queue.at(-1);
    if (item) item.seal = () => void (delta.partial_json = JSON.stringify(holder.input));
    return problem;
  }

  /**
   * A text or thinking delta: the bulk of a stream, thousands per answer, so it takes the short way
   * (one leaf, nothing unreadable), and joins the delta before it when that one still waits: a
   * stream of small deltas held for a scan leaves as a few events, not thousands.
   */
  private enqueueDelta(
    event: StreamEvent | ContentDelta,
    field: 'text' | 'thinking',
    text: string,
    index: number,
  ): undefined {
    if (text === '') {
      this.queue.push({ event: eventOf(event), leaves: [], end: this.length, splittable: false });
      return undefined;
    }
    const start = this.length;
    this.length += text.length;
    this.toScan(text);
    this.partText(index, field, start, text);
    const last = this.queue.length > this.head ? this.queue[this.queue.length - 1] : undefined;
    if (last?.mergeInto === index && last.end === start && last.leaves[0].key === field && isPlainDelta(event)) {
      const leaf = last.leaves[0];
      leaf.text += text;
      (leaf.owner as Record<string, unknown>)[field] = leaf.text;
      last.end = this.length;
      return undefined;
    }
    const whole = eventOf(event);
    const leaf: PlacedLeaf = {
      owner: whole.delta as Record<string, unknown>,
      key: field,
      text,
      where: (this.blockWhere[index] ??= `content[${index}]`),
      start,
    };
    // Only a delta that may wait can be joined (without scanners, or in a draft project, each leaves at once).
    const mayWait = this.scan !== undefined && this.guard.enforcing;
    this.queue.push({
      event: whole,
      leaves: [leaf],
      end: this.length,
      splittable: true,
      mergeInto: mayWait && isPlainDelta(event) ? index : undefined,
    });
    return undefined;
  }

  /** `own`: the block or delta whose field `key` is its block's own text (one part with the block's deltas). */
  private enqueue(
    event: StreamEvent,
    walk?: { leaves: TextLeaf[]; unreadable: Unreadable[] },
    own?: { owner: object; index: number; key: string },
  ): { reason: 'unreadable'; detail: string } | undefined {
    if (walk?.unreadable.length) {
      this.unreadable.push(...walk.unreadable);
      const refused = walk.unreadable.filter(this.refuses);
      if (refused.length) return { reason: 'unreadable', detail: [...new Set(refused.map(unreadableName))].join(', ') };
    }
    const leaves: PlacedLeaf[] = [];
    const alone: TextLeaf[] = [];
    for (const leaf of walk?.leaves ?? []) {
      if (leaf.alone) {
        alone.push(leaf);
        continue;
      }
      leaves.push({ ...leaf, start: this.length });
      const ownText = own?.owner === leaf.owner && leaf.key === own.key;
      this.partText(ownText ? own.index : -1, ownText ? own.key : undefined, this.length, leaf.text);
      this.length += leaf.text.length;
      this.toScan(leaf.text);
    }
    const renames = alone.length ? this.scanAlone(alone) : undefined;
    // Only a plain text or thinking delta leaves in parts (enqueueDelta); an event walked here leaves whole.
    this.queue.push({ event, leaves, end: this.length, splittable: false, renames });
    return undefined;
  }

  /**
   * Identifiers, keys and numbers are whole when their event arrives: scanned at once, on their
   * own (not in the answer's text, where they would stand between the halves of a match split
   * across blocks), and masked before the event can leave; a block stops the answer.
   */
  private scanAlone(alone: TextLeaf[]): [TextLeaf, string][] | undefined {
    if (!this.scan) return undefined;
    const joined = joinLeaves(alone);
    const verdict = this.guard.scan(joined, this.length);
    if (verdict.blocked) this.blocked = true;
    if (verdict.blocked || verdict.redactions.length === 0) return undefined;
    const masked = maskSpans(
      joined,
      verdict.redactions.map(([s, e]) => [s - this.length, e - this.length]),
    );
    // Values and identifiers are masked now; keys are renamed when the event leaves, after its
    // texts are written under their keys' old names.
    const writes = leafWrites(alone, masked);
    applyWrites(writes.filter(([l]) => l.alone !== 'key'));
    const renames = writes.filter(([l]) => l.alone === 'key');
    return renames.length ? renames : undefined;
  }

  /**
   * `text` (at `start` of the answer's text) is of block `block`'s own `field` (block -1: a part of
   * its own; compared, not joined into a key, as it runs per delta). A new part that meets the one before letter to letter ends that one scanned on its own, and is
   * scanned on its own from its start.
   */
  private partText(block: number, field: string | undefined, start: number, text: string): void {
    if (!this.scan || text === '') return;
    let part = this.part;
    if (!part || block < 0 || part.block !== block || part.field !== field) {
      const meets = part !== undefined && !edgeHolds(part.tail.at(-1), text[0]);
      if (part) this.endPart(part, meets);
      const before = this.part;
      part = this.part = { block, field, end: start, tail: '', aloneSafe: start };
      if (field === 'text' && block >= 0) {
        if (this.lastText && this.lastText !== before) this.bridgeFrom(part, start);
        this.lastText = part;
      }
      if (meets && block < 0) {
        // One scan, within the scan budget, not a stream scanner per string (a hostile tool input
        // of thousands of short strings would cost its construction each time, outside the budget).
        this.takeVerdict(this.guard.scan(text, start));
        part.whole = true;
      } else if (meets) {
        part.alone = this.guard.stream(this.cap, start);
      }
    }
    part.end += text.length;
    part.tail += text;
    if (part.tail.length > 2 * this.tailMax) part.tail = part.tail.slice(-this.tailMax);
    if (part === this.lastText) {
      this.shownTail += text;
      if (this.shownTail.length > 2 * this.tailMax) this.shownTail = this.shownTail.slice(-this.tailMax);
    }
    if (part.alone) this.absorbAlone(part, part.alone.push(text));
    if (part.bridge) this.absorbBridge(part, part.bridge.push(text));
  }

  /**
   * Scans text block `part`, which starts at `start`, also as the client shows it: right after the
   * last characters of the text blocks before it (`shownTail`, however many), with what stood
   * between them in the answer (other blocks' texts) left out, as a client that shows only text
   * blocks reads them. Its own stream scanner, from those characters on; a match within them is
   * the join's or an earlier bridge's, one that runs from them into this part cannot be masked
   * where it began (that has left, or is the join's to release): the answer is stopped as blocked.
   */
  private bridgeFrom(part: Part, start: number): void {
    const { tail } = this.edgeTail(this.shownTail, start);
    if (!tail) return;
    part.bridge = this.guard.stream(this.cap, start - tail.length, (m) => (m[1] > start ? m : undefined));
    part.bridgeSafe = part.bridgeStart = start;
    this.absorbBridge(part, part.bridge.push(tail));
  }

  private absorbBridge(part: Part, verdict: WindowVerdict & { safeUpTo: number }): void {
    const start = part.bridgeStart ?? 0;
    if (verdict.blocked || verdict.redactions.some(([s]) => s < start)) this.blocked = true;
    else if (verdict.redactions.length) this.masks.push(...verdict.redactions);
    part.bridgeSafe = Math.max(part.bridgeSafe ?? start, verdict.safeUpTo);
  }

  /**
   * The part ended. Scanned on its own from its start: its scan finishes. Else, when the next part
   * meets it letter to letter (`meets`), its last characters are scanned on their own: a match
   * there was held back in the join (a match could still go on), so it has not left. One that had
   * left unmasked (a scanner whose matches the join does not hold back) cannot be masked any more:
   * the answer is stopped as blocked.
   */
  private endPart(part: Part, meets: boolean): void {
    if (part.bridge) {
      this.absorbBridge(part, part.bridge.finish());
      part.bridge = undefined;
    }
    if (part.alone) {
      this.absorbAlone(part, part.alone.finish());
      part.alone = undefined;
      return;
    }
    if (part.whole || !meets) return;
    const { tail, from } = this.edgeTail(part.tail, part.end);
    // Only a match that reaches the part's end, its context included, can read differently alone
    // than joined; one further back is the join's (or, read from a cut that is no edge, no match).
    const nearEnd = part.end - EDGE_CONTEXT;
    const verdict = this.guard.scan(tail, from, (m) => (m[1] > nearEnd ? m : undefined));
    if (verdict.blocked) this.blocked = true;
    if (verdict.redactions.length === 0) return;
    // What the join found already left masked; anything else of a match that has left is a leak.
    const leftUnmasked = ([s, e]: Span) =>
      s < this.released && /[^*]/.test(this.deliveredSince(s).slice(0, Math.min(e, this.released) - s));
    if (verdict.redactions.some(leftUnmasked)) this.blocked = true;
    else this.masks.push(...verdict.redactions);
  }

  /**
   * The last characters of `text`, which ends at `end` (at most `tailMax`, cut where it has an edge
   * of its own when one is near), and where they start.
   */
  private edgeTail(text: string, end: number): { tail: string; from: number } {
    let tail = text;
    let from = end - tail.length;
    if (tail.length > this.tailMax) {
      // Cut where the part has an edge of its own, when there is one near, so the cut makes none.
      const cut = tail.length - this.tailMax;
      let at = isLowSurrogate(tail.charCodeAt(cut)) ? cut + 1 : cut;
      for (let i = cut; i < cut + EDGE_CONTEXT; i++) {
        if (edgeHolds(tail[i], undefined)) {
          at = i + 1;
          break;
        }
      }
      tail = tail.slice(at);
      from += at;
    }
    return { tail, from };
  }

  private absorbAlone(part: Part, verdict: WindowVerdict & { safeUpTo: number }): void {
    this.takeVerdict(verdict);
    part.aloneSafe = Math.max(part.aloneSafe, verdict.safeUpTo);
  }

  /** A scan's verdict on text not yet released: a block stops the answer, redactions mask it as it leaves. */
  private takeVerdict(verdict: WindowVerdict): void {
    if (verdict.blocked) this.blocked = true;
    if (verdict.redactions.length) this.masks.push(...verdict.redactions);
  }

  private toScan(text: string): void {
    if (!this.scan) return;
    if (text.length <= this.room) {
      this.unscanned.push(text);
      this.room -= text.length;
    } else {
      this.flushScan(text);
    }
  }

  /** Hands the gathered text (and `text`) to the scanner. */
  private flushScan(text = ''): void {
    if (!this.scan) return;
    const all = this.unscanned.length ? this.unscanned.join('') + text : text;
    this.unscanned = [];
    if (all) this.absorb(this.scan.push(all));
    this.room = this.scan.untilScan;
  }

  private absorb(verdict: WindowVerdict & { safeUpTo: number }): void {
    this.takeVerdict(verdict);
    this.safe = Math.max(this.safe, verdict.safeUpTo);
  }

  private advance(final: boolean): StreamStep {
    if (!this.scan) return stepOf(this.release(this.length));
    if (final) {
      if (this.part) this.endPart(this.part, false);
      this.flushScan();
      this.absorb(this.scan.finish());
    }
    if (this.blocked) return this.stop('blocked', 'a guardrail blocked the answer');
    // A project that does not enforce only records: nothing waits for the scan.
    const alone = this.part?.alone ? this.part.aloneSafe : Infinity;
    const bridged = this.part?.bridge ? (this.part.bridgeSafe ?? Infinity) : Infinity;
    const events = this.release(this.guard.enforcing ? Math.min(this.safe, alone, bridged) : this.length);
    if (this.masks.length > 64) this.masks = this.masks.filter(([, e]) => e > this.released);
    return stepOf(events);
  }

  /** Releases, in order, every queued event whose text lies before `safe` (a delta in part). */
  private release(safe: number): StreamEvent[] {
    // Nothing moved since the last call: the event that waited then still waits, and all behind it.
    if (safe === this.lastSafe && this.head < this.queue.length && this.queue[this.head] === this.waiting)
      return NO_EVENTS;
    let out: StreamEvent[] | undefined;
    while (this.head < this.queue.length) {
      const item = this.queue[this.head];
      if (item.end <= safe) {
        this.head++;
        this.deliverAll(item.leaves);
        if (item.renames) applyWrites(item.renames);
        item.seal?.();
        (out ??= []).push(item.event);
        continue;
      }
      if (item.splittable && item.leaves[0].start < safe) {
        const p = item.leaves[0];
        const cut = safe - p.start;
        const head = { ...item.event, delta: { ...(item.event.delta as Record<string, unknown>) } };
        head.delta[p.key as string] = this.deliverText(p.start, p.text.slice(0, cut));
        p.text = p.text.slice(cut);
        (p.owner as Record<string, unknown>)[p.key as string] = p.text;
        p.start = safe;
        (out ??= []).push(head);
      }
      break;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    const next = this.queue[this.head];
    this.lastSafe = safe;
    this.waiting = next;
    this.released = next ? Math.min(safe, next.leaves[0]?.start ?? next.end) : Math.max(this.released, safe);
    return out ?? NO_EVENTS;
  }

  /** Masks the texts of an event where redacted (its keys scanned alone are renamed after, see `renames`). */
  private deliverAll(leaves: readonly PlacedLeaf[]): void {
    const writes: [TextLeaf, string][] = [];
    for (const leaf of leaves) {
      const masked = this.deliverText(leaf.start, leaf.text);
      if (masked !== leaf.text) writes.push([leaf, masked]);
    }
    applyWrites(writes);
  }

  /** The text as it leaves: masked where a redaction covers it; kept as the answer's delivered text. */
  private deliverText(start: number, text: string): string {
    const out = this.maskedText(start, text);
    this.deliveredText.push(out);
    this.deliveredLength += out.length;
    return out;
  }

  /** What was delivered of the answer's text from offset `from` on (read from the end: `from` is recent). */
  private deliveredSince(from: number): string {
    const pieces: string[] = [];
    let at = this.deliveredLength;
    for (let k = this.deliveredText.length - 1; k >= 0 && at > from; k--) {
      pieces.push(this.deliveredText[k]);
      at -= this.deliveredText[k].length;
    }
    return pieces
      .reverse()
      .join('')
      .slice(Math.max(0, from - at));
  }

  private maskedText(start: number, text: string): string {
    let out = text;
    for (const [s, e] of this.masks) {
      const a = Math.max(s, start) - start;
      const b = Math.min(e, start + text.length) - start;
      if (b > a) out = out.slice(0, a) + '*'.repeat(b - a) + out.slice(b);
    }
    return out;
  }

  private stop(reason: 'blocked' | 'unreadable' | 'malformed', detail: string): StreamStep {
    this.stopped = true;
    this.queue = [];
    this.head = 0;
    return { events: [], stop: { reason, detail } };
  }
}

/**
 * An event `{type, index, delta: {type, <text field>}}` and nothing else: its keys by name, its
 * index a block index, its text a string. Joining two loses nothing, and nothing beside the text
 * needs scanning.
 */
function isPlainDelta(event: StreamEvent | ContentDelta): boolean {
  if (event instanceof ContentDelta) return true;
  const delta = event.delta;
  if (!isObject(delta) || !(isCount(event.index) && event.index >= 0)) return false;
  const field = splittableField(delta.type);
  if (!field || typeof delta[field] !== 'string') return false;
  let keys = 0;
  for (const k in event) if (k === 'type' || k === 'index' || k === 'delta') keys++;
  if (keys !== 3 || Object.keys(event).length !== 3) return false;
  return Object.keys(delta).length === 2;
}

function eventOf(event: StreamEvent | ContentDelta): StreamEvent {
  return event instanceof ContentDelta ? event.toEvent() : event;
}

function stepOf(events: StreamEvent[]): StreamStep {
  return events === NO_EVENTS ? NOTHING : { events };
}
