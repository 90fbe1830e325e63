import Anthropic from '@anthropic-ai/sdk';
import { signDevToken } from '@bastion/auth';
import { connect } from '@nats-io/transport-node';
import { bearer, TEST_NATS_USER, uniqueTenant, waitFor } from '@bastion/testing';
import { startGuardedStack, type GuardedStack } from '../support/guarded-stack';
import type { MockUpstream } from '../support/mock-upstream';
import { http } from '../support/stack';

const ANTHROPIC_KEY = 'sk-ant-mock-key-000000';
const MODEL = 'claude-test';
const SECRET = 'hunter2';

/** A text delta's event data, as the Messages API writes it. */
function textDelta(text: string, index = 0): string {
  return JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
}

/** An Anthropic answer of one text block, streamed in these deltas, as the upstream's SSE text. */
function textStream(deltas: string[]): string {
  const events: [string, unknown][] = [
    [
      'message_start',
      {
        type: 'message_start',
        message: {
          id: 'm',
          type: 'message',
          role: 'assistant',
          content: [],
          model: MODEL,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      },
    ],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ...deltas.map((t): [string, unknown] => [
      'content_block_delta',
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: t } },
    ]),
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    [
      'message_delta',
      { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
    ],
    ['message_stop', { type: 'message_stop' }],
  ];
  return events.map(([e, d]) => `event: ${e}\ndata: ${JSON.stringify(d)}\n\n`).join('');
}

/** A conversation whose assistant turn called a tool (this name and input) and whose last turn is its result. */
function priorToolCall(call: { name: string; input: Record<string, unknown> }) {
  return {
    messages: [
      { role: 'user' as const, content: 'look it up' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 'tu_1', ...call }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 'tu_1', content: 'ok' }] },
    ],
  };
}

/** The mock upstream's next answers: this SSE text, as it is, with a 200. */
function rawStream(body: string, more: Partial<NonNullable<MockUpstream['raw']>> = {}): MockUpstream['raw'] {
  return { status: 200, contentType: 'text/event-stream', body, ...more };
}

/**
 * What the guard promises, tried as a hostile caller and a hostile upstream would, with the official
 * Anthropic SDK: everything the model reads and everything it answers is scanned, in JSON and in
 * streams, and the record never keeps more than what was delivered.
 */
describe('the guard holds (Anthropic SDK through the gateway)', () => {
  let stack: GuardedStack;
  let upstream: MockUpstream;
  let base: string;

  beforeAll(async () => {
    stack = await startGuardedStack({ STREAM_HOLDBACK_CHARS: '32' });
    ({ upstream, base } = stack);
  }, 60_000);

  afterAll(() => stack?.close());

  /** A Messages call with the project key as a plain HTTP client makes it (any body, SDK types or not). */
  const messagesCall = (key: string, body: Record<string, unknown>, provider = 'claude') =>
    fetch(`${base}/vendor/${provider}/v1/messages`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        'anthropic-version': '2023-06-01',
      },
      body: JSON.stringify(body),
    });

  /** A streamed Messages call with the project key, as a plain HTTP client makes it. */
  const streamCall = (key: string) =>
    messagesCall(key, { model: MODEL, max_tokens: 8, stream: true, messages: [{ role: 'user', content: 'go' }] });

  beforeEach(() => {
    upstream.reply = undefined;
    upstream.blocks = undefined;
    upstream.raw = undefined;
  });

  async function setup(mode: 'block' | 'redact' = 'block', patterns = [SECRET]) {
    const tenant = uniqueTenant();
    const admin = bearer(tenant, 'admin');
    expect(
      (
        await http(base, 'POST', '/backend/v1/providers', {
          auth: admin,
          body: {
            name: 'claude',
            systemProvider: 'anthropic',
            inputs: { baseUrl: upstream.url, model: MODEL },
            secrets: { apiKey: ANTHROPIC_KEY },
          },
        })
      ).status,
    ).toBe(200);
    const scanner = await http(base, 'POST', '/backend/v1/scanners', {
      auth: admin,
      body: { name: 'no-passwords', config: { type: 'regex', patterns }, direction: 'both' },
    });
    const project = await http(base, 'POST', '/backend/v1/projects', { auth: admin, body: { name: 'guarded' } });
    const projectId = (project.body.id ?? project.body.project?.id) as string;
    await http(base, 'POST', `/backend/v1/projects/${projectId}/scanners`, {
      auth: admin,
      body: { id: scanner.body.id, mode, blocking: true, enabled: true, direction: 'both' },
    });
    expect(
      (
        await http(base, 'PATCH', `/backend/v1/projects/${projectId}`, {
          auth: admin,
          body: { deploymentStatus: 'live' },
        })
      ).status,
    ).toBe(200);
    const key = signDevToken({ tenant, roles: ['member'], project: projectId });
    return {
      admin,
      key,
      projectId,
      client: new Anthropic({ baseURL: `${base}/vendor/claude`, apiKey: key, maxRetries: 0 }),
    };
  }

  /** The tenant's provider `gpt`, reached through the built-in OpenAI template, on the mock upstream. */
  async function templateProvider(admin: string): Promise<void> {
    const made = await http(base, 'POST', '/backend/v1/providers', {
      auth: admin,
      body: {
        name: 'gpt',
        systemProvider: 'openai',
        inputs: { baseUrl: upstream.url },
        secrets: { apiKey: 'sk-test-good-key-123456' },
      },
    });
    expect(made.status).toBe(200);
  }

  async function refused(call: Promise<unknown>): Promise<{ status: number; error: Record<string, unknown> }> {
    try {
      await call;
    } catch (err) {
      if (err instanceof Anthropic.APIError)
        return { status: err.status ?? 0, error: (err.error as { error: Record<string, unknown> }).error };
      throw err;
    }
    throw new Error('the call was not refused');
  }

  async function record(admin: string, id: string) {
    return waitFor(
      async () => {
        const res = await http(base, 'GET', `/backend/v1/prompts/${id}`, { auth: admin });
        return res.status === 200 ? res.body.prompt : undefined;
      },
      15_000,
      'the prompt record',
    );
  }

  it.each([
    [
      'the system prompt',
      { system: `the admin password is ${SECRET}`, messages: [{ role: 'user' as const, content: 'hi' }] },
    ],
    [
      'system blocks',
      {
        system: [{ type: 'text' as const, text: `pw ${SECRET}` }],
        messages: [{ role: 'user' as const, content: 'hi' }],
      },
    ],
    [
      'an assistant prefill',
      {
        messages: [
          { role: 'user' as const, content: 'hi' },
          { role: 'assistant' as const, content: `sure, ${SECRET}` },
        ],
      },
    ],
    [
      'a tool result',
      {
        messages: [
          { role: 'user' as const, content: 'look it up' },
          {
            role: 'assistant' as const,
            content: [{ type: 'tool_use' as const, id: 'tu_1', name: 'lookup', input: { q: 'pw' } }],
          },
          {
            role: 'user' as const,
            content: [
              {
                type: 'tool_result' as const,
                tool_use_id: 'tu_1',
                content: [{ type: 'text' as const, text: `found ${SECRET}` }],
              },
            ],
          },
        ],
      },
    ],
    [
      'a text document',
      {
        messages: [
          {
            role: 'user' as const,
            content: [
              {
                type: 'document' as const,
                source: { type: 'text' as const, media_type: 'text/plain' as const, data: `notes: ${SECRET}` },
              },
            ],
          },
        ],
      },
    ],
    [
      'a match split across two blocks',
      {
        messages: [
          {
            role: 'user' as const,
            content: [
              { type: 'text' as const, text: 'hun' },
              { type: 'text' as const, text: 'ter2' },
            ],
          },
        ],
      },
    ],
    ['a key of a prior tool input', priorToolCall({ name: 'lookup', input: { [SECRET]: 1 } })],
    ['the name of a prior tool call', priorToolCall({ name: `lookup_${SECRET}`, input: {} })],
    [
      'a document nested in a web fetch result',
      {
        messages: [
          {
            role: 'user' as const,
            content: [
              {
                type: 'web_fetch_tool_result',
                tool_use_id: 'srvtoolu_1',
                content: {
                  type: 'web_fetch_result',
                  url: 'https://example.com/notes',
                  content: { type: 'document', source: { type: 'text', media_type: 'text/plain', data: SECRET } },
                },
              } as never,
            ],
          },
        ],
      },
    ],
  ])('blocks %s before it reaches the model', async (_what, body) => {
    const { client } = await setup();
    const before = upstream.requests.length;
    const res = await refused(client.messages.create({ model: MODEL, max_tokens: 16, ...body }));
    expect(res.status).toBe(400);
    expect(res.error).toMatchObject({ type: 'invalid_request_error', cai_error: { outcome: 'blocked' } });
    expect(upstream.requests.length).toBe(before);
  });

  it('redacts the system prompt and tool results before they go upstream, and the record keeps the redacted request', async () => {
    const { client, admin } = await setup('redact');
    const res = await client.messages
      .create({
        model: MODEL,
        max_tokens: 16,
        system: `pw ${SECRET}`,
        messages: [{ role: 'user', content: [{ type: 'text', text: `also ${SECRET}` }] }],
      })
      .withResponse();
    const sent = JSON.parse(upstream.requests.at(-1)!.body);
    expect(sent.system).toBe('pw *******');
    expect(sent.messages[0].content[0].text).toBe('also *******');
    const stored = await record(admin, res.response.headers.get('x-bastion-prompt-id')!);
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(stored.result.outcome).toBe('redacted');
  });

  it('sees a match that stands alone in its message though the system prompt ends against it', async () => {
    // A whole-word pattern: joined with nothing between them, "helpful" + "hunter2" hid its edge.
    const { client } = await setup('block', [`\\b${SECRET}\\b`]);
    const before = upstream.requests.length;
    const res = await refused(
      client.messages.create({
        model: MODEL,
        max_tokens: 16,
        system: 'You are helpful',
        messages: [{ role: 'user', content: SECRET }],
      }),
    );
    expect(res.status).toBe(400);
    expect(upstream.requests.length).toBe(before);
  });

  it("records the last message as the input, not an output schema's texts nor an earlier turn", async () => {
    const { key, admin } = await setup();
    const res = await messagesCall(key, {
      model: MODEL,
      max_tokens: 16,
      messages: [{ role: 'user', content: 'what is my order status?' }],
      output_format: {
        type: 'json_schema',
        schema: { type: 'object', properties: { status: { type: 'string', description: 'the status' } } },
      },
    });
    expect(res.status).toBe(200);
    const stored = await record(admin, res.headers.get('x-bastion-prompt-id')!);
    expect(stored).toMatchObject({ input: 'what is my order status?', memory: [] });
    // A last message with no text (a tool result without content) is an empty input, not the turn before.
    const bare = await messagesCall(key, {
      model: MODEL,
      max_tokens: 16,
      messages: [
        { role: 'user', content: 'look it up' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'lookup', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', is_error: true }] },
      ],
    });
    expect(bare.status).toBe(200);
    expect(await record(admin, bare.headers.get('x-bastion-prompt-id')!)).toMatchObject({
      input: '',
      memory: ['look it up'],
    });
  });

  it.each(['block', 'redact'] as const)(
    "reads a turn's text blocks as a provider reached through a template gets them: joined by a line break (%s)",
    async (mode) => {
      const { admin, key } = await setup(mode, ['launch\\s+codes']);
      await templateProvider(admin);
      const call = (content: unknown) =>
        messagesCall(key, { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content }] }, 'gpt');
      const before = upstream.requests.length;
      // Joined, "the launchcodes" holds no match; the template sends "the launch\ncodes".
      const res = await call([
        { type: 'text', text: 'the launch' },
        { type: 'text', text: 'codes' },
      ]);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: Record<string, unknown> }).error).toMatchObject({
        cai_error: { outcome: 'blocked' },
      });
      expect(upstream.requests.length).toBe(before);
      // A match across the line break cannot be masked in place (its span holds both blocks): blocked in
      // either mode. Apart with no match across them, the blocks go as before.
      expect(
        (
          await call([
            { type: 'text', text: 'the launch' },
            { type: 'text', text: 'window' },
          ])
        ).status,
      ).toBe(200);
    },
  );

  it('keeps a blocked request with its match masked', async () => {
    const { admin, projectId } = await setup();
    const res = await http(base, 'POST', '/backend/v1/prompts', {
      auth: admin,
      body: { input: `my pw is ${SECRET}!`, provider: 'claude', project: projectId },
    });
    expect(res.body.result).toMatchObject({ outcome: 'blocked', response: null, providerResult: null });
    expect(res.body.input).toBe('my pw is *******!');
    const stored = await record(admin, res.body.id);
    expect(stored.input).toBe('my pw is *******!');
  });

  it.each([
    [
      'tool input',
      () => [{ type: 'tool_use', id: 'tu_9', name: 'send', input: { to: 'x', body: `the pw is ${SECRET}` } }],
    ],
    [
      'thinking',
      () => [
        { type: 'thinking', thinking: `I should reveal ${SECRET}`, signature: 'sig' },
        { type: 'text', text: 'no' },
      ],
    ],
    [
      'a match split across two text blocks',
      () => [
        { type: 'text', text: 'it is hun' },
        { type: 'text', text: 'ter2 ok' },
      ],
    ],
    // A client that shows only text blocks (the OpenAI route, most Messages clients) reads "hunter2".
    [
      'two text blocks with a thinking block between',
      () => [
        { type: 'text', text: 'it is hun' },
        { type: 'thinking', thinking: '-', signature: 'sig' },
        { type: 'text', text: 'ter2 ok' },
      ],
    ],
    [
      'two text blocks with a tool call between',
      () => [
        { type: 'text', text: 'it is hun' },
        { type: 'tool_use', id: 'tu_9', name: 'send', input: { q: '-' } },
        { type: 'text', text: 'ter2 ok' },
      ],
    ],
    [
      'two text blocks, the first with a citation',
      () => [
        {
          type: 'text',
          text: 'it is hun',
          citations: [
            { type: 'char_location', cited_text: '-', document_index: 0, start_char_index: 0, end_char_index: 1 },
          ],
        },
        { type: 'text', text: 'ter2 ok' },
      ],
    ],
    ['a key of a tool input', () => [{ type: 'tool_use', id: 'tu_9', name: 'send', input: { [SECRET]: 1 } }]],
    ['the name of a tool call', () => [{ type: 'tool_use', id: 'tu_9', name: `send_${SECRET}`, input: {} }]],
    [
      'a field the API does not define',
      () => [{ type: 'tool_use', id: 'tu_9', name: 'send', input: {}, note: SECRET }],
    ],
  ])('blocks an answer with the match in %s, as JSON and as a stream', async (_what, blocks) => {
    const { client, admin } = await setup();
    upstream.blocks = blocks as () => Record<string, unknown>[];
    const json = await refused(
      client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'go' }] }),
    );
    expect(json.status).toBe(400);
    expect(json.error).toMatchObject({ cai_error: { outcome: 'blocked' } });

    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 16,
      messages: [{ role: 'user', content: 'go' }],
    });
    const seen: string[] = [];
    stream.on('streamEvent', (e) => seen.push(JSON.stringify(e)));
    await expect(stream.finalMessage()).rejects.toThrow(/blocked by a guardrail/);
    expect(seen.join('')).not.toMatch(/hunter|ter2/);
    const prompts = await waitFor(
      async () => {
        const res = await http(base, 'GET', '/backend/v1/prompts?limit=10', { auth: admin });
        return res.body.prompts?.length === 2 ? res.body.prompts : undefined;
      },
      15_000,
      'both records',
    );
    for (const p of prompts) {
      expect(p.result).toMatchObject({ outcome: 'blocked', response: null, providerResult: null });
      expect(JSON.stringify(p)).not.toContain(SECRET);
    }
  });

  it('redacts tool input and text across blocks, and records only what was delivered', async () => {
    const { client, admin } = await setup('redact');
    upstream.blocks = () => [
      { type: 'text', text: 'the pw: hunt' },
      { type: 'text', text: 'er2.' },
      { type: 'tool_use', id: 'tu_1', name: 'send', input: { body: SECRET } },
    ];
    const res = await client.messages
      .create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'go' }] })
      .withResponse();
    expect(res.data.content).toEqual([
      { type: 'text', text: 'the pw: ****' },
      { type: 'text', text: '***.' },
      { type: 'tool_use', id: 'tu_1', name: 'send', input: { body: '*******' } },
    ]);
    const final = await client.messages
      .stream({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'go' }] })
      .finalMessage();
    expect(final.content).toEqual(res.data.content);
    const stored = await record(admin, res.response.headers.get('x-bastion-prompt-id')!);
    expect(stored.result.outcome).toBe('redacted');
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    expect(JSON.parse(stored.result.providerResult.data).content).toEqual(res.data.content);
  });

  it('blocks, not masks, a redacting match across text blocks with a thinking block between, JSON and stream', async () => {
    // Masked in place, the thinking block between the halves would change under its signature.
    const { client } = await setup('redact');
    upstream.blocks = () => [
      { type: 'text', text: 'it is hun' },
      { type: 'thinking', thinking: 'some reasoning', signature: 'sig' },
      { type: 'text', text: 'ter2 ok' },
    ];
    const body = { model: MODEL, max_tokens: 16, messages: [{ role: 'user' as const, content: 'go' }] };
    const json = await refused(client.messages.create(body));
    expect(json.error).toMatchObject({ cai_error: { outcome: 'blocked' } });
    await expect(client.messages.stream(body).finalMessage()).rejects.toThrow(/blocked by a guardrail/);
  });

  it('masks a whole word that stands alone in its block though the block before ends against it, JSON and stream', async () => {
    // Joined, "Your code" + "hunter2" + "ok" reads "Your codehunter2ok": a whole-word pattern sees no
    // edge there. Each block as the client reads it has the word alone.
    const { client } = await setup('redact', [`\\b${SECRET}\\b`]);
    upstream.blocks = () => [
      { type: 'text', text: 'Your code' },
      { type: 'text', text: SECRET },
      { type: 'text', text: 'ok' },
    ];
    const expected = [
      { type: 'text', text: 'Your code' },
      { type: 'text', text: '*'.repeat(SECRET.length) },
      { type: 'text', text: 'ok' },
    ];
    const body = { model: MODEL, max_tokens: 16, messages: [{ role: 'user' as const, content: 'go' }] };
    expect((await client.messages.create(body)).content).toEqual(expected);
    expect((await client.messages.stream(body).finalMessage()).content).toEqual(expected);
  });

  it('relays nothing it could not parse: a smuggled multi-line event ends the stream', async () => {
    const { client } = await setup();
    const smuggled = textDelta(SECRET);
    upstream.raw = rawStream(
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], model: MODEL, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n` +
        `event: content_block_start\ndata: ${JSON.stringify({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })}\n\n` +
        `event: ping\ndata: {"type": "ping"}\ndata: ${smuggled}\n\n` +
        `event: message_stop\ndata: {"type":"message_stop"}\n\n`,
    );
    const res = await streamCall((await setup()).key);
    const text = await res.text();
    expect(text).not.toContain(SECRET);
    expect(text).toContain('event: error');
    expect(client).toBeTruthy();
  });

  it("does not repeat the name of an event it could not parse, which is the upstream's unscanned text", async () => {
    const { key } = await setup();
    upstream.raw = rawStream(
      `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], model: MODEL, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n` +
        `event: pw ${SECRET}\ndata: {oops\n\n`,
    );
    const text = await (await streamCall(key)).text();
    expect(text).toContain('event: error');
    expect(text).not.toContain(SECRET);
  });

  it("names no unknown block type in a block's message (the upstream's unscanned text)", async () => {
    // A redacting project: the type is scanned and masked, but refused as unknown the block's message named it.
    const { client } = await setup('redact');
    upstream.blocks = () => [{ type: `t-${SECRET}` }];
    const json = await refused(
      client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'go' }] }),
    );
    expect(json.status).toBe(400);
    expect(JSON.stringify(json.error)).not.toContain(SECRET);
    expect(JSON.stringify(json.error)).toContain('a type the proxy does not know');
  });

  it('scans stop sequences, which reach the model too', async () => {
    const { key } = await setup();
    const res = await messagesCall(key, {
      model: MODEL,
      max_tokens: 8,
      stop_sequences: [`pw ${SECRET}`],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.status).toBe(400);
  });

  it("scans a template provider's error message before the client sees it", async () => {
    const { admin, key } = await setup('redact');
    await templateProvider(admin);
    upstream.answer = (req) =>
      req.url.startsWith('/v1/chat/completions')
        ? { status: 400, body: JSON.stringify({ error: { message: `bad account pw ${SECRET}` } }) }
        : undefined;
    try {
      const res = await messagesCall(
        key,
        { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] },
        'gpt',
      );
      const text = await res.text();
      expect(res.status).toBe(502);
      expect(text).toContain('bad account pw *******');
      expect(text).not.toContain(SECRET);
    } finally {
      upstream.answer = undefined;
    }
  });

  it('keeps a character whose UTF-8 bytes the upstream split between two writes whole', async () => {
    const { key } = await setup();
    const text = 'Grüße aus 東京 🙂, à bientôt';
    const body = textStream([text]);
    // Cut inside the bytes of 東 and of the emoji.
    const bytes = Buffer.from(body, 'utf8');
    const inside = (c: string) => bytes.indexOf(Buffer.from(c, 'utf8')) + 1;
    upstream.raw = rawStream(body, { splitAt: [inside('東'), inside('🙂')] });
    const res = await streamCall(key);
    const received = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { delta?: { text?: string } })
      .map((e) => e.delta?.text ?? '')
      .join('');
    expect(received).toBe(text);
  });

  it.each([
    ['clean', 'a'.repeat(600), false],
    ['with the match in its last deltas', `${'a'.repeat(600)} the pw is ${SECRET}`, true],
  ])(
    'relays the events of one upstream chunk in one frame, and blocks as before (%s)',
    async (_what, text, blocked) => {
      const { key } = await setup();
      // The whole stream in one write: the proxy reads it as one chunk (or a few).
      upstream.raw = rawStream(textStream(text.match(/.{1,8}/gs) ?? []));
      // As the tests' own NATS user: watching every inbox is what no service may do.
      const nc = await connect({
        servers: process.env.TEST_NATS_URL!,
        user: TEST_NATS_USER.user,
        pass: TEST_NATS_USER.password,
      });
      const frames: string[] = [];
      nc.subscribe('_INBOX.>', { callback: (_e, m) => void frames.push(m.string()) });
      await nc.flush();
      try {
        const res = await streamCall(key);
        const relayed = await res.text();
        await nc.flush();
        const data = frames.filter((f) => f.includes('"kind":"data"'));
        expect(data.length).toBeGreaterThan(0);
        expect(data.length).toBeLessThanOrEqual(4);
        expect(data.some((f) => f.includes(SECRET))).toBe(false);
        expect(relayed).not.toContain(SECRET);
        if (blocked) {
          expect(relayed).toContain('event: error');
          expect(relayed).not.toContain('message_stop');
        } else {
          const deltas = [...relayed.matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]).join('');
          expect(deltas).toBe(text);
          expect(relayed.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
        }
      } finally {
        await nc.close();
      }
    },
  );

  it('ends the answer at message_stop: what it held back leaves at once, nothing after it, and an upstream that stays open is left after a second', async () => {
    const { key } = await setup();
    const after = textDelta(SECRET);
    upstream.raw = rawStream(
      `${textStream(['the answer ', 'ends here'])}event: content_block_delta\ndata: ${after}\n\n`,
      { holdOpenMs: 15_000 },
    );
    const started = performance.now();
    const res = await streamCall(key);
    let relayed = '';
    let stopAt: number | undefined;
    const decoder = new TextDecoder();
    for await (const chunk of res.body!) {
      relayed += decoder.decode(chunk as Uint8Array, { stream: true });
      if (stopAt === undefined && relayed.includes('"type":"message_stop"')) stopAt = performance.now() - started;
    }
    const endedAt = performance.now() - started;
    // The response scanner held the last text back until the answer was whole; it came with message_stop.
    expect([...relayed.matchAll(/"text":"([^"]*)"/g)].map((m) => m[1]).join('')).toBe('the answer ends here');
    expect(relayed).not.toContain(SECRET);
    expect(relayed.trimEnd().endsWith('data: {"type":"message_stop"}')).toBe(true);
    // message_stop long before the upstream closes (15 s), and the answer ends soon after (the proxy
    // drains for a second), not when the upstream does. Bounds with room for a loaded machine's stalls.
    expect(stopAt).toBeLessThan(5000);
    expect(endedAt).toBeLessThan(10_000);
  });

  it('answers a non-JSON 200 from the provider with a 502 in Anthropic shape', async () => {
    const { client } = await setup();
    upstream.raw = { status: 200, contentType: 'text/html', body: '<html>gateway page</html>' };
    const res = await refused(
      client.messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'go' }] }),
    );
    expect(res.status).toBe(502);
    expect(res.error).toMatchObject({ type: 'api_error' });
  });

  it("withholds a provider's error message that a scanner blocks, and passes nothing else of its body", async () => {
    const { client, admin } = await setup();
    const hostile = {
      type: 'error',
      error: { type: 'invalid_request_error', message: `bad ${SECRET}`, detail: SECRET },
      note: SECRET,
    };
    for (const stream of [false, true]) {
      upstream.raw = { status: 400, contentType: 'application/json', body: JSON.stringify(hostile) };
      let err: InstanceType<typeof Anthropic.APIError> | undefined;
      try {
        await client.messages.create({
          model: MODEL,
          max_tokens: 8,
          stream,
          messages: [{ role: 'user', content: 'go' }],
        });
      } catch (e) {
        err = e as InstanceType<typeof Anthropic.APIError>;
      }
      expect(err).toBeInstanceOf(Anthropic.APIError);
      expect(err!.status).toBe(400);
      expect(err!.error).toEqual({
        type: 'error',
        error: {
          type: 'invalid_request_error',
          message: "the provider's error message (400) was withheld by a guardrail",
        },
      });
      const stored = await record(admin, err!.headers?.get('x-bastion-prompt-id') ?? '');
      expect(JSON.stringify(stored)).not.toContain(SECRET);
      // The scanners' verdict on the message is the record's response verdict.
      expect(stored.result.outcome).toBe('blocked');
    }
    // A success other than 200 for a stream is not an answer: 502.
    upstream.raw = {
      status: 201,
      contentType: 'application/json',
      body: JSON.stringify({ content: [{ type: 'text', text: SECRET }] }),
    };
    const odd = await refused(
      client.messages.create({
        model: MODEL,
        max_tokens: 8,
        stream: true,
        messages: [{ role: 'user', content: 'go' }],
      }),
    );
    expect(odd.status).toBe(502);
    expect(JSON.stringify(odd.error)).not.toContain(SECRET);
  });

  it("masks what a redacting scanner matches in a provider's error message, and shows an unknown error type as api_error", async () => {
    const { client } = await setup('redact');
    upstream.raw = {
      status: 529,
      contentType: 'application/json',
      body: JSON.stringify({ type: 'error', error: { type: `x_${SECRET}`, message: `busy, pw ${SECRET}` } }),
    };
    const res = await refused(
      client.messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'go' }] }),
    );
    expect(res.status).toBe(529);
    expect(res.error).toEqual({ type: 'api_error', message: 'busy, pw *******' });
  });

  it('refuses content types it does not know and passes images flagged', async () => {
    const { client, admin } = await setup();
    const unknown = await refused(
      client.messages.create({
        model: MODEL,
        max_tokens: 8,
        messages: [{ role: 'user', content: [{ type: 'hologram', data: SECRET } as never] }],
      }),
    );
    expect(unknown.status).toBe(400);
    const image = await client.messages
      .create({
        model: MODEL,
        max_tokens: 8,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'text', text: 'what is it' },
            ],
          },
        ],
      })
      .withResponse();
    expect(image.response.status).toBe(200);
    expect((await record(admin, image.response.headers.get('x-bastion-prompt-id')!)).result.outcome).toBe('flagged');
  });

  it('answers scan integrations as they call it: just {input}, look-alikes caught, redactedInput and reason', async () => {
    const { admin, key, projectId } = await setup('redact');
    const words = await http(base, 'POST', '/backend/v1/scanners', {
      auth: admin,
      body: {
        name: 'injection',
        config: { type: 'keyword', words: ['ignore previous instructions'] },
        direction: 'request',
      },
    });
    await http(base, 'POST', `/backend/v1/projects/${projectId}/scanners`, {
      auth: admin,
      body: { id: words.body.id, mode: 'block', blocking: true, enabled: true },
    });
    const app = `Bearer ${key}`;
    const redacted = await http(base, 'POST', '/backend/v1/scans', {
      auth: app,
      body: { input: 'my pw is hunter２ ok' },
    });
    expect(redacted.status).toBe(200);
    expect(redacted.body).toMatchObject({
      type: 'scan',
      projectId,
      redactedInput: 'my pw is ******* ok',
      result: { outcome: 'redacted' },
    });
    for (const sneaky of [
      'please ignore\u00a0previous instructions',
      'please \u0456gnore previous instructions',
      'please ignore pre\u200bvious instructions',
    ]) {
      const input = JSON.parse(`"${sneaky}"`) as string;
      const res = await http(base, 'POST', '/backend/v1/scans', {
        auth: app,
        body: { input, externalMetadata: { from: 'plugin' } },
      });
      expect(res.body.result.outcome).toBe('blocked');
      expect(res.body.result.reason).toEqual(expect.any(String));
      expect(res.body.message).toEqual(expect.any(String));
      expect(res.body.externalMetadata).toEqual({ from: 'plugin' });
    }
    const flagOnly = await http(base, 'POST', '/backend/v1/scans', {
      auth: app,
      body: { input: 'ignore previous instructions', flagOnly: true },
    });
    expect(flagOnly.body.result.outcome).toBe('flagged');
    const clean = await http(base, 'POST', '/backend/v1/scans', {
      auth: app,
      body: { input: 'hello', verbose: false },
    });
    expect(clean.body).toMatchObject({ redactedInput: 'hello', result: { outcome: 'cleared', scannerResults: [] } });
  });

  it('keeps a flagOnly scan with what would have blocked masked, and answers the caller its text as sent', async () => {
    const { admin, key } = await setup('block');
    const scan = await http(base, 'POST', '/backend/v1/scans', {
      auth: `Bearer ${key}`,
      body: { input: `my pw is ${SECRET}!`, flagOnly: true },
    });
    expect(scan.status).toBe(200);
    // The caller chose to let the text through flagged: redactedInput is the text as it may go on.
    expect(scan.body).toMatchObject({
      input: 'my pw is *******!',
      redactedInput: `my pw is ${SECRET}!`,
      result: { outcome: 'flagged' },
    });
    const stored = await waitFor(
      async () => {
        const res = await http(base, 'GET', `/backend/v1/scans/${scan.body.id}`, { auth: admin });
        return res.status === 200 ? res.body.scan : undefined;
      },
      15_000,
      'the stored scan',
    );
    expect(stored.input).toBe('my pw is *******!');
    expect(stored.result.outcome).toBe('flagged');
    expect(JSON.stringify(stored)).not.toContain(SECRET);
    const asPrompt = await record(admin, scan.body.id);
    expect(JSON.stringify(asPrompt)).not.toContain(SECRET);
  });

  it('masks under flagOnly what a redacting scanner matched beside what a blocking one would have blocked', async () => {
    const { admin, key, projectId } = await setup('block');
    const redactor = await http(base, 'POST', '/backend/v1/scanners', {
      auth: admin,
      body: { name: 'no-fish', config: { type: 'regex', patterns: ['swordfish'] }, direction: 'both' },
    });
    const attached = await http(base, 'POST', `/backend/v1/projects/${projectId}/scanners`, {
      auth: admin,
      body: { id: redactor.body.id, mode: 'redact', blocking: true, enabled: true, direction: 'both' },
    });
    expect(attached.status).toBeLessThan(300);
    const scan = await waitFor(
      async () => {
        const res = await http(base, 'POST', '/backend/v1/scans', {
          auth: `Bearer ${key}`,
          body: { input: `pw ${SECRET} or swordfish`, flagOnly: true },
        });
        // The project's new scanner reaches the proxy by its change event.
        return res.body.result?.scannerResults?.length === 2 ? res : undefined;
      },
      15_000,
      'both scanners',
    );
    expect(scan.body).toMatchObject({
      redactedInput: `pw ${SECRET} or *********`,
      result: { outcome: 'redacted' },
    });
  });

  it("follows the project's setting for content it cannot read: refuse all, or pass all flagged", async () => {
    const { client, admin, projectId } = await setup();
    const image = {
      type: 'image' as const,
      source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' },
    };
    const set = async (guard: object) => {
      const res = await http(base, 'PATCH', `/backend/v1/projects/${projectId}`, {
        auth: admin,
        body: { config: { guard } },
      });
      expect(res.status).toBe(200);
      expect(res.body.project.config.guard).toEqual(guard);
    };
    await set({ unreadableContent: 'refuse' });
    await waitFor(
      async () => {
        const res = await refused(
          client.messages.create({ model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: [image] }] }),
        ).catch(() => undefined);
        return res?.status === 400 ? res : undefined;
      },
      15_000,
      'the setting to reach the proxy (image refused)',
    );
    await set({ unreadableContent: 'flag' });
    const passed = await waitFor(
      async () => {
        try {
          return await client.messages
            .create({
              model: MODEL,
              max_tokens: 8,
              messages: [{ role: 'user', content: [{ type: 'hologram' } as never, { type: 'text', text: 'hi' }] }],
            })
            .withResponse();
        } catch {
          return undefined;
        }
      },
      15_000,
      'the setting to reach the proxy (unknown type passed)',
    );
    expect((await record(admin, passed.response.headers.get('x-bastion-prompt-id')!)).result.outcome).toBe('flagged');
    // Nesting past what the guard reads is refused whatever the setting.
    let input: unknown = 'x';
    for (let i = 0; i < 100; i++) input = { a: input };
    const deep = await refused(
      client.messages.create({
        model: MODEL,
        max_tokens: 8,
        messages: [
          { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'n', input: input as object }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: 'ok' }] },
        ],
      }),
    );
    expect(deep.status).toBe(400);
    expect(JSON.stringify(deep.error)).toContain('nesting');
  });
});
