import { randomUUID } from 'node:crypto';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { PROVIDERS_STREAM, ProviderChangedEvent, ProviderEvents } from '@bastion/contracts';
import { connectNats, DurableConsumer } from '@bastion/messaging';
import { bearer, uniqueTenant, waitFor, testNatsLogin } from '@bastion/testing';
import type { NatsConnection } from '@nats-io/transport-node';
import { Client } from 'pg';
import { MockUpstream } from '../support/mock-upstream';
import { startProvidersService } from '../support/providers';
import { http, quietLogger, startGateway, testEnv } from '../support/stack';

const P = '/backend/v1/providers';
const GOOD_KEY = 'sk-test-good-key-123456';

/** An OpenAI-style chat request template to `url`, the key as a bearer token. */
const chatTemplate = (url: string) => ({
  type: 'request',
  method: 'POST',
  url,
  headers: { Authorization: 'Bearer {{ apiKey }}' },
  outputs: { content: '{{ response.json()?.choices?.[0]?.message?.content }}' },
});

// Starting services and the gateway takes more than jest's default 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('providers through the gateway', () => {
  let service: INestMicroservice;
  let gateway: INestApplication;
  let base: string;
  let upstream: MockUpstream;
  let nc: NatsConnection;
  let db: Client;

  beforeAll(async () => {
    upstream = await new MockUpstream().start();
    // Tests expect the mock's real answers: a loaded machine must not turn one into a timeout. The
    // timeout test sets its own (0.5 s, under this cap) against an endpoint that answers after 3 s.
    service = await startProvidersService({ OUTBOUND_ALLOWLIST: '127.0.0.1', PROVIDER_TEST_TIMEOUT_MS: '10000' });
    ({ app: gateway, url: base } = await startGateway());
    nc = await connectNats(testNatsLogin(), { name: 'e2e-providers' });
    db = new Client({ connectionString: testEnv().DATABASE_URL });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await nc?.close();
    await gateway?.close();
    await service?.close();
    await upstream?.stop();
  });

  it('lists the system catalog and gets one by name or id', async () => {
    const auth = bearer(uniqueTenant(), 'viewer');
    const list = await http(base, 'GET', `${P}/system`, { auth });
    expect(list.status).toBe(200);
    const names = list.body.providers.map((p: { name: string }) => p.name);
    expect(names).toEqual(
      expect.arrayContaining(['anthropic', 'openai', 'azure-openai', 'aws-bedrock', 'oci-genai', 'generic-http']),
    );
    const openai = await http(base, 'GET', `${P}/system/openai`, { auth });
    expect(openai.body.provider).toMatchObject({
      name: 'openai',
      capabilities: ['chat'],
      inputs: { baseUrl: 'https://api.openai.com' },
      secretNames: ['apiKey'],
    });
    const byId = await http(base, 'GET', `${P}/system/${openai.body.provider.id}`, { auth });
    expect(byId.body.provider.name).toBe('openai');
    expect((await http(base, 'GET', `${P}/system/nope`, { auth })).status).toBe(404);
  });

  it('creates a provider from a system provider, stores the key encrypted and shows it masked', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'admin');
    const created = await http(base, 'POST', P, {
      auth,
      body: {
        name: 'openai-prod',
        systemProvider: 'openai',
        inputs: { baseUrl: upstream.url },
        secrets: { apiKey: GOOD_KEY },
      },
    });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const got = await http(base, 'GET', `${P}/openai-prod`, { auth });
    expect(got.body.provider).toMatchObject({
      id: created.body.id,
      name: 'openai-prod',
      type: 'openai',
      systemProviderId: expect.any(String),
      inputs: { baseUrl: upstream.url, model: 'gpt-4o-mini' },
      secrets: { apiKey: '****3456' },
      capabilities: ['chat'],
      availability: { global: true, projectIds: [] },
      maxRequestsPerSecond: 50,
      requestConcurrencyLimit: { requests: 20, decayPerSecond: 5 },
      redTeam: false,
      siem: false,
      hasLogo: false,
      authTemplate: null,
      projectId: null,
    });
    const asMember = await http(base, 'GET', `${P}/${created.body.id}`, { auth: bearer(tenant, 'member') });
    expect(asMember.body.provider.secrets).toEqual({ apiKey: '********' });
    const { rows } = await db.query('SELECT secrets FROM providers.providers WHERE id = $1', [created.body.id]);
    expect(rows[0].secrets).toMatch(/^v1\.dev\./);
    expect(rows[0].secrets).not.toContain(GOOD_KEY);
  });

  it('keeps a secret sent back masked, replaces it when changed, and publishes each change', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'admin');
    const seen: ProviderChangedEvent[] = [];
    const consumer = await DurableConsumer.start(nc, {
      stream: PROVIDERS_STREAM,
      durable: `e2e-prov-${randomUUID().slice(0, 8)}`,
      startAt: 'new',
      subjects: [ProviderEvents.changed],
      payload: ProviderChangedEvent,
      logger: quietLogger('e2e'),
      handler: async (e) => void (e.tenant === tenant && seen.push(e)),
    });
    try {
      const { body } = await http(base, 'POST', P, {
        auth,
        body: { name: 'p', systemProvider: 'openai', secrets: { apiKey: GOOD_KEY } },
      });
      const round = (await http(base, 'GET', `${P}/p`, { auth })).body.provider;
      // Secrets are bound to where they go: moving the provider with the masked secret is refused.
      const moved = await http(base, 'PATCH', `${P}/p`, {
        auth,
        body: { secrets: round.secrets, inputs: { baseUrl: upstream.url } },
      });
      expect(moved.status).toBe(422);
      expect(moved.body.detail[0]).toMatchObject({ loc: ['body', 'secrets'], type: 'secrets.rebind_required' });
      expect(moved.body.detail[0].msg).toContain('changing inputs.baseUrl');
      const patched = await http(base, 'PATCH', `${P}/p`, {
        auth,
        body: { secrets: round.secrets, maxRequestsPerSecond: 5 },
      });
      expect(patched.status).toBe(200);
      expect(patched.body.provider).toMatchObject({ secrets: { apiKey: '****3456' }, maxRequestsPerSecond: 5 });
      const tested = await http(base, 'POST', `${P}/test`, {
        auth,
        body: { systemProvider: 'openai', inputs: { baseUrl: upstream.url }, secrets: { apiKey: GOOD_KEY } },
      });
      expect(tested.body.content).toBe('echo: Say hello.');
      await http(base, 'PATCH', `${P}/p`, { auth, body: { secrets: { apiKey: 'sk-rotated-key-99999999' } } });
      expect((await http(base, 'GET', `${P}/p`, { auth })).body.provider.secrets).toEqual({ apiKey: '****9999' });
      expect((await http(base, 'DELETE', `${P}/${body.id}`, { auth })).status).toBe(200);
      expect((await http(base, 'GET', `${P}/p`, { auth })).status).toBe(404);
      await waitFor(() => (seen.length === 4 ? true : undefined), 15_000, 'four change events');
      expect(seen.map((e) => e.change)).toEqual(['created', 'updated', 'updated', 'deleted']);
    } finally {
      await consumer.stop();
    }
  });

  it('pages through providers with cursors', async () => {
    const auth = bearer(uniqueTenant(), 'member');
    for (let i = 0; i < 5; i++)
      await http(base, 'POST', P, { auth, body: { name: `p${i}`, systemProvider: 'generic-http' } });
    const first = await http(base, 'GET', `${P}?limit=2`, { auth });
    expect(first.body.providers.map((p: { name: string }) => p.name)).toEqual(['p4', 'p3']);
    expect(first.body.prev).toBeNull();
    const second = await http(base, 'GET', `${P}?limit=2&cursor=${first.body.next}`, { auth });
    expect(second.body.providers.map((p: { name: string }) => p.name)).toEqual(['p2', 'p1']);
    const third = await http(base, 'GET', `${P}?limit=2&cursor=${second.body.next}`, { auth });
    expect(third.body.providers.map((p: { name: string }) => p.name)).toEqual(['p0']);
    expect(third.body.next).toBeNull();
    expect((await http(base, 'GET', `${P}?cursor=garbage`, { auth })).status).toBe(422);
    expect((await http(base, 'GET', `${P}?limit=1000`, { auth })).status).toBe(422);
  });

  it('tests a template against a reachable endpoint, showing the exchange with secrets redacted', async () => {
    const res = await http(base, 'POST', `${P}/test`, {
      auth: bearer(uniqueTenant(), 'member'),
      body: {
        template: {
          ...chatTemplate('{{ baseUrl }}/v1/chat/completions'),
          json: { model: '{{ model }}', messages: '{{ messages }}' },
        },
        inputs: { baseUrl: upstream.url, model: 'm' },
        secrets: { apiKey: GOOD_KEY },
        capability: 'chat',
        prompt: `my key is ${GOOD_KEY}`,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: 'echo: my key is [redacted]', error: null, statusCode: 200, files: [] });
    const exchange = res.body.requests.chat;
    expect(exchange.request).toMatchObject({
      method: 'POST',
      url: `${upstream.url}/v1/chat/completions`,
      headers: { authorization: 'Bearer [redacted]' },
    });
    expect(JSON.stringify(res.body)).not.toContain(GOOD_KEY);
    expect(exchange.response).toMatchObject({ statusCode: 200 });
    expect(upstream.requests.at(-1)?.headers.authorization).toBe(`Bearer ${GOOD_KEY}`);
  });

  it.each([
    [
      'a wrong key (401)',
      { systemProvider: 'openai', inputs: {}, secrets: { apiKey: 'sk-wrong-key-0000000' } },
      401,
      /401|Incorrect API key/,
    ],
    [
      'a refused connection',
      { systemProvider: 'generic-http', inputs: { baseUrl: 'http://127.0.0.1:9' } },
      null,
      /refused|unreachable|ECONNREFUSED/i,
    ],
    [
      "a timeout (the template's own)",
      { template: { type: 'request', method: 'GET', url: '{{ baseUrl }}/slow', timeout: 0.5 }, inputs: {} },
      null,
      /did not answer within 500 ms/,
    ],
  ])('answers 200 with error and statusCode for %s', async (_what, body, status, error) => {
    const inputs = { baseUrl: upstream.url, ...(body as { inputs: Record<string, string> }).inputs };
    const res = await http(base, 'POST', `${P}/test`, {
      auth: bearer(uniqueTenant(), 'member'),
      body: { ...body, inputs },
    });
    expect(res.status).toBe(200);
    expect(res.body.statusCode).toBe(status);
    expect(res.body.error).toMatch(error);
  });

  it('refuses the cloud metadata address with a clear error, before connecting', async () => {
    const res = await http(base, 'POST', `${P}/test`, {
      auth: bearer(uniqueTenant(), 'member'),
      body: {
        systemProvider: 'generic-http',
        inputs: { baseUrl: 'http://169.254.169.254', path: '/latest/meta-data/' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.statusCode).toBeNull();
    expect(res.body.error).toMatch(/169\.254\.169\.254/);
    // "refused", not a connect timeout: the address was refused before any connection was tried.
    expect(res.body.error).toMatch(/refused|not allowed|blocked/i);
  });

  it("does not let the caller's prompt choose the host a secret goes to", async () => {
    const before = upstream.requests.length;
    const res = await http(base, 'POST', `${P}/test`, {
      auth: bearer(uniqueTenant(), 'member'),
      body: {
        template: chatTemplate('http://{{ prompt }}/v1/chat/completions'),
        inputs: {},
        secrets: { apiKey: GOOD_KEY },
        prompt: new URL(upstream.url).host,
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ content: null, statusCode: null });
    expect(res.body.error).toMatch(/origin from prompt, .* those secrets are not sent there/);
    expect(JSON.stringify(res.body)).not.toContain(GOOD_KEY);
    expect(upstream.requests.length).toBe(before);
  });

  it('answers 422 naming the place for an invalid template', async () => {
    const auth = bearer(uniqueTenant(), 'member');
    const bad = await http(base, 'POST', `${P}/test`, {
      auth,
      body: {
        template: { type: 'request', method: 'POST', url: '{{ baseUrl + }}', outputs: {} },
        inputs: { baseUrl: 'x' },
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc.slice(0, 3)).toEqual(['body', 'template', 'url']);
    const escape = await http(base, 'POST', P, {
      auth,
      body: {
        name: 'evil',
        template: { type: 'request', method: 'GET', url: '{{ constructor.constructor("return process")() }}' },
      },
    });
    expect(escape.status).toBe(422);
    const unknownName = await http(base, 'POST', P, {
      auth,
      body: {
        name: 'typo',
        template: { type: 'request', method: 'GET', url: '{{ baseUrll }}' },
        inputs: { baseUrl: 'x' },
      },
    });
    expect(unknownName.status).toBe(422);
  });

  it.each([
    ['no name', { systemProvider: 'openai' }],
    ['neither system provider nor template', { name: 'x' }],
    ['an unknown system provider', { name: 'x', systemProvider: 'nope' }],
    ['a negative rate', { name: 'x', systemProvider: 'openai', maxRequestsPerSecond: -1 }],
    [
      'a concurrency limit without decay',
      { name: 'x', systemProvider: 'openai', requestConcurrencyLimit: { requests: 2 } },
    ],
    ['secrets that are not strings', { name: 'x', systemProvider: 'openai', secrets: { apiKey: 1 } }],
  ])('refuses %s with 422', async (_what, body) => {
    const res = await http(base, 'POST', P, { auth: bearer(uniqueTenant(), 'member'), body });
    expect(res.status).toBe(422);
    expect(res.body.detail).toBeDefined();
  });

  it('enforces authentication, roles, project scope and tenant isolation on every route', async () => {
    const tenant = uniqueTenant();
    const admin = bearer(tenant, 'admin');
    const { body } = await http(base, 'POST', P, { auth: admin, body: { name: 'mine', systemProvider: 'openai' } });
    for (const [method, path] of [
      ['GET', `${P}/system`],
      ['GET', P],
      ['GET', `${P}/mine`],
      ['POST', `${P}/test`],
      ['DELETE', `${P}/mine`],
    ] as const) {
      const res = await http(base, method, path, { body: method === 'POST' ? {} : undefined });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'missing or invalid bearer token' });
    }
    expect(
      (await http(base, 'POST', P, { auth: bearer(tenant, 'viewer'), body: { name: 'v', systemProvider: 'openai' } }))
        .status,
    ).toBe(403);
    expect((await http(base, 'DELETE', `${P}/mine`, { auth: bearer(tenant, 'member') })).status).toBe(403);
    expect((await http(base, 'GET', P, { auth: bearer(tenant, 'admin', { project: randomUUID() }) })).status).toBe(403);
    const other = bearer(uniqueTenant(), 'admin');
    for (const ref of ['mine', body.id]) {
      expect((await http(base, 'GET', `${P}/${ref}`, { auth: other })).status).toBe(404);
      expect((await http(base, 'PATCH', `${P}/${ref}`, { auth: other, body: { tag: 'x' } })).status).toBe(404);
      expect((await http(base, 'DELETE', `${P}/${ref}`, { auth: other })).status).toBe(404);
    }
    expect((await http(base, 'GET', P, { auth: other })).body.providers).toEqual([]);
    expect(
      (await http(base, 'POST', P, { auth: admin, body: { name: 'mine', systemProvider: 'openai' } })).status,
    ).toBe(409);
  });
});
