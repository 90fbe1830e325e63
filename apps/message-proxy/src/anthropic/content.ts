/**
 * Where the text is in a Messages API request or answer: every place a model reads or writes text,
 * as a list of leaves that can be read, scanned together and written back (redacted) in place.
 *
 * A walk works on a copy the caller owns: writing a leaf changes that copy. What the proxy cannot
 * read (an image, a base64 PDF, a block type it does not know) is listed, so the project's policy
 * can refuse it or pass it flagged, never let it through unseen.
 */

import type { ScanMatch } from '@bastion/guardrails';
import { ERROR_TYPES } from './anthropic-format';

type Container = Record<string, unknown> | unknown[];

/**
 * One string in a body, with where it sits so a redaction can be written back. A text leaf is read
 * joined with the texts around it (a client shows adjacent blocks as one text); a leaf `alone` is
 * an identifier, a number or an object key, scanned on its own: joined, the numbers of a tool's
 * input would run together into a long number no one wrote.
 */
export interface TextLeaf {
  owner: Container;
  key: string | number;
  text: string;
  /** For people: `messages[2].content[0].text`. */
  where: string;
  /** `key`: an object key (a redaction renames it); `number`: a number (masked, it becomes a string). */
  alone?: 'string' | 'key' | 'number';
}

/**
 * Content the proxy cannot scan. `unknown` is a type it has never heard of; `opaque` it knows but
 * cannot read; `too-deep` is nested past MAX_DEPTH and `malformed` a block's own text that is not
 * a string (a client joins it, as text, to the text around it, which the guard read apart from
 * it): bodies no setting passes.
 */
export interface Unreadable {
  where: string;
  type: string;
  kind: 'unknown' | 'opaque' | 'too-deep' | 'malformed';
}

/**
 * How a message names unreadable content: its type when the proxy knows it (an image, a binary
 * document, nesting, a text that is not a string), else only that it is unknown. An unknown type
 * is the sender's text, unscanned in that message: a type "123-45-6789" must not come back in an
 * error or a stored flag message.
 */
export function unreadableName(u: Unreadable): string {
  return u.kind === 'unknown' ? 'a type the proxy does not know' : u.type;
}

export interface ContentWalk {
  leaves: TextLeaf[];
  unreadable: Unreadable[];
}

export interface RequestWalkOptions {
  /** Scan the tools the request declares (names, descriptions, schemas) and its tool choice. */
  scanToolDescriptions?: boolean;
}

/**
 * What goes around a leaf scanned alone in the join: a line break stops `.` and an ASCII edge stops
 * a word or number, and NUL is in no text, so no pattern meant for text runs across it.
 */
export const ALONE_EDGE = '\n\u0000\n';

/** Nesting deeper than this is refused as unreadable (a hostile body must not exhaust the stack). */
const MAX_DEPTH = 64;

/**
 * The API's own words: a value of `type`, `role` or `stop_reason` that is one of these is the
 * API's vocabulary, not text anyone wrote, and is not scanned (a keyword scanner for "image" must
 * not block every image block). Any other value of those keys is scanned.
 */
const VOCABULARY_KEYS = new Set(['type', 'role', 'stop_reason']);
const VOCABULARY = new Set(
  [
    // blocks
    'text thinking redacted_thinking tool_use server_tool_use mcp_tool_use tool_result mcp_tool_result document',
    'search_result image container_upload web_search_tool_result web_fetch_tool_result code_execution_tool_result',
    'bash_code_execution_tool_result text_editor_code_execution_tool_result tool_search_tool_result',
    'web_search_result web_fetch_result code_execution_result code_execution_output bash_code_execution_result',
    'bash_code_execution_output text_editor_code_execution_view_result text_editor_code_execution_create_result',
    'text_editor_code_execution_str_replace_result web_search_tool_result_error web_fetch_tool_result_error',
    'code_execution_tool_result_error bash_code_execution_tool_result_error',
    'text_editor_code_execution_tool_result_error tool_reference',
    // sources and citations
    'base64 url file content char_location page_location content_block_location web_search_result_location',
    'search_result_location ephemeral',
    // stream events and deltas
    'message message_start message_delta message_stop content_block_start content_block_delta content_block_stop',
    'ping error text_delta thinking_delta signature_delta input_json_delta citations_delta',
    // roles and stop reasons
    'user assistant end_turn max_tokens stop_sequence pause_turn refusal model_context_window_exceeded',
    // JSON Schema types (a tool's input schema)
    'object array string number integer boolean null',
    // tool choice
    'auto any tool none',
  ]
    .join(' ')
    .split(' ')
    .concat([...ERROR_TYPES]),
);

/**
 * Keys of the API's objects. Any other key of a block, an event or the message envelope is one the
 * API does not define: it is scanned (alone), and so is its value. Keys in free-form JSON (a
 * tool's input, a schema) are always scanned.
 */
const API_KEYS = new Set(
  [
    'type id text citations thinking signature data name input tool_use_id content is_error source title context',
    'media_type url cache_control ttl encrypted_content encrypted_index page_age retrieved_at cited_text',
    'document_index document_title start_char_index end_char_index start_page_number end_page_number',
    'start_block_index end_block_index search_result_index file_id stdout stderr return_code error_code',
    'role model stop_reason stop_sequence usage input_tokens output_tokens cache_creation_input_tokens',
    'cache_read_input_tokens server_tool_use web_search_requests web_fetch_requests service_tier cache_creation',
    'ephemeral_5m_input_tokens ephemeral_1h_input_tokens container expires_at message error index delta',
    'partial_json content_block citation file_type lines num_lines start_line total_lines is_file_update',
    'old_start old_lines new_start new_lines server_name request_id context_management applied_edits',
  ]
    .join(' ')
    .split(' '),
);

/** API fields the API types as counts or indices (see isCount). */
const COUNT_KEYS = new Set(
  [
    'index input_tokens output_tokens cache_creation_input_tokens cache_read_input_tokens web_search_requests',
    'web_fetch_requests ephemeral_5m_input_tokens ephemeral_1h_input_tokens document_index start_char_index',
    'end_char_index start_page_number end_page_number start_block_index end_block_index search_result_index',
    'return_code num_lines start_line total_lines old_start old_lines new_start new_lines',
  ]
    .join(' ')
    .split(' '),
);

/**
 * API fields whose strings are text someone reads, joined with the texts around them. Every other
 * string of an API object (an identifier, a URL, a model name, ciphertext, a field the API does not
 * define) is scanned alone.
 */
const TEXT_KEYS = new Set([
  'text',
  'thinking',
  'cited_text',
  'title',
  'document_title',
  'context',
  'stdout',
  'stderr',
  'content',
  'source',
]);

/**
 * Every text a model reads in a Messages request: system, each message of every role, every block
 * (its identifiers, names and a tool input's keys and numbers included), and, when the project
 * says so, the tools' definitions and the tool choice. Structured output schemas are read by the
 * model too: always scanned.
 */
export function walkRequest(body: Record<string, unknown>, options: RequestWalkOptions = {}): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  const system = body.system;
  if (typeof system === 'string') leaf(walk, body, 'system', 'system');
  else if (Array.isArray(system)) blocks(walk, system, 'system', 1);
  const messages = Array.isArray(body.messages) ? body.messages : [];
  messages.forEach((m, i) => {
    if (!isObject(m)) return;
    const where = `messages[${i}].content`;
    if (typeof m.content === 'string') leaf(walk, m, 'content', where);
    else if (Array.isArray(m.content)) blocks(walk, m.content, where, 2);
  });
  if (options.scanToolDescriptions) {
    if (Array.isArray(body.tools)) freeValue(walk, body.tools, 'tools', 1);
    if (isObject(body.tool_choice)) freeValue(walk, body.tool_choice, 'tool_choice', 1);
  }
  for (const k of ['output_format', 'output_config']) if (isObject(body[k])) freeValue(walk, body[k], k, 1);
  // Stop sequences go to the model too: each scanned on its own (anything but a string as any value).
  const stops = body.stop_sequences;
  if (Array.isArray(stops))
    stops.forEach((v, i) =>
      typeof v === 'string'
        ? leaf(walk, stops, i, `stop_sequences[${i}]`, 'string')
        : anyValue(walk, stops, i, `stop_sequences[${i}]`, 1, true),
    );
  else if (stops !== undefined) anyValue(walk, body, 'stop_sequences', 'stop_sequences', 1, true);
  return textsFirst(walk);
}

/**
 * The walk's texts first, in order, then what is scanned alone: an identifier or a cache setting
 * between two texts must not stand between the halves of a match split across them.
 */
function textsFirst(walk: ContentWalk): ContentWalk {
  if (!walk.leaves.some((l) => l.alone)) return walk;
  return {
    leaves: [...walk.leaves.filter((l) => !l.alone), ...walk.leaves.filter((l) => l.alone)],
    unreadable: walk.unreadable,
  };
}

/**
 * Every text of a (non-streamed) Messages answer or a stream's `message_start` message: each
 * block (text, tool input, thinking, server-tool results, citations) and every other field of the
 * envelope (`model`, `stop_sequence`, fields the API does not define), which reach the client too.
 * A `content` that is not a list of blocks is unreadable.
 */
export function walkResponse(body: Record<string, unknown>): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  if (Array.isArray(body.content)) blocks(walk, body.content, 'content', 1);
  else if (body.content !== undefined)
    walk.unreadable.push({ where: 'content', type: 'content/not-a-list', kind: 'unknown' });
  // A content that is not a list is read as any field too, should the project pass it flagged.
  apiFields(walk, body, '', 0, Array.isArray(body.content) ? CONTENT_ONLY : undefined);
  return textsFirst(walk);
}

/** The leaves of one content block (as it starts in a stream, or whole in an answer). */
export function walkBlock(block: Record<string, unknown>, where: string): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  oneBlock(walk, block, where, 1);
  return walk;
}

/**
 * The leaves of an API object the proxy passes on whole (a stream event, a delta, a citation, an
 * error): every string, number and key but the API's own keys and vocabulary; `except` keys are
 * read elsewhere.
 */
export function walkFields(value: Record<string, unknown>, where: string, except?: ReadonlySet<string>): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  apiFields(walk, value, where, 0, except);
  return walk;
}

/**
 * The leaves of free-form JSON (a tool's input) at `owner[key]`, whatever its shape: every string,
 * every number, every key.
 */
export function walkValue(owner: Record<string, unknown>, key: string, where: string): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  anyValue(walk, owner, key, where, 0, false);
  return walk;
}

/** A leaf as it stands in the join: alone between edges, or as it is. */
function pieceOf(l: TextLeaf): string {
  return l.alone ? ALONE_EDGE + l.text + ALONE_EDGE : l.text;
}

/** The leaves as the parts of their join, in order (for DirectionGuard.checkParts). */
export function leafPieces(leaves: readonly TextLeaf[]): string[] {
  return leaves.map(pieceOf);
}

/** Joins leaves for one scan: texts with nothing between them, a leaf scanned alone between edges. */
export function joinLeaves(leaves: readonly TextLeaf[]): string {
  return leafPieces(leaves).join('');
}

/** Writes a text of the join's length back into the leaves (redaction keeps lengths). */
export function writeLeaves(leaves: readonly TextLeaf[], joined: string): void {
  applyWrites(leafWrites(leaves, joined));
}

/** The leaves whose text differs in `joined` (a text of the join's length), with their new texts. */
export function leafWrites(leaves: readonly TextLeaf[], joined: string): [TextLeaf, string][] {
  let at = 0;
  const writes: [TextLeaf, string][] = [];
  for (const l of leaves) {
    const edge = l.alone ? ALONE_EDGE.length : 0;
    at += edge;
    const next = joined.slice(at, at + l.text.length);
    at += l.text.length + edge;
    if (next !== l.text) writes.push([l, next]);
  }
  return writes;
}

/**
 * Writes new texts into their leaves: values first, then keys, so that a value is written under
 * its key's old name before the key changes. The keys of one object are renamed together (the
 * object rebuilt once, its order kept).
 */
export function applyWrites(writes: readonly [TextLeaf, string][]): void {
  const renames = new Map<Record<string, unknown>, Map<string, string>>();
  for (const [l, next] of writes) {
    if (l.alone === 'key') {
      const owner = l.owner as Record<string, unknown>;
      let names = renames.get(owner);
      if (!names) renames.set(owner, (names = new Map()));
      names.set(String(l.key), next);
      continue;
    }
    setOwn(l.owner, l.key, next);
    l.text = next;
  }
  for (const [owner, names] of renames) renameKeys(owner, names);
}

/** The leaves and unreadable content of several walks, in order. */
export function mergeWalks(...walks: ContentWalk[]): ContentWalk {
  return { leaves: walks.flatMap((w) => w.leaves), unreadable: walks.flatMap((w) => w.unreadable) };
}

/** The texts of the leaves that are read as text (not alone), each with its offset in the join. */
export function textsInJoin(leaves: readonly TextLeaf[]): { leaf: TextLeaf; at: number }[] {
  const out: { leaf: TextLeaf; at: number }[] = [];
  let at = 0;
  for (const l of leaves) {
    if (l.alone) at += 2 * ALONE_EDGE.length + l.text.length;
    else {
      out.push({ leaf: l, at });
      at += l.text.length;
    }
  }
  return out;
}

const TEXT_BLOCK = /^content\[\d+\]\.text$/;

/** Texts as a reader other than the join reads them, and how a match of theirs is placed in the join. */
export interface TextsAsRead {
  text: string;
  /** A match of `text` in the join's offsets when it runs across what differs, else undefined (the join's own). */
  place: (m: ScanMatch) => ScanMatch | undefined;
}

/**
 * An answer's text blocks as a client that shows only them reads them (the OpenAI route joins
 * them so, and so do most Messages clients): their texts with nothing between, where the join of
 * the leaves has other texts (a citation's, a thinking block's, a tool input's) between two of
 * them, so that "AKIAIOSF", a thinking block, "ODNN7EXAMPLE" is read as the key the client shows.
 * Undefined when the text blocks stand together in the join already.
 */
export function textBlocksApart(leaves: readonly TextLeaf[]): TextsAsRead | undefined {
  return textsAsRead(
    textsInJoin(leaves).filter(({ leaf }) => TEXT_BLOCK.test(leaf.where)),
    '',
  );
}

const TURN_TEXT = /^messages\[(\d+)\]\.content(?:\[\d+\]\.text)?$/;

/**
 * A request's turns as a provider reached through a template reads them: each turn's text blocks
 * joined with a line break (anthropic-format's plainTurns), which the join does not have ("the
 * launch", "codes" is "the launchcodes" joined, "the launch\ncodes" to the model). The turns of
 * two or more text blocks, apart from each other (ALONE_EDGE) in one text; undefined when none.
 */
export function turnsAsTemplated(leaves: readonly TextLeaf[]): TextsAsRead | undefined {
  const turns = new Map<string, { leaf: TextLeaf; at: number }[]>();
  for (const t of textsInJoin(leaves)) {
    const turn = TURN_TEXT.exec(t.leaf.where)?.[1];
    if (turn === undefined) continue;
    const texts = turns.get(turn);
    if (texts) texts.push(t);
    else turns.set(turn, [t]);
  }
  const reads: TextsAsRead[] = [];
  for (const texts of turns.values()) {
    const read = textsAsRead(texts, '\n');
    if (read) reads.push(read);
  }
  return reads.length > 1 ? sideBySide(reads) : reads[0];
}

/** Several readers' texts in one text, apart (ALONE_EDGE), each one's matches placed by its own `place`. */
function sideBySide(reads: readonly TextsAsRead[]): TextsAsRead {
  const starts: number[] = [];
  let length = 0;
  for (const r of reads) {
    starts.push(length);
    length += r.text.length + ALONE_EDGE.length;
  }
  return {
    text: reads.map((r) => r.text).join(ALONE_EDGE),
    place: (m) => {
      const k = lastAtOrBefore(starts, m[0]);
      const local = m[0] - starts[k];
      // A match of the edge, or one that runs out of its reader's text, is no text of either.
      if (local >= reads[k].text.length || m[1] - starts[k] > reads[k].text.length) return undefined;
      return reads[k].place(m.length > 3 ? [local, m[1] - starts[k], m[2], m[3]] : [local, m[1] - starts[k], m[2]]);
    },
  };
}

/** The last index of sorted `starts` whose value is at most `x` (0 when none is). */
function lastAtOrBefore(starts: readonly number[], x: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * `texts` (leaves with their offsets in the join, in order) joined with `separator`, as another
 * reader reads them, when that differs from the join (a separator, or other texts between them in
 * the join). `place` gives a match that runs across such a difference its span in the join, from
 * its first character to its last (what stands between in the join is in it too); a match within
 * one text is the join's own: undefined.
 */
function textsAsRead(texts: readonly { leaf: TextLeaf; at: number }[], separator: string): TextsAsRead | undefined {
  if (texts.length < 2) return undefined;
  const together = texts.every((t, k) => k === 0 || t.at === texts[k - 1].at + texts[k - 1].leaf.text.length);
  if (together && separator === '') return undefined;
  const starts: number[] = [];
  let length = 0;
  for (const t of texts) {
    starts.push(length);
    length += t.leaf.text.length + separator.length;
  }
  /** Whether the reader reads the texts k and k + 1 otherwise than the join (a separator, or texts between). */
  const differs = (k: number) => separator !== '' || texts[k + 1].at !== texts[k].at + texts[k].leaf.text.length;
  /** The text offset `x` is in: an end's is the one it ends in (or the separator after); a start's in a separator the next one. */
  const textAt = (x: number, end: boolean): number => {
    const k = end ? Math.max(0, lastAtOrBefore(starts, x - 1)) : lastAtOrBefore(starts, x);
    return !end && x - starts[k] >= texts[k].leaf.text.length && k + 1 < texts.length ? k + 1 : k;
  };
  const inJoin = (x: number, k: number) =>
    texts[k].at + Math.max(0, Math.min(x - starts[k], texts[k].leaf.text.length));
  return {
    text: texts.map((t) => t.leaf.text).join(separator),
    place: (m) => {
      const [first, last] = [textAt(m[0], false), textAt(m[1], true)];
      let across = false;
      for (let k = first; k < last && !across; k++) across = differs(k);
      if (!across) return undefined;
      const [s, e] = [inJoin(m[0], first), inJoin(m[1], last)];
      return m.length > 3 ? [s, e, m[2], m[3]] : [s, e, m[2]];
    },
  };
}

/**
 * Renames keys of an object in place, keeping their order. A new name already taken (two keys
 * masked alike) gets `~2`, `~3`, ... until it is free, so no value is lost.
 */
function renameKeys(owner: Record<string, unknown>, names: ReadonlyMap<string, string>): void {
  const entries = Object.entries(owner);
  const taken = new Set(entries.map(([k]) => k).filter((k) => !names.has(k)));
  for (const [k] of entries) delete owner[k];
  // Per new name, the last suffix tried: a thousand keys masked alike cost a thousand tries, not a million.
  const suffix = new Map<string, number>();
  for (const [k, v] of entries) {
    const base = names.get(k);
    let name = base ?? k;
    if (base !== undefined) {
      let n = suffix.get(base) ?? 1;
      while (taken.has(name)) name = `${base}~${++n}`;
      suffix.set(base, n);
      taken.add(name);
    }
    setOwn(owner, name, v);
  }
}

/**
 * Sets an own property, whatever its name: a body parsed from JSON may hold a `__proto__` key as
 * its own, which plain assignment would take for the prototype (and the write would be lost).
 */
function setOwn(owner: Container, key: string | number, value: unknown): void {
  Object.defineProperty(owner, key, { value, writable: true, enumerable: true, configurable: true });
}

const CONTENT_ONLY = new Set(['content']);

function blocks(walk: ContentWalk, list: unknown[], where: string, depth: number): void {
  list.forEach((b, j) => {
    const at = `${where}[${j}]`;
    if (typeof b === 'string') leaf(walk, list, j, at);
    else if (isObject(b)) oneBlock(walk, b, at, depth + 1);
    else walk.unreadable.push({ where: at, type: typeof b, kind: 'unknown' });
  });
}

/**
 * One content block. Its type's reader takes the fields it knows in the shape it expects (a
 * `text` string, a `content` list of blocks); every other field, and a known one in another shape
 * (a `text` that is a list, a `source` that is a string), goes through apiFields, so nothing is
 * skipped for having an unexpected type.
 */
function oneBlock(walk: ContentWalk, b: Record<string, unknown>, at: string, depth: number): void {
  if (depth > MAX_DEPTH) return tooDeep(walk, at);
  const type = typeof b.type === 'string' ? b.type : '';
  const read = new Set<string>();
  /** Reads `b[k]` as text when it is a string. */
  const text = (k: string) => {
    if (typeof b[k] !== 'string') return;
    leaf(walk, b, k, `${at}.${k}`);
    read.add(k);
  };
  /** Reads `b[k]` as text or a list of blocks. */
  const content = (k: string) => {
    if (Array.isArray(b[k])) {
      blocks(walk, b[k] as unknown[], `${at}.${k}`, depth);
      read.add(k);
    } else text(k);
  };
  switch (type) {
    case 'text':
    case 'thinking':
      if (b[type] !== undefined && typeof b[type] !== 'string')
        walk.unreadable.push({ where: `${at}.${type}`, type: `${type}/not-a-string`, kind: 'malformed' });
      text(type);
      break;
    case 'redacted_thinking':
      // Ciphertext only the model's own service can read: scanned alone with the other fields.
      break;
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      // The input is free-form JSON whatever its shape: every key, string and number.
      if (b.input !== undefined) anyValue(walk, b, 'input', `${at}.input`, depth + 1, false);
      read.add('input');
      break;
    case 'tool_result':
    case 'mcp_tool_result':
      content('content');
      break;
    case 'document':
      text('title');
      text('context');
      if (documentSource(walk, b.source, `${at}.source`, depth)) read.add('source');
      break;
    case 'search_result':
      text('source');
      text('title');
      content('content');
      break;
    case 'web_search_tool_result':
    case 'web_fetch_tool_result':
    case 'code_execution_tool_result':
    case 'bash_code_execution_tool_result':
    case 'text_editor_code_execution_tool_result':
    case 'web_search_result':
    case 'web_fetch_result':
      // Server-tool results: every field, nested documents and blocks read as blocks.
      break;
    case 'image':
      walk.unreadable.push({ where: at, type, kind: 'opaque' });
      if (opaqueSource(walk, b.source, `${at}.source`, depth)) read.add('source');
      break;
    default:
      walk.unreadable.push({ where: at, type: type || 'untyped', kind: 'unknown' });
      // Passed (flagged) when the project allows it: its fields are scanned all the same.
      break;
  }
  apiFields(walk, b, at, depth, read);
}

/** A document's source; false when it is not an object (apiFields reads it then). */
function documentSource(walk: ContentWalk, source: unknown, at: string, depth: number): boolean {
  if (!isObject(source)) return false;
  switch (source.type) {
    case 'text':
      if (typeof source.data === 'string') {
        leaf(walk, source, 'data', `${at}.data`);
        apiFields(walk, source, at, depth + 1, DATA_ONLY);
      } else apiFields(walk, source, at, depth + 1);
      return true;
    case 'content':
      if (typeof source.content === 'string') leaf(walk, source, 'content', `${at}.content`);
      else if (Array.isArray(source.content)) blocks(walk, source.content, `${at}.content`, depth + 1);
      apiFields(
        walk,
        source,
        at,
        depth + 1,
        typeof source.content === 'string' || Array.isArray(source.content) ? CONTENT_ONLY : undefined,
      );
      return true;
    default: {
      // base64 PDFs, URLs and uploaded files: bytes the proxy does not read; any other source type
      // is one it does not know.
      const known = BINARY_SOURCES.has(source.type as string);
      walk.unreadable.push({ where: at, type: `document/${String(source.type)}`, kind: known ? 'opaque' : 'unknown' });
      return opaqueSource(walk, source, at, depth);
    }
  }
}

/** The source types whose bytes the proxy does not read. */
const BINARY_SOURCES = new Set(['base64', 'url', 'file']);

/**
 * The source of an image or a binary document: the bytes of a base64 source (`data`) are not read;
 * every other field (a URL, a file id, a media type, fields the API does not define, the data of a
 * source type the API does not define) is.
 */
function opaqueSource(walk: ContentWalk, source: unknown, at: string, depth: number): boolean {
  if (!isObject(source)) return false;
  const bytes = source.type === 'base64' && typeof source.data === 'string';
  apiFields(walk, source, at, depth + 1, bytes ? DATA_ONLY : undefined);
  return true;
}

const DATA_ONLY = new Set(['data']);

/**
 * The fields of an API object but `except`: keys the API defines are not scanned, others are
 * (alone); vocabulary values of `type`, `role` and `stop_reason` are not scanned, other strings
 * are (identifiers and ciphertext alone, the rest as text); numbers are (alone); nested objects the
 * same way, a nested block (one with a block `type`) as a block.
 */
function apiFields(
  walk: ContentWalk,
  obj: Record<string, unknown>,
  at: string,
  depth: number,
  except?: ReadonlySet<string>,
): void {
  for (const k of Object.keys(obj)) {
    if (except?.has(k)) continue;
    const where = at ? step(at, k) : step('', k).slice(1);
    if (!API_KEYS.has(k)) walk.leaves.push({ owner: obj, key: k, text: k, where: `${where} (key)`, alone: 'key' });
    const v = obj[k];
    if (typeof v === 'string') {
      if (VOCABULARY_KEYS.has(k) && VOCABULARY.has(v)) continue;
      leaf(walk, obj, k, where, TEXT_KEYS.has(k) && API_KEYS.has(k) ? undefined : 'string');
    } else if (typeof v === 'number') {
      if (!(COUNT_KEYS.has(k) && isCount(v))) numberLeaf(walk, obj, k, where);
    } else anyValue(walk, obj, k, where, depth + 1, true);
  }
}

/** A value that is not a string of an API object (`api`) or of free-form JSON. */
function anyValue(
  walk: ContentWalk,
  owner: Container,
  key: string | number,
  where: string,
  depth: number,
  api: boolean,
): void {
  const v = (owner as Record<string | number, unknown>)[key];
  if (typeof v === 'string') leaf(walk, owner, key, where);
  else if (typeof v === 'number') numberLeaf(walk, owner, key, where);
  else if (depth > MAX_DEPTH && (isObject(v) || Array.isArray(v))) tooDeep(walk, where);
  else if (Array.isArray(v)) {
    if (api)
      v.forEach((_, i) =>
        isObject(v[i]) && isBlock(v[i])
          ? oneBlock(walk, v[i], step(where, i), depth + 1)
          : anyValue(walk, v, i, step(where, i), depth + 1, true),
      );
    else freeValue(walk, v, where, depth);
  } else if (isObject(v)) {
    if (!api) freeValue(walk, v, where, depth);
    else if (isBlock(v)) oneBlock(walk, v, where, depth + 1);
    else apiFields(walk, v, where, depth + 1);
  }
}

function tooDeep(walk: ContentWalk, where: string): void {
  walk.unreadable.push({ where, type: 'nesting', kind: 'too-deep' });
}

/** Block types a server-tool result may nest, read as blocks wherever they stand. */
const NESTED_BLOCKS = new Set(['document', 'text', 'image', 'search_result', 'web_search_result', 'web_fetch_result']);

function isBlock(v: Record<string, unknown>): boolean {
  return typeof v.type === 'string' && NESTED_BLOCKS.has(v.type);
}

/** Free-form JSON: every key and number alone, every string as text. */
function freeValue(walk: ContentWalk, value: Container, at: string, depth: number): void {
  if (depth > MAX_DEPTH) return tooDeep(walk, at);
  if (Array.isArray(value)) {
    value.forEach((_, i) => anyValue(walk, value, i, step(at, i), depth + 1, false));
    return;
  }
  for (const k of Object.keys(value)) {
    const where = step(at, k);
    walk.leaves.push({ owner: value, key: k, text: k, where: `${where} (key)`, alone: 'key' });
    anyValue(walk, value, k, where, depth + 1, false);
  }
}

/** Past this length a leaf's `where` stops growing: it is for people, and a hostile body's keys are long. */
const WHERE_MAX = 256;

/** `at` and one step more (`.key`, a long key cut short, or `[i]`), unless `at` is long enough already. */
function step(at: string, key: string | number): string {
  if (at.length > WHERE_MAX) return at.endsWith('...') ? at : `${at}...`;
  if (typeof key === 'number') return `${at}[${key}]`;
  return `${at}.${key.length > 32 ? `${key.slice(0, 32)}...` : key}`;
}

function numberLeaf(walk: ContentWalk, owner: Container, key: string | number, where: string): void {
  const n = (owner as Record<string | number, unknown>)[key] as number;
  // As JSON writes it (what the model or client receives).
  const text = JSON.stringify(n);
  if (text !== 'null') walk.leaves.push({ owner, key, text, where, alone: 'number' });
}

/**
 * A number the API types as a count or an index (token counts, block and character indices, an
 * exit code): an integer of at most eight digits is read as one, not scanned, so a scanner that
 * redacts long numbers does not rewrite an answer's usage into strings its client cannot read.
 * Any other number in such a field (a nine-digit one, as an SSN written without dashes, or a
 * sixteen-digit "token count") is scanned like any number: no body or answer the proxy passes
 * holds a hundred million of anything.
 */
export function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && Math.abs(n) < 1e8;
}

function leaf(
  walk: ContentWalk,
  owner: Container,
  key: string | number,
  where: string,
  alone?: TextLeaf['alone'],
): void {
  const text = (owner as Record<string | number, unknown>)[key];
  if (typeof text === 'string' && text.length > 0) walk.leaves.push({ owner, key, text, where, alone });
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
