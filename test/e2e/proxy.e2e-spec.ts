import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { EARLY_REFUSAL_HOLD_MS } from '../../apps/gateway/src';
import { TenantGate } from '../../apps/gateway/src/proxy/tenant-gate';
import Anthropic from '@anthropic-ai/sdk';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { signDevToken } from '@bastion/auth';
import { waitFor } from '@bastion/testing';
import { MockUpstream } from '../support/mock-upstream';
import { startProjectsService } from '../support/projects';
import { startPromptsService } from '../support/prompts';
import { startProvidersService } from '../support/providers';
import { startProxyService } from '../support/proxy';
import { http, startGateway, untilStatus } from '../support/stack';
import { MOCK_ANTHROPIC_KEY, tenantOnMock } from '../support/tenant';

const ANTHROPIC_KEY = MOCK_ANTHROPIC_KEY;
const MODEL = 'claude-test';

/**
 * The message proxy end to end: the official Anthropic SDK, pointed at the gateway, talking to a
 * local mock that speaks Anthropic's JSON and SSE, through real providers, projects and prompts.
 */
// Starting services and the gateway takes more than jest's default 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('message proxy through the gateway with the Anthropic SDK', () => {
  let upstream: MockUpstream;
  let services: INestMicroservice[];
  let prompts: INestMicroservice | undefined;
  let gateway: INestApplication;
  let base: string;

  beforeAll(async () => {
    upstream = await new MockUpstream().start();
    prompts = await startPromptsService();
    services = [
      await startProvidersService({ OUTBOUND_ALLOWLIST: '127.0.0.1' }),
      await startProjectsService(),
      await startProxyService({
        OUTBOUND_ALLOWLIST: '127.0.0.1',
        STREAM_HOLDBACK_CHARS: '32',
        // Far above the slowest answer a test expects (1 s) and the time the tenant-queue test holds
        // calls upstream, and below the answer that must time out (15 s).
        UPSTREAM_TIMEOUT_MS: '10000',
      }),
    ];
    ({ app: gateway, url: base } = await startGateway());
  });

  afterAll(async () => {
    await gateway?.close();
    for (const s of services ?? []) await s.close();
    await prompts?.close();
    await upstream?.stop();
  });

  beforeEach(() => {
    upstream.reply = undefined;
    upstream.streamDelayMs = 2;
    upstream.answerDelayMs = 0;
    upstream.hold = undefined;
  });

  /** A tenant with an Anthropic provider on the mock, a live project, and a project-scoped SDK client. */
  async function setup(
    options: {
      mode?: 'block' | 'redact' | 'audit';
      direction?: 'request' | 'response' | 'both';
      live?: boolean;
      limits?: object;
    } = {},
  ) {
    const attachScanner = async ({ admin, projectId }: { admin: string; projectId: string }) => {
      const scanner = await http(base, 'POST', '/backend/v1/scanners', {
        auth: admin,
        body: {
          name: 'no-passwords',
          config: { type: 'regex', patterns: ['hunter2', 'swordfish'] },
          direction: options.direction ?? 'both',
        },
      });
      expect(scanner.status).toBe(200);
      const attach = await http(base, 'POST', `/backend/v1/projects/${projectId}/scanners`, {
        auth: admin,
        body: {
          id: scanner.body.id,
          mode: options.mode ?? 'block',
          blocking: true,
          enabled: true,
          direction: options.direction ?? 'both',
        },
      });
      expect(attach.status).toBeLessThan(300);
    };
    const { tenant, admin, projectId, providerId, key } = await tenantOnMock(base, upstream, {
      project: 'guarded',
      model: MODEL,
      live: options.live,
      provider: options.limits as Record<string, unknown> | undefined,
      beforeLive: attachScanner,
    });
    const client = new Anthropic({ baseURL: `${base}/vendor/claude`, apiKey: key, maxRetries: 0 });
    return { tenant, admin, projectId, client, providerId, key };
  }

  const ask = (client: Anthropic, content: string) =>
    client.messages.create({ model: MODEL, max_tokens: 64, messages: [{ role: 'user', content }] });

  /** A prompt sent to `project` and stored, then a template made from it: the template as answered. */
  async function templateOfPrompt(admin: string, name: string, input: string, project: string) {
    const sent = await http(base, 'POST', '/backend/v1/prompts', {
      auth: admin,
      body: { input, provider: 'claude', project },
    });
    expect(sent.status).toBe(200);
    await untilStatus(
      200,
      () => http(base, 'GET', `/backend/v1/prompts/${sent.body.id}`, { auth: admin }),
      `prompt ${sent.body.id} stored`,
    );
    const made = await http(base, 'POST', '/backend/v1/prompts/templates', {
      auth: admin,
      body: { name, promptId: sent.body.id },
    });
    expect(made.status).toBe(200);
    return made.body.promptTemplate;
  }

  async function recorded(admin: string, count: number, timeoutMs = 15_000) {
    return waitFor(
      async () => {
        const res = await http(base, 'GET', '/backend/v1/prompts?limit=100', { auth: admin });
        return res.body.prompts?.length >= count ? res.body.prompts : undefined;
      },
      timeoutMs,
      `${count} recorded prompts`,
    );
  }

  it('answers a normal request as Anthropic would, and records it once with its scanner results', async () => {
    const { client, admin } = await setup();
    const answer = await ask(client, 'hello there');
    expect(answer.content).toEqual([{ type: 'text', text: 'echo: hello there' }]);
    expect(answer.role).toBe('assistant');
    expect(upstream.requests.at(-1)?.headers['x-api-key']).toBe(ANTHROPIC_KEY);
    const [prompt] = await recorded(admin, 1);
    expect(prompt).toMatchObject({
      provider: 'claude',
      input: 'hello there',
      type: 'prompt',
      result: { outcome: 'cleared', response: 'echo: hello there', providerResult: { statusCode: 200 } },
    });
    expect(
      prompt.result.scannerResults.map((r: { scanDirection: string; outcome: string }) => [r.scanDirection, r.outcome]),
    ).toEqual([
      ['request', 'passed'],
      ['response', 'passed'],
    ]);
  });

  it('blocks a request before anything is sent: a BadRequestError carrying cai_error', async () => {
    const { client, admin } = await setup();
    const before = upstream.requests.length;
    const err = await ask(client, 'my password is hunter2').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (err as InstanceType<typeof Anthropic.BadRequestError>).error as {
      error: { type: string; cai_error: { outcome: string; scanner_results: { outcome: string }[] } };
    };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.cai_error.outcome).toBe('blocked');
    expect(body.error.cai_error.scanner_results.some((r) => r.outcome === 'failed')).toBe(true);
    expect(upstream.requests.length).toBe(before);
    const [prompt] = await recorded(admin, 1);
    expect(prompt.result).toMatchObject({ outcome: 'blocked', response: null, providerResult: null });
  });

  it('blocks a response that matches, and redacts in redact mode both ways', async () => {
    const blocking = await setup();
    upstream.reply = () => 'the password is swordfish';
    await expect(ask(blocking.client, 'tell me')).rejects.toBeInstanceOf(Anthropic.BadRequestError);

    const redacting = await setup({ mode: 'redact' });
    upstream.reply = undefined;
    const answer = await ask(redacting.client, 'my password is hunter2, ok');
    const sent = JSON.parse(upstream.requests.at(-1)!.body);
    expect(sent.messages[0].content).toBe('my password is *******, ok');
    expect(answer.content[0]).toMatchObject({ text: 'echo: my password is *******, ok' });
    upstream.reply = () => 'it is swordfish';
    expect((await ask(redacting.client, 'x')).content[0]).toMatchObject({ text: 'it is *********' });
    const prompts = await recorded(redacting.admin, 2);
    expect(prompts.map((p: { result: { outcome: string } }) => p.result.outcome)).toEqual(['redacted', 'redacted']);
  });

  it('only flags in audit mode and in a draft project', async () => {
    const audit = await setup({ mode: 'audit' });
    expect((await ask(audit.client, 'hunter2')).content[0]).toMatchObject({ text: 'echo: hunter2' });
    const draft = await setup({ live: false });
    expect((await ask(draft.client, 'hunter2')).content[0]).toMatchObject({ text: 'echo: hunter2' });
    for (const admin of [audit.admin, draft.admin])
      expect((await recorded(admin, 1))[0].result.outcome).toBe('flagged');
  });

  it('streams with scanning on: clean text arrives whole, a block mid-stream ends it before the blocked text', async () => {
    const { client, admin } = await setup({ direction: 'response' });
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'a clean question that is long enough to stream in parts' }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]).toMatchObject({ text: 'echo: a clean question that is long enough to stream in parts' });

    upstream.reply = () =>
      'Sure. Here is a long preamble before the secret, and the secret is hunter2 which must never arrive.';
    const blocked = client.messages.stream({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'go' }],
    });
    let seen = '';
    blocked.on('text', (t) => (seen += t));
    await expect(blocked.finalMessage()).rejects.toThrow(/blocked by a guardrail/);
    expect(seen).not.toContain('hunter2');
    expect(seen.length).toBeGreaterThan(0);
    const prompts = await recorded(admin, 2);
    expect(prompts.map((p: { result: { outcome: string } }) => p.result.outcome).sort()).toEqual([
      'blocked',
      'cleared',
    ]);
  });

  it('records a stream the client walked away from', async () => {
    const { client, admin } = await setup();
    upstream.streamDelayMs = 50;
    upstream.reply = () => 'word '.repeat(40);
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'talk slowly' }],
    });
    const ended = stream.done().catch((e: unknown) => e);
    await new Promise<void>((resolve) => stream.on('text', () => resolve()));
    stream.abort();
    expect(await ended).toBeInstanceOf(Anthropic.APIUserAbortError);
    const [prompt] = await recorded(admin, 1);
    expect(prompt.input).toBe('talk slowly');
  });

  it("accepts the project token as Bearer and as x-api-key; refuses a bad one in Anthropic's shape", async () => {
    const { key } = await setup();
    const viaBearer = new Anthropic({ baseURL: `${base}/vendor/claude`, authToken: key, apiKey: null, maxRetries: 0 });
    expect((await ask(viaBearer, 'bearer')).content[0]).toMatchObject({ text: 'echo: bearer' });
    const bad = new Anthropic({ baseURL: `${base}/vendor/claude`, apiKey: 'not-a-token', maxRetries: 0 });
    await expect(ask(bad, 'x')).rejects.toBeInstanceOf(Anthropic.AuthenticationError);
  });

  it("answers 404 for an unknown provider and 400 for a malformed body, in Anthropic's shape", async () => {
    const { key } = await setup();
    const unknown = new Anthropic({ baseURL: `${base}/vendor/nope`, apiKey: key, maxRetries: 0 });
    await expect(ask(unknown, 'x')).rejects.toBeInstanceOf(Anthropic.NotFoundError);
    const res = await http(base, 'POST', '/vendor/claude/v1/messages', {
      auth: `Bearer ${key}`,
      body: { model: MODEL, messages: [] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
  });

  it('enforces the provider rate limit with 429 and Retry-After', async () => {
    const { key } = await setup({ limits: { maxRequestsPerSecond: 1 } });
    const call = () =>
      http(base, 'POST', '/vendor/claude/v1/messages', {
        auth: `Bearer ${key}`,
        body: { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] },
      });
    // Three at once against a bucket of one request a second: one goes through, the others find it
    // empty. (Not one after the other: a stall of a second between them would refill the bucket.)
    const started = performance.now();
    const answers = await Promise.all([call(), call(), call()]);
    const seconds = (performance.now() - started) / 1000;
    const statuses = answers.map((a) => a.status);
    expect(statuses).toContain(200);
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // One, unless the three took a second or more: the limiter's bound is r x (1 + T + 0.1) in T seconds.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(Math.floor(1 + seconds + 0.1));
    const limited = answers.filter((a) => a.status === 429);
    for (const refused of limited) {
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(refused.body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    }
  });

  it('waits for a JSON answer longer than the gateway RPC timeout: the proxy pings while the model works', async () => {
    const { client } = await setup();
    // A gateway that gives any service 300 ms; the model answers after 1 s (well within UPSTREAM_TIMEOUT_MS, 10 s).
    const strict = await startGateway(undefined, { RPC_TIMEOUT_MS: '300' });
    try {
      upstream.answerDelayMs = 1000;
      const slowClient = client.withOptions({ baseURL: `${strict.url}/vendor/claude` });
      const started = Date.now();
      const msg = await slowClient.messages.create({
        model: MODEL,
        max_tokens: 32,
        messages: [{ role: 'user', content: 'hello' }],
      });
      expect(msg.content[0]).toMatchObject({ type: 'text' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    } finally {
      await strict.app.close();
    }
  });

  it('answers 504 when the provider is too slow and 502 when it cannot be reached, and records both', async () => {
    const { admin, key } = await setup();
    // The provider says nothing, not even its headers, for longer than UPSTREAM_TIMEOUT_MS (10 s).
    upstream.answerDelayMs = 15_000;
    // JSON and stream side by side: one timeout's wait, not two.
    const slow = await Promise.all(
      [false, true].map((stream) =>
        http(base, 'POST', '/vendor/claude/v1/messages', {
          auth: `Bearer ${key}`,
          body: { model: MODEL, max_tokens: 8, stream, messages: [{ role: 'user', content: 'x' }] },
        }),
      ),
    );
    for (const res of slow) {
      expect(res.status).toBe(504);
      expect(res.body).toMatchObject({ type: 'error', error: { type: expect.any(String) } });
    }
    upstream.answerDelayMs = 0;
    // Moving a provider takes its secrets sent again (they are bound to where they go).
    const moved = await http(base, 'PATCH', '/backend/v1/providers/claude', {
      auth: admin,
      body: { inputs: { baseUrl: 'http://127.0.0.1:9' }, secrets: { apiKey: ANTHROPIC_KEY } },
    });
    expect(moved.status).toBe(200);
    await untilStatus(
      502,
      () =>
        http(base, 'POST', '/vendor/claude/v1/messages', {
          auth: `Bearer ${key}`,
          body: { model: MODEL, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] },
        }),
      'the provider change to reach the proxy (502)',
    );
  }, 60_000);

  it('takes a request with a large text on the bulk lane, through the same access rules, guard and record', async () => {
    // This suite's proxy answers every lane (PROXY_LANE=all); this gateway sends texts of 1,000+ characters on the bulk lane.
    const bulkGateway = await startGateway(undefined, { PROXY_BULK_FROM_CHARS: '1000' });
    try {
      const { admin, key } = await setup();
      const client = new Anthropic({ apiKey: key, baseURL: `${bulkGateway.url}/vendor/claude`, maxRetries: 0 });
      const long = 'tell me more '.repeat(100);
      const answer = await ask(client, long);
      expect(answer.content).toEqual([{ type: 'text', text: `echo: ${long}` }]);
      const blocked = await ask(client, `${long} my password is hunter2`).catch((e: unknown) => e);
      expect(blocked).toBeInstanceOf(Anthropic.BadRequestError);
      const prompts = await recorded(admin, 2);
      expect(prompts.map((p: { result: { outcome: string } }) => p.result.outcome).sort()).toEqual([
        'blocked',
        'cleared',
      ]);
    } finally {
      await bulkGateway.app.close();
    }
  });

  it('sends prompts and scans through the backend API', async () => {
    const { admin, projectId } = await setup();
    const sent = await http(base, 'POST', '/backend/v1/prompts', {
      auth: admin,
      body: { input: 'what is up', provider: 'claude', project: projectId, externalMetadata: { ticket: 7 } },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({
      input: 'what is up',
      externalMetadata: { ticket: 7 },
      result: { outcome: 'cleared', response: 'echo: what is up' },
    });
    const blockedPrompt = await http(base, 'POST', '/backend/v1/prompts', {
      auth: admin,
      body: { input: 'hunter2', provider: 'claude', project: projectId },
    });
    expect(blockedPrompt.body.result).toMatchObject({ outcome: 'blocked', response: null, providerResult: null });
    const scan = await http(base, 'POST', '/backend/v1/scans', {
      auth: admin,
      body: { input: 'is swordfish ok?', project: projectId, scanDirection: 'request' },
    });
    expect(scan.status).toBe(200);
    expect(scan.body).toMatchObject({ type: 'scan', result: { outcome: 'blocked' } });
    const prompts = await recorded(admin, 3);
    expect(prompts).toHaveLength(3);
  });

  it("sends a prompt from a template of the prompt's own project only: another project's is not found", async () => {
    const { tenant, admin, projectId: a, key } = await setup();
    const other = await http(base, 'POST', '/backend/v1/projects', { auth: admin, body: { name: 'other' } });
    const b = (other.body.id ?? other.body.project?.id) as string;
    const made = await templateOfPrompt(admin, 'plans', 'the plans of project B', b);
    expect(made.projectId).toBe(b);
    const theirs = made.id as string;
    const missing = randomUUID();
    const fromTemplate = (auth: string, promptTemplateId: string, project?: string) =>
      http(base, 'POST', '/backend/v1/prompts', {
        auth,
        body: { provider: 'claude', promptTemplateId, ...(project ? { project } : {}) },
      });
    const before = upstream.requests.length;
    for (const [auth, project] of [
      [`Bearer ${key}`, a],
      [`Bearer ${key}`, undefined],
      [admin, a],
    ] as const) {
      const refused = await fromTemplate(auth, theirs, project);
      expect({ status: refused.status, body: refused.body }).toEqual({
        status: 404,
        body: { detail: `prompt template ${theirs} not found` },
      });
      const unknown = await fromTemplate(auth, missing, project);
      expect({ status: unknown.status, body: unknown.body }).toEqual({
        status: 404,
        body: { detail: `prompt template ${missing} not found` },
      });
    }
    expect(upstream.requests.length).toBe(before);
    // In its own project the template sends, named by id or by name, or taken from the template.
    for (const project of [b, 'other', undefined]) {
      const ok = await fromTemplate(admin, theirs, project);
      expect(ok.status).toBe(200);
      expect(ok.body).toMatchObject({ input: 'the plans of project B', projectId: b });
    }
    // A token scoped to project B by its name, or by its id in capitals, sends from it too.
    for (const scope of ['other', b.toUpperCase()]) {
      const scoped = `Bearer ${signDevToken({ tenant, roles: ['member'], project: scope })}`;
      const ok = await fromTemplate(scoped, theirs);
      expect({ status: ok.status, projectId: ok.body.projectId }).toEqual({ status: 200, projectId: b });
    }
  });

  it('answers a project key that names another project as it answers one naming no project: 404', async () => {
    const { admin, projectId: a, key } = await setup();
    const other = await http(base, 'POST', '/backend/v1/projects', { auth: admin, body: { name: 'other' } });
    const b = (other.body.id ?? other.body.project?.id) as string;
    const auth = `Bearer ${key}`;
    const before = upstream.requests.length;
    for (const [theirs, none] of [
      [b, randomUUID()],
      ['other', 'no-such-project'],
    ]) {
      for (const [path, body] of [
        ['/backend/v1/prompts', { input: 'hi', provider: 'claude' }],
        ['/backend/v1/scans', { input: 'hi' }],
      ] as const) {
        const [seen, missing] = await Promise.all(
          [theirs, none].map((project) => http(base, 'POST', path, { auth, body: { ...body, project } })),
        );
        expect([path, seen.status, seen.body]).toEqual([path, 404, { detail: `project ${theirs} not found` }]);
        expect([path, missing.status, missing.body]).toEqual([path, 404, { detail: `project ${none} not found` }]);
      }
    }
    expect(upstream.requests.length).toBe(before);
    // Its own project it may name by id or by name.
    for (const project of [a, 'guarded']) {
      const own = await http(base, 'POST', '/backend/v1/scans', { auth, body: { input: 'hi', project } });
      expect([project, own.status, own.body.projectId]).toEqual([project, 200, a]);
    }
  });

  /** Runs `test` against a gateway of its own with these settings, and two tenants (A and B) set up. */
  async function withGatewayOf(
    env: Record<string, string>,
    test: (
      url: string,
      a: Awaited<ReturnType<typeof setup>>,
      b: Awaited<ReturnType<typeof setup>>,
      app: INestApplication,
    ) => Promise<void>,
  ): Promise<void> {
    const { app, url } = await startGateway(undefined, env);
    try {
      await test(url, await setup(), await setup(), app);
    } finally {
      await app.close();
    }
  }

  it("queues a tenant's model calls past its bytes in flight behind its own, never in front of another tenant's", async () => {
    // A gateway that lets a tenant have 1 KB of bodies in flight and one call waiting.
    await withGatewayOf({ MODEL_CALL_TENANT_BYTES: '1024', MODEL_CALL_TENANT_QUEUE: '1' }, async (url, a, b, app) => {
      // The upstream holds every call until the test lets them go, so the order below is made by
      // what each step sees (the upstream's requests, the gate's queue), not by timers.
      let release!: () => void;
      upstream.hold = new Promise<void>((r) => (release = r));
      const gate = app.get(TenantGate);
      const body = (content: string) => ({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content }] });
      const call = (key: string, content: string) =>
        http(url, 'POST', '/vendor/claude/v1/messages', {
          auth: `Bearer ${key}`,
          body: body(content.padEnd(700, '.')),
        });
      const arrived = (content: string) =>
        upstream.requests.findIndex((r) => r.url.startsWith('/v1/messages') && r.body.includes(content));
      const calls: Promise<Awaited<ReturnType<typeof call>>>[] = [];
      try {
        calls.push(call(a.key, 'first of a'));
        await waitFor(() => (arrived('first of a') >= 0 ? true : undefined), 15_000, "A's first call upstream");
        calls.push(call(a.key, 'second of a'));
        await waitFor(() => (gate.load(a.tenant).waiting === 1 ? true : undefined), 15_000, "A's second call queued");
        // A's third finds the waiting room (one call) full: a 429 in Anthropic's shape, at once.
        const a3 = await call(a.key, 'third of a');
        expect(a3.status).toBe(429);
        expect(a3.body).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
        // B's call goes straight through to the upstream while A's first runs and its second waits.
        let b1Settled = false;
        calls.push(call(b.key, 'first of b').finally(() => (b1Settled = true)));
        await waitFor(
          () => (arrived('first of b') >= 0 || b1Settled ? true : undefined),
          15_000,
          "B's call upstream or answered",
        );
        expect(arrived('first of b')).toBeGreaterThanOrEqual(0);
        expect(gate.load(a.tenant)).toMatchObject({ running: 1, waiting: 1 });
        expect(arrived('second of a')).toBe(-1);
      } finally {
        release();
      }
      // Let go, A's first answers and only then does its second go on.
      const [a1, a2, b1] = await Promise.all(calls);
      expect([a1.status, a2.status, b1.status]).toEqual([200, 200, 200]);
      expect(arrived('second of a')).toBeGreaterThan(arrived('first of b'));
    });
  });

  it('refuses a tenant over its byte rate before reading its body, in the route error shape, and only that tenant', async () => {
    // 1,024 bytes a second with 1,024 at once: a call of 12,000 bytes leaves its tenant owing about 11 s.
    const rate = { MODEL_CALL_TENANT_BYTES_PER_SECOND: '1024', MODEL_CALL_TENANT_BURST_BYTES: '1024' };
    await withGatewayOf(rate, async (url, a, b) => {
      const big = { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'x'.repeat(12_000) }] };
      const first = await http(url, 'POST', '/vendor/claude/v1/messages', { auth: `Bearer ${a.key}`, body: big });
      expect(first.status).toBe(200);
      // Headers and 10 bytes of a body said to be 100,000 bytes long: the answer comes without the
      // rest, held a while (the body unread), and the gateway closes the connection after it.
      const { port } = new URL(url);
      const partial = (path: string, auth: string) =>
        new Promise<{ text: string; ms: number }>((resolve, reject) => {
          const started = performance.now();
          const socket = connect(Number(port), '127.0.0.1', () => {
            socket.write(
              `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${auth}\r\n` +
                `content-type: application/json\r\ncontent-length: 100000\r\n\r\n{"input":`,
            );
          });
          let text = '';
          socket.on('data', (chunk) => (text += chunk.toString()));
          socket.on('end', () => resolve({ text, ms: performance.now() - started }));
          socket.on('error', reject);
          socket.setTimeout(5000, () => {
            socket.destroy();
            reject(new Error(`the connection stayed open, or no answer before the body was sent: ${text}`));
          });
        });
      const { text: vendor, ms } = await partial('/vendor/claude/v1/messages', `Bearer ${a.key}`);
      expect(ms).toBeGreaterThanOrEqual(EARLY_REFUSAL_HOLD_MS - 50);
      expect(vendor).toMatch(/^HTTP\/1\.1 429/);
      expect(vendor).toMatch(/connection: close/i);
      expect(vendor).toMatch(/retry-after: [1-9]/i);
      expect(vendor).toMatch(/x-request-id: \S+/i);
      expect(vendor).toContain('"rate_limit_error"');
      // A client that keeps writing a body of 8 MB (above the body limit: refused before that is
      // checked) is stopped by the unread socket: it gets its 429 or a reset, having sent a part.
      const flood = await new Promise<{ text: string; sent: number; error?: string }>((resolve) => {
        const size = 8_000_000;
        const chunk = Buffer.alloc(64 * 1024, 'a');
        let text = '';
        let sent = 0;
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /vendor/claude/v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${a.key}\r\n` +
              `content-type: application/json\r\ncontent-length: ${size}\r\n\r\n`,
          );
          const pump = () => {
            while (sent < size && !socket.destroyed) {
              sent += chunk.length;
              if (!socket.write(chunk)) return void socket.once('drain', pump);
            }
          };
          pump();
        });
        socket.on('data', (d) => (text += d.toString()));
        socket.on('close', () => resolve({ text, sent: socket.bytesWritten }));
        socket.on('error', (err: NodeJS.ErrnoException) =>
          resolve({ text, sent: socket.bytesWritten, error: err.code }),
        );
        socket.setTimeout(10_000, () => socket.destroy());
      });
      expect(flood.sent).toBeLessThan(8_000_000);
      if (flood.text) expect(flood.text).toMatch(/^HTTP\/1\.1 429/);
      else expect(['ECONNRESET', 'EPIPE']).toContain(flood.error);
      // A client that leaves during the hold: nothing is answered to it, and the gateway goes on.
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () => {
          socket.write(
            `POST /vendor/claude/v1/messages HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${a.key}\r\n` +
              `content-type: application/json\r\ncontent-length: 100000\r\n\r\n{"model":`,
          );
          setTimeout(() => socket.destroy(), 50);
        });
        socket.on('close', () => setTimeout(resolve, EARLY_REFUSAL_HOLD_MS + 200));
        socket.on('error', reject);
      });
      const { text: scans } = await partial('/backend/v1/scans', `Bearer ${a.key}`);
      expect(scans).toMatch(/^HTTP\/1\.1 429/);
      expect(scans).toContain('bytes a second of model-call bodies');
      // Another tenant's call goes through.
      const other = await http(url, 'POST', '/vendor/claude/v1/messages', {
        auth: `Bearer ${b.key}`,
        body: { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      });
      // The body too, so that a failure says what answered (one CI run saw a 404 here).
      expect({ status: other.status, body: other.body }).toMatchObject({ status: 200 });
    });
  });

  it('passes text beyond ASCII on as the bytes received, JSON and stream, and records it as sent', async () => {
    const { client, admin, key } = await setup();
    const text = 'héllo 日本語 😀 \u2028 "quoted" \\ end';
    const answer = await ask(client, text);
    expect(answer.content).toEqual([{ type: 'text', text: `echo: ${text}` }]);
    expect(JSON.parse(upstream.requests.at(-1)!.body).messages[0].content).toBe(text);
    // "stream" after the multi-byte text: the gateway finds the flag in the bytes as sent.
    const raw = `{"model":"${MODEL}","max_tokens":64,"messages":[{"role":"user","content":${JSON.stringify(text)}}],"stream":true}`;
    const res = await fetch(`${base}/vendor/claude/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: Buffer.from(raw),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const deltas = [...(await res.text()).matchAll(/"text_delta","text":("(?:[^"\\]|\\.)*")/g)].map((m) =>
      JSON.parse(m[1]),
    );
    expect(deltas.join('')).toBe(`echo: ${text}`);
    const prompts = await recorded(admin, 2);
    expect(prompts.map((p: { input: string }) => p.input)).toEqual([text, text]);
  });

  it('answers 400, not 500, to a model call with no body and no content type', async () => {
    const { key } = await setup();
    for (const route of ['/vendor/claude/v1/messages', '/openai/claude/chat/completions']) {
      const res = await fetch(`${base}${route}`, { method: 'POST', headers: { authorization: `Bearer ${key}` } });
      expect([route, res.status]).toEqual([route, 400]);
    }
  });

  it("refuses, in Anthropic's shape, a body under the body limit that is too large for one NATS message", async () => {
    const { key } = await setup();
    // Just under the gateway's 1 MiB body limit: with its envelope, over NATS's 1 MiB max_payload.
    const content = 'x'.repeat(1_048_576 - 200);
    const res = await http(base, 'POST', '/vendor/claude/v1/messages', {
      auth: `Bearer ${key}`,
      body: { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content }] },
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(res.body.error.message).toMatch(/too large to pass on/);
  });

  it('answers a prompt from a template 503 with Retry-After while the prompts service is down, and sends nothing upstream', async () => {
    const { admin, projectId } = await setup();
    const templateId = (await templateOfPrompt(admin, 'weekly', 'the weekly report', projectId)).id as string;
    const fromTemplate = () =>
      http(base, 'POST', '/backend/v1/prompts', {
        auth: admin,
        body: { provider: 'claude', promptTemplateId: templateId },
      });
    await prompts?.close();
    prompts = undefined;
    const before = upstream.requests.length;
    const down = await fromTemplate();
    expect({ status: down.status, detail: typeof down.body.detail }).toEqual({ status: 503, detail: 'string' });
    expect(Number(down.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(upstream.requests.length).toBe(before);
    prompts = await startPromptsService();
    const back = await untilStatus(
      200,
      fromTemplate,
      'a prompt from the template once the prompts service is back',
      30_000,
    );
    expect(back.body).toMatchObject({ input: 'the weekly report', projectId });
  }, 60_000);

  it('keeps every record while the prompts service is down and stores each once when it returns', async () => {
    const { client, admin } = await setup();
    await prompts?.close();
    prompts = undefined;
    for (let i = 0; i < 3; i++) await ask(client, `while down ${i}`);
    prompts = await startPromptsService();
    // The restarted service first takes what waited in the stream: on a loaded machine, seconds.
    const stored = await recorded(admin, 3, 30_000);
    expect(stored.map((p: { input: string }) => p.input).sort()).toEqual([
      'while down 0',
      'while down 1',
      'while down 2',
    ]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await http(base, 'GET', '/backend/v1/prompts?limit=100', { auth: admin })).body.prompts).toHaveLength(3);
  }, 60_000);
});
