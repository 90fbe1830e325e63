import fc from 'fast-check';
import {
  ALONE_EDGE,
  joinLeaves,
  textBlocksApart,
  turnsAsTemplated,
  walkRequest,
  walkResponse,
  writeLeaves,
} from './content';

const CARD = '4111111111111111';

/** The texts a walk found, as `where=text`. */
function found(walk: { leaves: { where: string; text: string }[] }): string[] {
  return walk.leaves.map((l) => `${l.where}=${l.text}`);
}

describe('walkRequest', () => {
  it("reads a prior tool call's keys, numbers, name and id, and a tool result's id", () => {
    const body = {
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'pay', input: { card: 4111111111111111, [CARD]: 'x' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
      ],
    };
    const texts = found(walkRequest(body));
    expect(texts).toEqual(
      expect.arrayContaining([
        'messages[0].content[0].input.card (key)=card',
        `messages[0].content[0].input.card=${CARD}`,
        `messages[0].content[0].input.${CARD} (key)=${CARD}`,
        'messages[0].content[0].name=pay',
        'messages[0].content[0].id=toolu_1',
        'messages[1].content[0].tool_use_id=toolu_1',
        'messages[1].content[0].content=ok',
      ]),
    );
    // The vocabulary of the API (`type: "tool_use"`) is not scanned.
    expect(texts.some((t) => t.endsWith('=tool_use'))).toBe(false);
  });

  it('masks a number as a string and renames a masked key, keeping the order of keys', () => {
    const input: Record<string, unknown> = { a: 1, [CARD]: 'x', card: 4111111111111111, z: 2 };
    const body = { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input }] }] };
    const walk = walkRequest(body);
    const joined = joinLeaves(walk.leaves);
    writeLeaves(walk.leaves, joined.replaceAll(CARD, '*'.repeat(16)));
    expect(Object.keys(input)).toEqual(['a', '*'.repeat(16), 'card', 'z']);
    expect(input.card).toBe('*'.repeat(16));
    expect(input['*'.repeat(16)]).toBe('x');
  });

  it('masks a value under a key named __proto__ (JSON.parse keeps it as an own key)', () => {
    const body = JSON.parse(
      '{"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"n","input":{"__proto__":"hunter2"}}]}]}',
    ) as { messages: { content: { input: object }[] }[] };
    const walk = walkRequest(body);
    writeLeaves(walk.leaves, joinLeaves(walk.leaves).replace('hunter2', '*******'));
    expect(JSON.stringify(body.messages[0].content[0].input)).toBe('{"__proto__":"*******"}');
  });

  it('keeps the texts of a match split across blocks together, whatever stands between them', () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'my password is hun', cache_control: { type: 'ephemeral', ttl: '5m' } },
            { type: 'text', text: 'ter2' },
          ],
        },
      ],
    };
    const walk = walkRequest(body);
    expect(joinLeaves(walk.leaves)).toContain('my password is hunter2');
    expect(found(walk)).toContain('messages[0].content[0].cache_control.ttl=5m');
  });

  it('renames keys masked alike apart, keeping every value', () => {
    const input: Record<string, unknown> = { '4111111111111111': 1, '5555555555554444': 2, x: 3 };
    const body = { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input }] }] };
    const walk = walkRequest(body);
    writeLeaves(
      walk.leaves,
      joinLeaves(walk.leaves).replace(/\d{16}/g, (m) => '*'.repeat(m.length)),
    );
    const stars = '*'.repeat(16);
    expect(input).toEqual({ [stars]: 1, [`${stars}~2`]: 2, x: 3 });
  });

  it("keeps a leaf's place short however long the keys above it", () => {
    let input: Record<string, unknown> = { leaf: 'x' };
    for (let i = 0; i < 50; i++) input = { ['k'.repeat(8000) + i]: input };
    const body = { messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input }] }] };
    const walk = walkRequest(body);
    expect(walk.leaves.length).toBeGreaterThan(50);
    expect(Math.max(...walk.leaves.map((l) => l.where.length))).toBeLessThan(400);
  });

  it('scans numbers alone: neighbouring numbers do not run together into one', () => {
    const body = {
      messages: [
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 't', name: 'n', input: { a: 4111, b: 1111, c: 1111 } }],
        },
      ],
    };
    const joined = joinLeaves(walkRequest(body).leaves);
    expect(joined).toContain(`${ALONE_EDGE}4111${ALONE_EDGE}`);
    expect(joined.replaceAll(ALONE_EDGE, '')).toContain('4111');
    expect(joined).not.toMatch(/\d{8}/);
  });

  it('reads a server-tool result to the bottom: nested documents as blocks, keys the API defines at any depth', () => {
    const body = {
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'web_fetch_tool_result',
              tool_use_id: 'srv_1',
              content: {
                type: 'web_fetch_result',
                url: 'https://example.com',
                content: { type: 'document', source: { type: 'text', media_type: 'text/plain', data: `card ${CARD}` } },
              },
            },
            {
              type: 'web_fetch_tool_result',
              tool_use_id: 'srv_2',
              content: {
                type: 'web_fetch_result',
                url: 'https://example.com/a.pdf',
                content: {
                  type: 'document',
                  source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' },
                },
              },
            },
          ],
        },
      ],
    };
    const walk = walkRequest(body);
    expect(found(walk)).toContain(`messages[0].content[0].content.content.source.data=card ${CARD}`);
    expect(walk.unreadable).toEqual([
      { where: 'messages[0].content[1].content.content.source', type: 'document/base64', kind: 'opaque' },
    ]);
  });

  it("scans a tool's schema whole when the project scans tools: a property named `type`, enums, names", () => {
    const body = {
      messages: [{ role: 'user', content: 'hi' }],
      tools: [
        {
          name: 'lookup_hunter2',
          description: 'd',
          input_schema: { type: 'object', properties: { type: { type: 'string', enum: ['hunter2'] } } },
        },
      ],
      tool_choice: { type: 'tool', name: 'lookup_hunter2' },
    };
    expect(found(walkRequest(body))).toEqual(['messages[0].content=hi']);
    const texts = found(walkRequest(body, { scanToolDescriptions: true }));
    expect(texts).toEqual(
      expect.arrayContaining([
        'tools[0].name=lookup_hunter2',
        'tools[0].input_schema.properties.type (key)=type',
        'tools[0].input_schema.properties.type.enum[0]=hunter2',
        'tool_choice.name=lookup_hunter2',
      ]),
    );
  });

  it('refuses nesting deeper than the walk reads', () => {
    let input: unknown = CARD;
    for (let i = 0; i < 200; i++) input = [input];
    const body = {
      messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'n', input: { input } }] }],
    };
    expect(walkRequest(body).unreadable.map((u) => u.type)).toContain('nesting');
  });
});

describe('textBlocksApart', () => {
  it("reads an answer's text blocks with nothing between where other texts part them in the join", () => {
    const walk = walkResponse({
      content: [
        { type: 'text', text: 'key AKIA' },
        { type: 'thinking', thinking: '-' },
        { type: 'text', text: 'IOSF ok' },
      ],
    });
    const joined = joinLeaves(walk.leaves);
    expect(joined).toBe('key AKIA-IOSF ok');
    const apart = textBlocksApart(walk.leaves)!;
    expect(apart.text).toBe('key AKIAIOSF ok');
    // A match across the gap is placed from its first character to its last in the join; one within a block is the join's.
    expect(apart.place([4, 12, 0])).toEqual([4, 13, 0]);
    expect(joined.slice(4, 13)).toBe('AKIA-IOSF');
    expect(apart.place([0, 3, 0])).toBeUndefined();
    expect(apart.place([8, 12, 0])).toBeUndefined();
  });

  it('is undefined when the text blocks stand together in the join', () => {
    const walk = walkResponse({
      content: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
        { type: 'tool_use', id: 't', name: 'n', input: { q: 'x' } },
      ],
    });
    expect(textBlocksApart(walk.leaves)).toBeUndefined();
  });
});

describe('turnsAsTemplated', () => {
  it("reads each turn's text blocks joined by a line break, as a template provider gets them", () => {
    const body = {
      system: 'be brief',
      messages: [
        { role: 'user', content: 'hello' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'the launch' },
            { type: 'tool_result', tool_use_id: 't', content: 'x' },
            { type: 'text', text: 'codes now' },
          ],
        },
      ],
    };
    const walk = walkRequest(body);
    const joined = joinLeaves(walk.leaves);
    // The first turn has one text: a template reads it as the join does.
    const read = turnsAsTemplated(walk.leaves)!;
    expect(read.text).toBe('the launch\ncodes now');
    // "launch\ncodes" runs across the line break: placed over both halves (and the tool result between) in the join.
    const placed = read.place([4, 16, 0])!;
    expect(joined.slice(placed[0], placed[1])).toBe('launchxcodes');
    expect(read.place([0, 3, 0])).toBeUndefined();
    expect(read.place([11, 16, 0])).toBeUndefined();
    // A match of the line break alone is no text of either.
    expect(read.place([10, 11, 0])).toBeUndefined();
  });

  it('reads two text blocks that stand together in the join with the line break between them', () => {
    const walk = walkRequest({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a b' },
            { type: 'text', text: 'c' },
          ],
        },
      ],
    });
    const read = turnsAsTemplated(walk.leaves)!;
    expect(read.text).toBe('a b\nc');
    expect(read.place([2, 5, 0])).toEqual([2, 4, 0]);
  });
});

describe('turnsAsTemplated, several turns', () => {
  it('reads each turn apart from the others and places a match in its own turn', () => {
    const turn = (a: string, b: string) => ({
      role: 'user',
      content: [
        { type: 'text', text: a },
        { type: 'text', text: b },
      ],
    });
    const walk = walkRequest({
      messages: [turn('x', 'y'), { role: 'assistant', content: 'ok' }, turn('pass', 'word')],
    });
    const joined = joinLeaves(walk.leaves);
    const read = turnsAsTemplated(walk.leaves)!;
    expect(read.text).toBe(`x\ny${ALONE_EDGE}pass\nword`);
    const at = read.text.indexOf('pass');
    const placed = read.place([at, at + 'pass\nword'.length, 0])!;
    expect(joined.slice(placed[0], placed[1])).toBe('password');
    // A match of the edge between turns, or one that runs from one turn into the next, is no turn's text.
    expect(read.place([2, 5, 0])).toBeUndefined();
  });
});

describe('walkResponse', () => {
  it("reads the envelope's fields but the API's counts and vocabulary", () => {
    const answer = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'hunter2-model',
      content: [{ type: 'text', text: 'hi', extra: 'hunter2' }],
      stop_reason: 'stop_sequence',
      stop_sequence: 'hunter2',
      usage: {
        input_tokens: 12,
        output_tokens: 4111111111111111,
        cache_read_input_tokens: 12345678,
        cache_creation_input_tokens: 123456789,
      },
      smuggled: { note: 'hunter2' },
    };
    const texts = found(walkResponse(answer));
    expect(texts).toEqual(
      expect.arrayContaining([
        'content[0].text=hi',
        'content[0].extra (key)=extra',
        'content[0].extra=hunter2',
        'model=hunter2-model',
        'stop_sequence=hunter2',
        `usage.output_tokens=${CARD}`,
        // Nine digits is no count a request or answer can hold, but it is an SSN written plainly.
        'usage.cache_creation_input_tokens=123456789',
        'smuggled (key)=smuggled',
        'smuggled.note (key)=note',
        'smuggled.note=hunter2',
      ]),
    );
    expect(texts).not.toContain('usage.input_tokens=12');
    expect(texts).not.toContain('usage.cache_read_input_tokens=12345678');
    expect(texts.some((t) => t.endsWith('=assistant') || t.endsWith('=message'))).toBe(false);
  });

  it('reads a field of a block that has a shape its type does not expect, and the fields of binary sources', () => {
    const answer = {
      content: [
        { type: 'text', text: ['hunter2'] },
        { type: 'document', source: 'hunter2' },
        { type: 'document', title: { t: 'hunter2' }, source: { type: 'text', data: ['hunter2'] } },
        { type: 'tool_result', content: { c: 'hunter2' } },
        { type: 'image', source: { type: 'url', url: 'https://x/hunter2', note: 'hunter2' } },
        { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
      ],
      model: 123456789,
    };
    const walk = walkResponse(answer);
    const texts = found(walk);
    expect(texts).toEqual(
      expect.arrayContaining([
        'content[0].text[0]=hunter2',
        'content[1].source=hunter2',
        'content[2].title.t=hunter2',
        'content[2].source.data[0]=hunter2',
        'content[3].content.c=hunter2',
        'content[4].source.url=https://x/hunter2',
        'content[4].source.note=hunter2',
        // A number in a field the API does not type as a count is scanned, however short.
        'model=123456789',
      ]),
    );
    // The bytes of a binary source are not read: the block is listed as unreadable.
    expect(texts.some((t) => t.includes('JVBERi0='))).toBe(false);
    expect(walk.unreadable.map((u) => u.type)).toEqual(['text/not-a-string', 'image', 'document/base64']);
  });

  it('calls a text or thinking block whose own text is not a string malformed (a client would join it to the text before)', () => {
    const walk = walkResponse({
      content: [
        { type: 'text', text: 'card 4111 1111 1111 ' },
        { type: 'text', text: 1111 },
        { type: 'thinking', thinking: { t: 'x' } },
      ],
    });
    expect(walk.unreadable).toEqual([
      { where: 'content[1].text', type: 'text/not-a-string', kind: 'malformed' },
      { where: 'content[2].thinking', type: 'thinking/not-a-string', kind: 'malformed' },
    ]);
    // A request's too: the upstream or a template would read it as text.
    expect(walkRequest({ messages: [{ role: 'user', content: [{ type: 'text', text: 42 }] }] }).unreadable).toEqual([
      { where: 'messages[0].content[0].text', type: 'text/not-a-string', kind: 'malformed' },
    ]);
  });

  it('reads the data of a source type it does not know, and calls that type unknown', () => {
    const walk = walkResponse({
      content: [
        { type: 'document', source: { type: 'hologram', data: 'hunter2' } },
        { type: 'image', source: { type: 'hologram', data: 'hunter2' } },
      ],
    });
    expect(found(walk)).toEqual(
      expect.arrayContaining(['content[0].source.data=hunter2', 'content[1].source.data=hunter2']),
    );
    expect(walk.unreadable).toEqual(
      expect.arrayContaining([{ where: 'content[0].source', type: 'document/hologram', kind: 'unknown' }]),
    );
  });

  it('calls a content that is not a list unreadable', () => {
    expect(walkResponse({ content: CARD }).unreadable).toEqual([
      { where: 'content', type: 'content/not-a-list', kind: 'unknown' },
    ]);
  });
});

/**
 * No position escapes the scan: a marker put in place of any string, object key or number of the
 * content of a random body (blocks of every readable type, with fields the API does not define and
 * tool inputs of any JSON) is in the scanned join, or the walk says it met content it cannot read.
 */
describe('property: no content position escapes the walk', () => {
  const MARK = 'hunter2';
  const text = fc.string({ maxLength: 8 });
  const json = fc.jsonValue({ maxDepth: 3 });
  const extras = fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 2 });
  const textBlock = fc.record({ type: fc.constant('text'), text });
  const textSource = fc.record({ type: fc.constant('text'), media_type: fc.constant('text/plain'), data: text });
  const block = fc
    .oneof(
      textBlock,
      fc.record({ type: fc.constant('thinking'), thinking: text, signature: text }),
      fc.record({ type: fc.constant('redacted_thinking'), data: text }),
      fc.record({
        type: fc.constant('tool_use'),
        id: text,
        name: text,
        input: fc.dictionary(fc.string({ maxLength: 6 }), json, { maxKeys: 3 }),
      }),
      fc.record({
        type: fc.constant('tool_result'),
        tool_use_id: text,
        content: fc.oneof(text, fc.array(textBlock, { maxLength: 2 })),
      }),
      fc.record({ type: fc.constant('document'), title: text, source: textSource }),
      fc.record({
        type: fc.constant('web_fetch_tool_result'),
        tool_use_id: text,
        content: fc.record({
          type: fc.constant('web_fetch_result'),
          url: text,
          content: fc.record({ type: fc.constant('document'), source: textSource }),
        }),
      }),
    )
    .chain((b) => extras.map((x) => ({ ...x, ...b })));
  const content = fc.oneof(text, fc.array(block, { minLength: 1, maxLength: 3 }));

  type Position = { owner: Record<string | number, unknown>; key: string | number; kind: 'string' | 'number' | 'key' };

  function positions(value: unknown, out: Position[] = []): Position[] {
    if (Array.isArray(value)) {
      value.forEach((v, i) => position(value as never, i, v, out));
    } else if (typeof value === 'object' && value !== null) {
      for (const [k, v] of Object.entries(value)) {
        out.push({ owner: value as never, key: k, kind: 'key' });
        position(value as never, k, v, out);
      }
    }
    return out;
  }

  function position(owner: Record<string | number, unknown>, key: string | number, v: unknown, out: Position[]) {
    if (typeof v === 'string') out.push({ owner, key, kind: 'string' });
    else if (typeof v === 'number') out.push({ owner, key, kind: 'number' });
    else positions(v, out);
  }

  /** Puts the marker at the position; what the join must then hold. */
  function mark(p: Position): string {
    if (p.kind === 'number') {
      p.owner[p.key] = 4111111111111111;
      return '4111111111111111';
    }
    if (p.kind === 'string') {
      p.owner[p.key] = MARK;
      return MARK;
    }
    const entries = Object.entries(p.owner);
    for (const [k] of entries) delete p.owner[k];
    for (const [k, v] of entries)
      Object.defineProperty(p.owner, k === p.key ? MARK : k, {
        value: v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return MARK;
  }

  it('in a request: system and every message of every role', () => {
    fc.assert(
      fc.property(
        fc.oneof(text, fc.array(textBlock, { maxLength: 2 })),
        fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content }), { minLength: 1, maxLength: 3 }),
        fc.nat(),
        (system, messages, pick) => {
          const body = { system, messages };
          // Every position but the request's own keys and the messages' keys and roles.
          const all = positions(body).filter((p) =>
            p.owner === body
              ? p.kind === 'string'
              : !(messages as unknown[]).includes(p.owner) || (p.key === 'content' && p.kind === 'string'),
          );
          if (all.length === 0) return true;
          const wanted = mark(all[pick % all.length]);
          const walk = walkRequest(body);
          return joinLeaves(walk.leaves).includes(wanted) || walk.unreadable.length > 0;
        },
      ),
      { numRuns: 500 },
    );
  });

  it('in an answer: every block and the envelope', () => {
    fc.assert(
      fc.property(fc.array(block, { maxLength: 3 }), extras, fc.nat(), (blocks, envelope, pick) => {
        const answer = { ...envelope, id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: blocks };
        const all = positions(answer).filter((p) => !(p.owner === answer && p.key === 'content' && p.kind === 'key'));
        const wanted = mark(all[pick % all.length]);
        const walk = walkResponse(answer);
        return joinLeaves(walk.leaves).includes(wanted) || walk.unreadable.length > 0;
      }),
      { numRuns: 500 },
    );
  });
});
