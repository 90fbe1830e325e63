/**
 * Where the text is in a Messages API request or answer: every place a model reads or writes text,
 * as a list of leaves that can be read, scanned together and written back (redacted) in place.
 *
 * A walk works on a copy the caller owns: writing a leaf changes that copy. What the proxy cannot
 * read (an image, a base64 PDF, a block type it does not know) is listed, so the project's policy
 * can refuse it or pass it flagged, never let it through unseen.
 */

type Container = Record<string, unknown> | unknown[];

/** One string in a body, with where it sits so a redaction can be written back. */
export interface TextLeaf {
  owner: Container;
  key: string | number;
  text: string;
  /** For people: `messages[2].content[0].text`. */
  where: string;
}

/** Content the proxy cannot scan. `unknown` is a type it has never heard of; `opaque` it knows but cannot read. */
export interface Unreadable {
  where: string;
  type: string;
  kind: 'unknown' | 'opaque';
}

export interface ContentWalk {
  leaves: TextLeaf[];
  unreadable: Unreadable[];
}

export interface RequestWalkOptions {
  /** Scan the descriptions (and schema texts) of the tools the request declares. */
  scanToolDescriptions?: boolean;
}

/** Keys whose values are identifiers or ciphertext, not text anyone reads. */
const OPAQUE_KEYS = new Set([
  'type',
  'id',
  'tool_use_id',
  'signature',
  'encrypted_content',
  'encrypted_index',
  'data',
  'media_type',
  'cache_control',
  'file_id',
]);

/** Every text a model reads in a Messages request: system, each message of every role, every readable block. */
export function walkRequest(body: Record<string, unknown>, options: RequestWalkOptions = {}): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  const system = body.system;
  if (typeof system === 'string') leaf(walk, body, 'system', 'system');
  else if (Array.isArray(system)) blocks(walk, system, 'system');
  const messages = Array.isArray(body.messages) ? body.messages : [];
  messages.forEach((m, i) => {
    if (!isObject(m)) return;
    const where = `messages[${i}].content`;
    if (typeof m.content === 'string') leaf(walk, m, 'content', where);
    else if (Array.isArray(m.content)) blocks(walk, m.content, where);
  });
  if (options.scanToolDescriptions && Array.isArray(body.tools)) {
    body.tools.forEach((t, i) => {
      if (!isObject(t)) return;
      if (typeof t.description === 'string') leaf(walk, t, 'description', `tools[${i}].description`);
      if (isObject(t.input_schema)) stringLeaves(walk, t.input_schema, `tools[${i}].input_schema`, new Set(['type']));
    });
  }
  return walk;
}

/** Every text of a (non-streamed) Messages answer: text, tool input, thinking, server-tool results, citations. */
export function walkResponse(body: Record<string, unknown>): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  if (Array.isArray(body.content)) blocks(walk, body.content, 'content');
  return walk;
}

/** The leaves of one content block (as it starts in a stream, or whole in an answer). */
export function walkBlock(block: Record<string, unknown>, where: string): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  oneBlock(walk, block, where);
  return walk;
}

/** The string leaves of any JSON value (a tool's input, a citation), keys excluded. */
export function walkValue(value: unknown, where: string): ContentWalk {
  const walk: ContentWalk = { leaves: [], unreadable: [] };
  if (isObject(value) || Array.isArray(value)) stringLeaves(walk, value, where, OPAQUE_KEYS);
  return walk;
}

/** Joins leaves for one scan. Nothing goes between them: a client shows adjacent blocks as one text. */
export function joinLeaves(leaves: readonly TextLeaf[]): string {
  return leaves.map((l) => l.text).join('');
}

/** Writes a text of the joined length back into the leaves (redaction keeps lengths). */
export function writeLeaves(leaves: readonly TextLeaf[], joined: string): void {
  let at = 0;
  for (const l of leaves) {
    const next = joined.slice(at, at + l.text.length);
    at += l.text.length;
    if (next !== l.text) {
      (l.owner as Record<string | number, unknown>)[l.key] = next;
      l.text = next;
    }
  }
}

function blocks(walk: ContentWalk, list: unknown[], where: string): void {
  list.forEach((b, j) => {
    const at = `${where}[${j}]`;
    if (typeof b === 'string') leaf(walk, list, j, at);
    else if (isObject(b)) oneBlock(walk, b, at);
    else walk.unreadable.push({ where: at, type: typeof b, kind: 'unknown' });
  });
}

function oneBlock(walk: ContentWalk, b: Record<string, unknown>, at: string): void {
  const type = typeof b.type === 'string' ? b.type : '';
  switch (type) {
    case 'text':
      leaf(walk, b, 'text', `${at}.text`);
      if (Array.isArray(b.citations)) stringLeaves(walk, b.citations, `${at}.citations`, OPAQUE_KEYS);
      return;
    case 'thinking':
      leaf(walk, b, 'thinking', `${at}.thinking`);
      return;
    case 'redacted_thinking':
      // Ciphertext only the model's own service can read: nobody else sees its content.
      return;
    case 'tool_use':
    case 'server_tool_use':
    case 'mcp_tool_use':
      if (isObject(b.input) || Array.isArray(b.input)) stringLeaves(walk, b.input, `${at}.input`, new Set());
      return;
    case 'tool_result':
    case 'mcp_tool_result':
      if (typeof b.content === 'string') leaf(walk, b, 'content', `${at}.content`);
      else if (Array.isArray(b.content)) blocks(walk, b.content, `${at}.content`);
      return;
    case 'document':
      for (const k of ['title', 'context']) if (typeof b[k] === 'string') leaf(walk, b, k, `${at}.${k}`);
      documentSource(walk, b.source, `${at}.source`);
      return;
    case 'search_result':
      for (const k of ['source', 'title']) if (typeof b[k] === 'string') leaf(walk, b, k, `${at}.${k}`);
      if (Array.isArray(b.content)) blocks(walk, b.content, `${at}.content`);
      return;
    case 'web_search_tool_result':
    case 'web_fetch_tool_result':
    case 'code_execution_tool_result':
    case 'bash_code_execution_tool_result':
    case 'text_editor_code_execution_tool_result':
    case 'web_search_result':
      // Server-tool results: every string but identifiers and ciphertext is text the model or client reads.
      stringLeaves(walk, b, at, OPAQUE_KEYS);
      return;
    case 'image':
      walk.unreadable.push({ where: at, type, kind: 'opaque' });
      return;
    default:
      walk.unreadable.push({ where: at, type: type || 'untyped', kind: 'unknown' });
  }
}

function documentSource(walk: ContentWalk, source: unknown, at: string): void {
  if (!isObject(source)) return;
  switch (source.type) {
    case 'text':
      leaf(walk, source, 'data', `${at}.data`);
      return;
    case 'content':
      if (typeof source.content === 'string') leaf(walk, source, 'content', `${at}.content`);
      else if (Array.isArray(source.content)) blocks(walk, source.content, `${at}.content`);
      return;
    default:
      // base64 PDFs, URLs and uploaded files: bytes the proxy does not read.
      walk.unreadable.push({ where: at, type: `document/${String(source.type)}`, kind: 'opaque' });
  }
}

function stringLeaves(walk: ContentWalk, value: Container, at: string, skip: ReadonlySet<string>): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (typeof v === 'string') leaf(walk, value, i, `${at}[${i}]`);
      else if (isObject(v) || Array.isArray(v)) stringLeaves(walk, v, `${at}[${i}]`, skip);
    });
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (skip.has(k)) continue;
    if (typeof v === 'string') leaf(walk, value, k, `${at}.${k}`);
    else if (isObject(v) || Array.isArray(v)) stringLeaves(walk, v, `${at}.${k}`, skip);
  }
}

function leaf(walk: ContentWalk, owner: Container, key: string | number, where: string): void {
  const text = (owner as Record<string | number, unknown>)[key];
  if (typeof text === 'string' && text.length > 0) walk.leaves.push({ owner, key, text, where });
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
