import type { RequestTemplateView, RetryStageView, WorkflowTemplateView } from '@bastion/contracts';
import { TemplateError } from '@bastion/templates';
import { runProvider } from './run-provider';
import { type IncomingResponse, type OutgoingRequest, type Signers, type Transport, TransportError } from './transport';

const noSigners: Signers = { aws: async () => ({}), oci: () => ({}) };

/** The connections tool's workflow: OAuth client credentials, then a chat call retried on 429/5xx. */
const workflow = (attempts = 3): WorkflowTemplateView => ({
  type: 'workflow',
  outputs: {
    content: '{{ content }}',
    statusCode: '{{ statusCode }}',
    error: '{{ error }}',
    responseBody: '{{ responseBody }}',
  },
  stages: [
    {
      type: 'request',
      method: 'POST',
      url: 'https://auth.example/token',
      body: 'grant_type=client_credentials&client_id={{ client_id }}&client_secret={{ client_secret }}',
      outputs: { access_token: '{{ response.json()?.access_token }}' },
    },
    {
      type: 'retry',
      attempts,
      backoff: '{{ 2 * attempt }}',
      when: '{{ Array.contains([429, 500, 502, 503, 504], statusCode) }}',
      block: {
        type: 'request',
        method: 'POST',
        url: 'https://llm.example/chat',
        headers: { Authorization: 'Bearer {{ access_token }}' },
        json: '{{ { messages: [{ role: "user", content: prompt }] } }}',
        outputs: {
          content: '{{ response.json()?.choices?.[0]?.message?.content }}',
          statusCode: '{{ response.statusCode }}',
          error: '{{ response.statusCode >= 400 ? "HTTP " + response.statusCode : "" }}',
          responseBody: '{{ response.body }}',
        },
      },
    },
  ],
});

const call = (template: WorkflowTemplateView) => ({
  template,
  inputs: { client_id: 'app-1' },
  secrets: { client_secret: 'cs-secret-1' },
  prompt: 'Say hello.',
});

function fakeTransport(answers: ((r: OutgoingRequest) => IncomingResponse)[]): Transport & { sent: OutgoingRequest[] } {
  const sent: OutgoingRequest[] = [];
  return {
    sent,
    send: async (r) => {
      sent.push(r);
      const next = answers.shift();
      if (!next) throw new Error('no more answers');
      return next(r);
    },
  };
}
const json = (statusCode: number, body: unknown): IncomingResponse => ({
  statusCode,
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});
const token = () => json(200, { access_token: 'at-123' });
const chat = (text: string) => () => json(200, { choices: [{ message: { content: text } }] });

describe('runProvider with a workflow template', () => {
  it('runs the stages in order, the OAuth token reaching the chat call, and reads content', async () => {
    const t = fakeTransport([token, chat('hello')]);
    const waits: number[] = [];
    const result = await runProvider(call(workflow()), {
      transport: t,
      signers: noSigners,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(t.sent.map((r) => r.url)).toEqual(['https://auth.example/token', 'https://llm.example/chat']);
    expect(t.sent[0].body).toBe('grant_type=client_credentials&client_id=app-1&client_secret=cs-secret-1');
    expect(t.sent[1].headers.authorization).toBe('Bearer at-123');
    expect(JSON.parse(t.sent[1].body!)).toEqual({ messages: [{ role: 'user', content: 'Say hello.' }] });
    expect(result).toMatchObject({ content: 'hello', statusCode: 200, error: null, failure: null });
    expect(result.exchanges?.map((e) => [e.stage, e.attempt])).toEqual([
      [1, undefined],
      [2, 1],
    ]);
    expect(result.request.url).toBe('https://llm.example/chat');
    expect(waits).toEqual([]);
  });

  it('retries while `when` holds, waiting the backoff of each attempt, and stops when it no longer holds', async () => {
    const t = fakeTransport([token, () => json(503, { error: 'busy' }), () => json(429, {}), chat('third time')]);
    const waits: number[] = [];
    const result = await runProvider(call(workflow()), {
      transport: t,
      signers: noSigners,
      sleep: async (ms) => void waits.push(ms),
    });
    expect(result).toMatchObject({ content: 'third time', statusCode: 200, error: null });
    expect(waits).toEqual([2000, 4000]);
    expect(result.exchanges?.map((e) => [e.stage, e.attempt, e.response?.statusCode])).toEqual([
      [1, undefined, 200],
      [2, 1, 503],
      [2, 2, 429],
      [2, 3, 200],
    ]);
  });

  it('reports the last answer when the attempts run out', async () => {
    const t = fakeTransport([token, () => json(503, {}), () => json(503, {})]);
    const result = await runProvider(call(workflow(2)), {
      transport: t,
      signers: noSigners,
      sleep: async () => undefined,
    });
    expect(result).toMatchObject({ content: null, statusCode: 503, error: 'HTTP 503' });
    expect(t.sent).toHaveLength(3);
  });

  it('does not retry an answer `when` does not match', async () => {
    const t = fakeTransport([token, () => json(401, { error: 'bad token' })]);
    const result = await runProvider(call(workflow()), {
      transport: t,
      signers: noSigners,
      sleep: async () => undefined,
    });
    expect(result).toMatchObject({ statusCode: 401, error: 'HTTP 401' });
    expect(t.sent).toHaveLength(2);
  });

  it('retries a transport failure and an answer its outputs cannot read', async () => {
    const t = fakeTransport([
      token,
      () => {
        throw new TransportError('unreachable', 'connection refused');
      },
      () => ({ statusCode: 502, headers: {}, body: '<html>bad gateway</html>' }),
      chat('recovered'),
    ]);
    const result = await runProvider(call(workflow()), {
      transport: t,
      signers: noSigners,
      sleep: async () => undefined,
    });
    expect(result).toMatchObject({ content: 'recovered', error: null });
  });

  it('stops at a stage before the last that fails, naming it, and sends nothing after', async () => {
    const t = fakeTransport([() => json(401, { error: 'invalid_client' })]);
    const result = await runProvider(call(workflow()), { transport: t, signers: noSigners });
    expect(result).toMatchObject({
      content: null,
      statusCode: 401,
      error: 'stage 1 (request) answered HTTP 401',
      failure: null,
    });
    expect(t.sent).toHaveLength(1);

    const down: Transport = {
      send: async () => Promise.reject(new TransportError('timeout', 'no answer within 5000 ms')),
    };
    expect(await runProvider(call(workflow()), { transport: down, signers: noSigners })).toMatchObject({
      failure: 'timeout',
      error: 'stage 1 (request): no answer within 5000 ms',
      statusCode: null,
    });
  });

  // 2.5 s in all, from the workflow's own timeout or from the operator's ceiling over a longer one:
  // the first request may take it all, the second what is left; a 2 s backoff at 0.7 s would end
  // past it.
  it.each([
    ["the workflow's own time budget", 2.5, undefined],
    ["the operator's ceiling, whatever the workflow's own timeout says", 600, 2500],
  ])(
    'keeps every request inside %s: timeouts are cut, and a backoff past it ends the retries',
    async (_what, timeout, maxTimeoutMs) => {
      let clock = 0;
      const t = fakeTransport([
        () => ((clock += 400), token()),
        () => ((clock += 300), json(503, {})),
        () => json(200, {}),
      ]);
      const result = await runProvider(call({ ...workflow(), timeout }), {
        transport: { send: (r) => t.send(r) },
        signers: noSigners,
        defaultTimeoutMs: 60_000,
        maxTimeoutMs,
        sleep: async (ms) => void (clock += ms),
        now: () => clock,
      });
      expect(t.sent.map((r) => r.timeoutMs)).toEqual([2500, 2100]);
      expect(result).toMatchObject({ statusCode: 503, error: 'HTTP 503' });
      expect(clock).toBe(700);
    },
  );

  it('throws a TemplateError naming the stage when a stage does not render', async () => {
    const bad = workflow();
    (bad.stages[0] as { url: string }).url = '{{ client_id }}';
    const t = fakeTransport([]);
    const err = await runProvider(call(bad), { transport: t, signers: noSigners }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TemplateError);
    expect((err as TemplateError).reason).toBe('stage 1 (request): the rendered url is not an absolute URL');
    expect((err as TemplateError).loc).toEqual(['stages', 0, 'url']);

    const badBlock = workflow();
    (badBlock.stages[1] as { block: { url: string } }).block.url = '{{ client_id }}';
    const inBlock = (await runProvider(call(badBlock), { transport: fakeTransport([token]), signers: noSigners }).catch(
      (e: unknown) => e,
    )) as TemplateError;
    expect(inBlock.reason).toBe('stage 2 (retry), attempt 1: the rendered url is not an absolute URL');
    expect(inBlock.loc).toEqual(['stages', 1, 'block', 'url']);
  });

  it('does not quote a url that does not render, which may hold a secret', async () => {
    const bad = workflow();
    (bad.stages[0] as { url: string }).url = 'not a url?key={{ client_secret }}';
    const err = (await runProvider(call(bad), { transport: fakeTransport([]), signers: noSigners }).catch(
      (e: unknown) => e,
    )) as TemplateError;
    expect(err).toBeInstanceOf(TemplateError);
    expect(JSON.stringify([err.message, err.reason])).not.toContain('cs-secret-1');
  });

  it.each<[string, (w: WorkflowTemplateView) => void]>([
    [
      "a stage's outputs",
      (w) => {
        (w.stages[0] as { outputs: object }).outputs = { access_token: 'x', t: '{{ "" + client_secret }}' };
        w.outputs = { ...w.outputs, content: '{{ t }}' };
      },
    ],
    // Spelled so that a check of the names an expression reads could miss it.
    ["the workflow's outputs", (w) => (w.outputs = { content: '{{ `${client_secret}` }}' })],
  ])('renders %s without secrets in scope: nothing it renders can carry one out', async (_, leak) => {
    const leaky = workflow();
    leak(leaky);
    const t = fakeTransport([token, chat('hello')]);
    const result = await runProvider(call(leaky), { transport: t, signers: noSigners });
    expect(JSON.stringify({ ...result, request: undefined, exchanges: undefined })).not.toContain('cs-secret-1');
  });

  it('stops a run whose answers pass its budget in all, keeping none past it and retrying nothing', async () => {
    const big = () => json(503, { pad: 'x'.repeat(400) });
    const t = fakeTransport([token, big, big, big, big]);
    const result = await runProvider(call(workflow(5)), {
      transport: t,
      signers: noSigners,
      sleep: async () => undefined,
      maxWorkflowAnswerChars: 1000,
    });
    // The token (about 25 characters) and two answers fit; the third passes 1,000 and ends the run.
    expect(t.sent).toHaveLength(4);
    expect(result).toMatchObject({ failure: 'too_large' });
    expect(result.error).toMatch(/answers passed 1000 characters in all/);
    expect(result.exchanges?.at(-1)?.response?.body).toBe('');
  });

  it('decides a retry and its backoff without secrets in scope', async () => {
    // With the secret readable, the 503 would be retried after a wait of the secret's length.
    const leaky = workflow();
    Object.assign(leaky.stages[1], {
      when: '{{ client_secret == "cs-secret-1" }}',
      backoff: '{{ client_secret.length }}',
    });
    const waits: number[] = [];
    const t = fakeTransport([token, () => json(503, {}), chat('hello')]);
    await runProvider(call(leaky), {
      transport: t,
      signers: noSigners,
      sleep: async (ms) => void waits.push(ms),
    }).catch(() => undefined);
    expect(t.sent).toHaveLength(2);
    expect(waits).toEqual([]);
  });

  describe('a url an answer chose', () => {
    /** The auth stage names where the chat call goes (`next`); the chat call carries a secret key. */
    const steered = (chatUrl: string, headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
      ({
        type: 'workflow',
        outputs: { content: '{{ content }}' },
        stages: [
          {
            type: 'request',
            method: 'POST',
            url: 'https://auth.example/token',
            body: 'client_secret={{ client_secret }}',
            outputs: { next: '{{ response.json()?.next }}', ...extra },
          },
          {
            type: 'retry',
            attempts: 3,
            block: {
              type: 'request',
              method: 'POST',
              url: chatUrl,
              headers,
              outputs: { content: '{{ response.json()?.choices?.[0]?.message?.content }}' },
            },
          },
        ],
      }) as WorkflowTemplateView;
    const steer = (next: string) => () => json(200, { next });
    /** Runs `template` against `answers`, with the call's inputs or secrets replaced by `given`'s. */
    const run = (
      template: WorkflowTemplateView,
      answers: ((r: OutgoingRequest) => IncomingResponse)[],
      given: { inputs?: Record<string, string>; secrets?: Record<string, string> } = {},
    ) => {
      const t = fakeTransport(answers);
      const result = runProvider(
        { ...call(template), ...given },
        { transport: t, signers: noSigners, sleep: async () => undefined },
      );
      return { t, result };
    };

    it('does not take the secrets to a host of its own', async () => {
      const { t, result } = run(steered('{{ next }}', { 'x-api-key': 'key {{ client_secret }}' }), [
        steer('https://evil.example/collect'),
        chat('never'),
      ]);
      expect(await result).toMatchObject({ content: null, failure: 'blocked_address' });
      expect((await result).error).toMatch(/stage 2 .*https:\/\/evil\.example.*secrets are not sent there/);
      expect(t.sent.map((r) => r.url)).toEqual(['https://auth.example/token']);
    });

    it('follows it back to an origin the template itself addressed', async () => {
      const { t, result } = run(steered('{{ next }}', { 'x-api-key': '{{ client_secret }}' }), [
        steer('https://auth.example/v2/chat'),
        chat('hello'),
      ]);
      expect(await result).toMatchObject({ content: 'hello', failure: null });
      expect(t.sent.map((r) => r.url)).toEqual(['https://auth.example/token', 'https://auth.example/v2/chat']);
    });

    it('follows it anywhere when the request carries no secret', async () => {
      const { t, result } = run(steered('{{ next }}?q=1', { accept: 'application/json' }), [
        steer('https://cdn.example/answer'),
        chat('from the cdn'),
      ]);
      expect(await result).toMatchObject({ content: 'from the cdn', failure: null });
      expect(t.sent[1].url).toBe('https://cdn.example/answer?q=1');
    });

    it('knows an answer chose it through other outputs, and not when an output reads no answer', async () => {
      // Stage 2 reads no answer of its own, only the output stage 1 took from one.
      const viaAlias = steered('https://auth.example/chat', {});
      viaAlias.stages.splice(1, 0, {
        type: 'request',
        method: 'GET',
        url: 'https://auth.example/ping',
        outputs: { chatAt: '{{ next }}' },
      });
      (viaAlias.stages[2] as RetryStageView).block.url = '{{ chatAt }}/chat';
      (viaAlias.stages[2] as RetryStageView).block.headers = { 'x-api-key': '{{ client_secret }}' };
      const refused = run(viaAlias, [steer('https://evil.example'), () => json(200, {}), chat('never')]);
      expect(await refused.result).toMatchObject({ failure: 'blocked_address' });
      expect(refused.t.sent.map((r) => r.url)).toEqual(['https://auth.example/token', 'https://auth.example/ping']);
      // An output that reads only the inputs is the template's own addressing.
      const own = steered('{{ chatUrl }}', { 'x-api-key': '{{ client_secret }}' }, { chatUrl: '{{ client_id }}' });
      const ownRun = run(own, [steer('x'), chat('ok')], { inputs: { client_id: 'https://llm.example/chat' } });
      expect(await ownRun.result).toMatchObject({ content: 'ok', failure: null });
    });

    it('knows a secret by its name, however the request encodes it', async () => {
      for (const chat of [
        { url: '{{ next }}', queryParams: { key: '{{ client_secret }}' } },
        { url: '{{ next }}', body: 'secret={{ encodeURIComponent(client_secret) }}' },
        { url: '{{ next }}', json: { k: '{{ client_secret.length > 0 ? client_secret : "" }}' } },
      ]) {
        const template = steered('', {});
        Object.assign((template.stages[1] as RetryStageView).block, chat);
        const { t, result } = run(template, [steer('https://evil.example/c'), () => json(200, {})]);
        expect(await result).toMatchObject({ failure: 'blocked_address' });
        expect(t.sent).toHaveLength(1);
      }
    });

    it('trusts an origin only with the secrets the template itself sent there', async () => {
      // Two secrets: the auth server got the client secret, never the API key.
      const { t, result } = run(
        steered('{{ next }}', { 'x-api-key': '{{ api_key }}' }),
        [steer('https://auth.example/steal'), chat('never')],
        { secrets: { client_secret: 'cs-secret-1', api_key: 'ak-secret-2' } },
      );
      expect(await result).toMatchObject({ failure: 'blocked_address' });
      expect((await result).error).toMatch(/sent api_key: those secrets are not sent there/);
      expect(t.sent).toHaveLength(1);
    });

    it('trusts an origin with a secret only once it was sent there, not for being named', async () => {
      // The auth stage names the API key only in a branch that renders empty.
      const template = steered('{{ next }}', { 'x-api-key': '{{ api_key }}' });
      (template.stages[0] as RequestTemplateView).headers = { 'x-api-key': '{{ mode == "key" ? api_key : "" }}' };
      const { t, result } = run(template, [steer('https://auth.example/steal'), chat('never')], {
        inputs: { client_id: 'app-1', mode: 'oauth' },
        secrets: { client_secret: 'cs-secret-1', api_key: 'ak-secret-2' },
      });
      expect(await result).toMatchObject({ failure: 'blocked_address' });
      expect(t.sent).toHaveLength(1);
    });

    it('shows no secret the template put in a host it refuses', async () => {
      const template = steered('https://{{ next }}.{{ acct }}.example/chat', { 'x-api-key': '{{ acct }}' });
      const refused = await run(template, [steer('evil'), chat('never')], {
        secrets: { client_secret: 'cs-secret-1', acct: 'AcctSecret99' },
      }).result;
      expect(refused).toMatchObject({ failure: 'blocked_address' });
      expect(refused.error).toContain('https://evil.[redacted].example');
      expect(refused.error?.toLowerCase()).not.toContain('acctsecret99');
    });

    it('keeps the origin of a url that takes only its path or query from an answer', async () => {
      const template = steered('{{ api }}/v1/{{ next }}/chat?t={{ next }}', { 'x-api-key': '{{ client_secret }}' });
      const api = { inputs: { client_id: 'app-1', api: 'https://llm.example' } };
      const { t, result } = run(template, [steer('acme'), chat('hello')], api);
      expect(await result).toMatchObject({ content: 'hello', failure: null });
      expect(t.sent[1].url).toBe('https://llm.example/v1/acme/chat?t=acme');
      // An answer's object read by property keeps the origin too.
      const byProperty = steered(
        '{{ api }}/v1/{{ tok.tenant }}/chat',
        { 'x-api-key': '{{ client_secret }}' },
        {
          tok: '{{ response.json() }}',
        },
      );
      const r1 = await run(byProperty, [() => json(200, { tenant: 'acme', n: 1 }), chat('hi')], api).result;
      expect(r1).toMatchObject({ content: 'hi', failure: null });
      // The same answer cannot move the host: "evil.example#" makes the url another origin.
      const moved = steered('https://{{ next }}.llm.example/chat', { 'x-api-key': '{{ client_secret }}' });
      const { t: t2, result: r2 } = run(moved, [steer('evil.example#'), chat('never')]);
      expect(await r2).toMatchObject({ failure: 'blocked_address' });
      expect(t2.sent).toHaveLength(1);
    });
  });
});
