import OpenAI from 'openai';
import { signDevToken } from '@bastion/auth';
import { bearer, uniqueTenant, waitFor } from '@bastion/testing';
import { startGuardedStack, type GuardedStack } from '../support/guarded-stack';
import type { MockUpstream } from '../support/mock-upstream';
import { http } from '../support/stack';

const MODEL = 'claude-test';

/**
 * The OpenAI route with the official `openai` SDK, unchanged, pointed at the gateway: through an
 * Anthropic provider (translated both ways) and a template provider, with the same guardrails and
 * records as the Anthropic route.
 */
describe('OpenAI Chat Completions through the gateway (openai SDK)', () => {
  let stack: GuardedStack;
  let upstream: MockUpstream;
  let base: string;

  beforeAll(async () => {
    stack = await startGuardedStack();
    ({ upstream, base } = stack);
  }, 60_000);

  afterAll(() => stack?.close());

  beforeEach(() => {
    upstream.reply = undefined;
    upstream.blocks = undefined;
  });

  async function setup() {
    const tenant = uniqueTenant();
    const admin = bearer(tenant, 'admin');
    await http(base, 'POST', '/backend/v1/providers', {
      auth: admin,
      body: {
        name: 'claude',
        systemProvider: 'anthropic',
        inputs: { baseUrl: upstream.url, model: MODEL },
        secrets: { apiKey: 'sk-ant-mock-key-000000' },
      },
    });
    const openai = await http(base, 'POST', '/backend/v1/providers', {
      auth: admin,
      body: {
        name: 'gpt',
        systemProvider: 'openai',
        inputs: { baseUrl: upstream.url, model: 'gpt-test' },
        secrets: { apiKey: 'sk-test-good-key-123456' },
      },
    });
    expect(openai.status).toBe(200);
    const scanner = await http(base, 'POST', '/backend/v1/scanners', {
      auth: admin,
      body: { name: 'no-passwords', config: { type: 'regex', patterns: ['hunter2'] }, direction: 'both' },
    });
    const project = await http(base, 'POST', '/backend/v1/projects', { auth: admin, body: { name: 'guarded' } });
    const projectId = (project.body.id ?? project.body.project?.id) as string;
    await http(base, 'POST', `/backend/v1/projects/${projectId}/scanners`, {
      auth: admin,
      body: { id: scanner.body.id, mode: 'block', blocking: true, enabled: true },
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
    const client = (provider: string) =>
      new OpenAI({ baseURL: `${base}/openai/${provider}`, apiKey: key, maxRetries: 0 });
    return { admin, client };
  }

  it('answers a chat completion through an Anthropic provider, translating system messages, roles and usage', async () => {
    const { client, admin } = await setup();
    const res = await client('claude').chat.completions.create({
      model: MODEL,
      max_completion_tokens: 32,
      stop: ['\n\n'],
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'developer', content: 'no markdown' },
        { role: 'user', content: 'hello there' },
      ],
    });
    expect(res.object).toBe('chat.completion');
    expect(res.choices[0]).toMatchObject({
      index: 0,
      finish_reason: 'stop',
      message: { role: 'assistant', content: 'echo: hello there' },
    });
    expect(res.usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 });
    const sent = JSON.parse(upstream.requests.at(-1)!.body);
    expect(sent).toMatchObject({
      system: 'be brief\n\nno markdown',
      max_tokens: 32,
      stop_sequences: ['\n\n'],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there' }] }],
    });
    const prompts = await waitFor(
      async () => {
        const r = await http(base, 'GET', '/backend/v1/prompts?limit=10', { auth: admin });
        return r.body.prompts?.length ? r.body.prompts : undefined;
      },
      5000,
      'the record',
    );
    expect(prompts[0]).toMatchObject({
      provider: 'claude',
      result: { outcome: 'cleared', response: 'echo: hello there' },
    });
  });

  it('streams chat.completion.chunk events ending in [DONE], with usage when asked', async () => {
    const { client } = await setup();
    const stream = await client('claude').chat.completions.create({
      model: MODEL,
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'stream me' }],
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined | null;
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('echo: stream me');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ completion_tokens: 5 });
  });

  it('translates tool calls both ways', async () => {
    const { client } = await setup();
    upstream.blocks = () => [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }];
    const res = await client('claude').chat.completions.create({
      model: MODEL,
      tools: [
        {
          type: 'function',
          function: {
            name: 'weather',
            description: 'the weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } } },
          },
        },
      ],
      tool_choice: 'required',
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'weather', arguments: '{"city":"Lyon"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_0', content: 'sunny' },
      ],
    });
    expect(res.choices[0].finish_reason).toBe('stop');
    expect(res.choices[0].message.tool_calls).toEqual([
      { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
    ]);
    const sent = JSON.parse(upstream.requests.at(-1)!.body);
    expect(sent.tools).toEqual([
      {
        name: 'weather',
        description: 'the weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
      },
    ]);
    expect(sent.tool_choice).toEqual({ type: 'any' });
    expect(sent.messages[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'call_0', name: 'weather', input: { city: 'Lyon' } }],
    });
    expect(sent.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'call_0', content: 'sunny' }],
    });

    const stream = await client('claude').chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'weather?' }],
    });
    let args = '';
    for await (const chunk of stream) args += chunk.choices[0]?.delta?.tool_calls?.[0]?.function?.arguments ?? '';
    expect(JSON.parse(args)).toEqual({ city: 'Paris' });
  });

  it('blocks with a 400 in OpenAI error shape carrying the scanner results, in a tool result too', async () => {
    const { client } = await setup();
    const before = upstream.requests.length;
    const err = await client('claude')
      .chat.completions.create({
        model: MODEL,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'tool', tool_call_id: 'c', content: 'pw hunter2' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const body = (err as InstanceType<typeof OpenAI.BadRequestError>).error as Record<string, unknown>;
    expect(body).toMatchObject({
      type: 'invalid_request_error',
      code: 'guardrail_blocked',
      cai_error: { outcome: 'blocked' },
    });
    expect(upstream.requests.length).toBe(before);
    upstream.reply = () => 'the pw is hunter2';
    const streamed = await client('claude').chat.completions.create({
      model: MODEL,
      stream: true,
      messages: [{ role: 'user', content: 'go' }],
    });
    let seen = '';
    await expect(
      (async () => {
        for await (const chunk of streamed) seen += chunk.choices[0]?.delta?.content ?? '';
      })(),
    ).rejects.toThrow(/blocked by a guardrail/);
    expect(seen).not.toContain('hunter');
  });

  it('goes through a template provider (OpenAI type) with the same guard', async () => {
    const { client } = await setup();
    const res = await client('gpt').chat.completions.create({
      model: 'gpt-test',
      messages: [{ role: 'user', content: 'hi gpt' }],
    });
    expect(res.choices[0].message.content).toBe('echo: hi gpt');
    const stream = await client('gpt').chat.completions.create({
      model: 'gpt-test',
      stream: true,
      messages: [{ role: 'user', content: 'hi stream' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('echo: hi stream');
  });

  it('answers unknown providers and bad bodies in OpenAI error shape', async () => {
    const { client } = await setup();
    const missing = await client('nope')
      .chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(OpenAI.NotFoundError);
    const bad = await fetch(`${base}/openai/claude/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer nope', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ error: { message: expect.any(String), type: 'authentication_error' } });
  });
});
