import { ALONE_EDGE, joinLeaves, walkRequest, walkResponse, writeLeaves } from './content';

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
      usage: { input_tokens: 12, output_tokens: 4111111111111111 },
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
        'smuggled (key)=smuggled',
        'smuggled.note (key)=note',
        'smuggled.note=hunter2',
      ]),
    );
    expect(texts).not.toContain('usage.input_tokens=12');
    expect(texts.some((t) => t.endsWith('=assistant') || t.endsWith('=message'))).toBe(false);
  });

  it('calls a content that is not a list unreadable', () => {
    expect(walkResponse({ content: CARD }).unreadable).toEqual([
      { where: 'content', type: 'content/not-a-list', kind: 'unknown' },
    ]);
  });
});
