import { signDevToken } from '@bastion/auth';
import { bearer, uniqueTenant, waitFor } from '@bastion/testing';
import { startGuardedStack, type GuardedStack } from '../support/guarded-stack';
import type { MockUpstream } from '../support/mock-upstream';
import { http, untilStatus } from '../support/stack';

jest.setTimeout(30_000);

const V1 = '/backend/v1';

/**
 * The routes the platform's clients in the wild call (API-NOTES §2b), with their exact requests,
 * through the gateway and real services.
 */
describe('routes the clients call', () => {
  let upstream: MockUpstream;
  let stack: GuardedStack;
  let base: string;

  beforeAll(async () => {
    stack = await startGuardedStack();
    ({ upstream, base } = stack);
  });

  afterAll(() => stack?.close());

  const newScanner = async (auth: string, name: string, pattern = 'swordfish') => {
    const res = await http(base, 'POST', `${V1}/scanners`, {
      auth,
      body: { name, config: { type: 'regex', pattern } },
    });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  const newProject = async (auth: string, name: string) => {
    const res = await http(base, 'POST', `${V1}/projects`, { auth, body: { name } });
    expect(res.status).toBe(200);
    return res.body.project.id as string;
  };

  describe('scanner packages and the global project', () => {
    it('GET /scanner-packages?source=vendor lists the packages, as /packages does', async () => {
      const auth = bearer(uniqueTenant(), 'viewer');
      const res = await http(base, 'GET', `${V1}/scanner-packages?source=vendor`, { auth });
      expect(res.status).toBe(200);
      expect(res.body.packages.length).toBeGreaterThan(0);
      expect(res.body.packages[0]).toMatchObject({ id: expect.any(String), name: expect.any(String), kind: 'package' });
      const alias = await http(base, 'GET', `${V1}/packages`, { auth });
      expect(alias.body.packages.map((p: { id: string }) => p.id)).toEqual(
        res.body.packages.map((p: { id: string }) => p.id),
      );
      expect((await http(base, 'GET', `${V1}/scanner-packages?source=custom`, { auth })).status).toBe(422);
      expect((await http(base, 'GET', `${V1}/scanner-packages`)).status).toBe(401);
    });

    it("GET /project is the tenant's global project, the same on every call; a project token gets its own", async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'viewer');
      const first = await http(base, 'GET', `${V1}/project`, { auth });
      expect(first.status).toBe(200);
      expect(first.body.project).toMatchObject({
        id: expect.any(String),
        name: 'default',
        deploymentStatus: expect.any(String),
        config: { scanners: [], packages: [], providers: [] },
      });
      expect((await http(base, 'GET', `${V1}/project`, { auth })).body.project.id).toBe(first.body.project.id);
      expect((await http(base, 'GET', `${V1}/projects/default`, { auth })).body.project.id).toBe(first.body.project.id);
      // Another tenant has its own.
      expect(
        (await http(base, 'GET', `${V1}/project`, { auth: bearer(uniqueTenant(), 'viewer') })).body.project.id,
      ).not.toBe(first.body.project.id);
      const projectId = await newProject(bearer(tenant, 'admin'), 'scoped-one');
      const scoped = `Bearer ${signDevToken({ tenant, roles: ['member'], project: projectId })}`;
      expect((await http(base, 'GET', `${V1}/project`, { auth: scoped })).body.project).toMatchObject({
        id: projectId,
        name: 'scoped-one',
      });
    });
  });

  describe('attach and detach by id', () => {
    it('attaches a scanner, a package and a provider by id, each disabled until PATCHed, and detaches them', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      const scannerId = await newScanner(auth, 'by-id');
      const projectId = await newProject(auth, 'attach-by-id');
      const packageId = (await http(base, 'GET', `${V1}/scanner-packages?source=vendor`, { auth })).body.packages[0]
        .id as string;
      const provider = await http(base, 'POST', `${V1}/providers`, {
        auth,
        body: {
          name: 'claude-by-id',
          systemProvider: 'anthropic',
          inputs: { baseUrl: upstream.url, model: 'm' },
          secrets: { apiKey: 'k' },
        },
      });
      expect(provider.status).toBe(200);
      const providerId = provider.body.id as string;

      // As clients send it: no body at all.
      const s = await http(base, 'POST', `${V1}/projects/${projectId}/scanners/${scannerId}`, { auth });
      expect(s.status).toBe(200);
      expect(s.body.project.config.scanners).toEqual([
        expect.objectContaining({ id: scannerId, enabled: false, mode: 'block', version: 'latest' }),
      ]);
      const p = await http(base, 'POST', `${V1}/projects/${projectId}/scanner-packages/${packageId}`, {
        auth,
        body: {},
      });
      expect(p.status).toBe(200);
      expect(p.body.project.config.packages).toEqual([expect.objectContaining({ id: packageId, enabled: false })]);
      const v = await http(base, 'POST', `${V1}/projects/attach-by-id/providers/${providerId}`, { auth });
      expect(v.status).toBe(200);
      expect(v.body.project.config.providers).toEqual([expect.objectContaining({ id: providerId, enabled: false })]);

      // Attaching twice is a conflict; an unknown scanner is a 404.
      expect((await http(base, 'POST', `${V1}/projects/${projectId}/scanners/${scannerId}`, { auth })).status).toBe(
        409,
      );
      expect(
        (
          await http(base, 'POST', `${V1}/projects/${projectId}/scanners/00000000-0000-4000-8000-000000000000`, {
            auth,
          })
        ).status,
      ).toBe(404);
      // A package is not a scanner.
      expect((await http(base, 'POST', `${V1}/projects/${projectId}/scanners/${packageId}`, { auth })).status).toBe(
        422,
      );

      // PATCH enables.
      const enabled = await http(base, 'PATCH', `${V1}/projects/${projectId}/scanners/${scannerId}`, {
        auth,
        body: { enabled: true },
      });
      expect(enabled.body.project.config.scanners[0].enabled).toBe(true);
      const pkgEnabled = await http(base, 'PATCH', `${V1}/projects/${projectId}/scanner-packages/${packageId}`, {
        auth,
        body: { enabled: true },
      });
      expect(pkgEnabled.body.project.config.packages[0].enabled).toBe(true);

      // Detach by id (project by id or by name).
      expect(
        (await http(base, 'DELETE', `${V1}/projects/${projectId}/scanners/${scannerId}`, { auth })).body.project.config
          .scanners,
      ).toEqual([]);
      expect(
        (await http(base, 'DELETE', `${V1}/projects/attach-by-id/scanner-packages/${packageId}`, { auth })).body.project
          .config.packages,
      ).toEqual([]);
      const gone = await http(base, 'DELETE', `${V1}/projects/${projectId}/providers/${providerId}`, { auth });
      expect(gone.body.project.config.providers).toEqual([]);
      expect((await http(base, 'DELETE', `${V1}/projects/${projectId}/providers/${providerId}`, { auth })).status).toBe(
        404,
      );
    });

    it('an attached scanner does nothing until it is enabled', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      const scannerId = await newScanner(auth, 'quiet-until-enabled', 'swordfish');
      const projectId = await newProject(auth, 'live-one');
      expect(
        (await http(base, 'PATCH', `${V1}/projects/${projectId}`, { auth, body: { deploymentStatus: 'live' } })).status,
      ).toBe(200);
      expect((await http(base, 'POST', `${V1}/projects/${projectId}/scanners/${scannerId}`, { auth })).status).toBe(
        200,
      );
      const scan = () =>
        http(base, 'POST', `${V1}/scans`, {
          auth,
          body: { input: 'swordfish', project: projectId, scanDirection: 'request' },
        });
      expect((await scan()).body.result.outcome).toBe('cleared');
      await http(base, 'PATCH', `${V1}/projects/${projectId}/scanners/${scannerId}`, { auth, body: { enabled: true } });
      await waitFor(
        async () => ((await scan()).body.result?.outcome === 'blocked' ? true : undefined),
        15_000,
        'the enabled scanner to block',
      );
    });

    it('refuses a viewer and a project-scoped token', async () => {
      const tenant = uniqueTenant();
      const admin = bearer(tenant, 'admin');
      const scannerId = await newScanner(admin, 'guarded-attach');
      const projectId = await newProject(admin, 'guarded');
      expect(
        (
          await http(base, 'POST', `${V1}/projects/${projectId}/scanners/${scannerId}`, {
            auth: bearer(tenant, 'viewer'),
          })
        ).status,
      ).toBe(403);
      const scoped = `Bearer ${signDevToken({ tenant, roles: ['admin'], project: projectId })}`;
      expect(
        (await http(base, 'POST', `${V1}/projects/${projectId}/scanners/${scannerId}`, { auth: scoped })).status,
      ).toBe(403);
      expect((await http(base, 'POST', `${V1}/projects/${projectId}/scanners/${scannerId}`)).status).toBe(401);
    });
  });

  describe('GET /scans/{id}', () => {
    it('returns the stored scan; a prompt is not a scan; other projects and tenants do not see it', async () => {
      const tenant = uniqueTenant();
      const admin = bearer(tenant, 'admin');
      const scannerId = await newScanner(admin, 'fish', 'swordfish');
      const projectId = await newProject(admin, 'scanned');
      await http(base, 'PATCH', `${V1}/projects/${projectId}`, { auth: admin, body: { deploymentStatus: 'live' } });
      await http(base, 'POST', `${V1}/projects/${projectId}/scanners`, {
        auth: admin,
        body: { id: scannerId, mode: 'redact', enabled: true },
      });
      const scan = await http(base, 'POST', `${V1}/scans`, {
        auth: admin,
        body: { input: 'is swordfish ok?', project: projectId, scanDirection: 'request' },
      });
      expect(scan.status).toBe(200);
      const id = scan.body.id as string;
      const stored = await untilStatus(
        200,
        () => http(base, 'GET', `${V1}/scans/${id}`, { auth: admin }),
        'the scan to be stored',
      );
      expect(stored.body).toEqual({
        scan: {
          id,
          // The record keeps the text as it may go on: the secret itself is never stored.
          input: 'is ********* ok?',
          redactedInput: 'is ********* ok?',
          projectId,
          userId: expect.any(String),
          receivedAt: expect.any(String),
          preserve: false,
          externalMetadata: {},
          extraInputs: {},
          type: 'scan',
          result: {
            outcome: 'redacted',
            scannerResults: [expect.objectContaining({ scannerId, outcome: 'failed', scanDirection: 'request' })],
          },
        },
      });

      const own = `Bearer ${signDevToken({ tenant, roles: ['viewer'], project: projectId })}`;
      expect((await http(base, 'GET', `${V1}/scans/${id}`, { auth: own })).status).toBe(200);
      const otherProject = await newProject(admin, 'elsewhere');
      const foreign = `Bearer ${signDevToken({ tenant, roles: ['viewer'], project: otherProject })}`;
      expect((await http(base, 'GET', `${V1}/scans/${id}`, { auth: foreign })).status).toBe(404);
      expect((await http(base, 'GET', `${V1}/scans/${id}`, { auth: bearer(uniqueTenant(), 'admin') })).status).toBe(
        404,
      );
      expect((await http(base, 'GET', `${V1}/scans/not-a-uuid`, { auth: admin })).status).toBe(422);
      expect((await http(base, 'GET', `${V1}/scans/${id}`)).status).toBe(401);

      // A prompt's id is not a scan.
      const provider = await http(base, 'POST', `${V1}/providers`, {
        auth: admin,
        body: {
          name: 'claude',
          systemProvider: 'anthropic',
          inputs: { baseUrl: upstream.url, model: 'm' },
          secrets: { apiKey: 'sk-ant-mock-key-000000' },
        },
      });
      expect(provider.status).toBe(200);
      const sent = await http(base, 'POST', `${V1}/prompts`, {
        auth: admin,
        body: { input: 'hello', provider: 'claude', project: projectId },
      });
      expect(sent.status).toBe(200);
      await waitFor(
        async () =>
          (await http(base, 'GET', `${V1}/prompts/${sent.body.id}`, { auth: admin })).status === 200 ? true : undefined,
        15_000,
        'the prompt',
      );
      expect((await http(base, 'GET', `${V1}/scans/${sent.body.id}`, { auth: admin })).status).toBe(404);
    });
  });

  describe('workflow providers, as a connections tool creates them', () => {
    /** The mock's OAuth token endpoint and a chat endpoint that can be made to answer 503 first. */
    let failNext = 0;
    beforeAll(() => {
      upstream.answer = (req) => {
        if (req.url === '/oauth/token') {
          if (!req.body.includes('client_secret=cs-good-secret'))
            return { status: 401, body: JSON.stringify({ error: 'invalid_client' }) };
          return {
            status: 200,
            body: JSON.stringify({ access_token: 'at-issued-1', token_type: 'Bearer', expires_in: 3600 }),
          };
        }
        if (req.url === '/wf/chat') {
          if (req.headers.authorization !== 'Bearer at-issued-1')
            return { status: 401, body: JSON.stringify({ error: 'unauthorized' }) };
          if (failNext > 0) {
            failNext--;
            return { status: 503, body: JSON.stringify({ error: 'overloaded' }) };
          }
          const prompt = JSON.parse(req.body).messages?.at(-1)?.content ?? '';
          return {
            status: 200,
            body: JSON.stringify({ choices: [{ message: { role: 'assistant', content: `wf: ${prompt}` } }] }),
          };
        }
        return undefined;
      };
    });
    afterAll(() => {
      upstream.answer = undefined;
    });
    beforeEach(() => {
      failNext = 0;
    });

    /** The template as the tool sends it (API-NOTES §2b), the backoff shortened for the test. */
    const workflowTemplate = (backoff = '{{ 2 * attempt }}') => ({
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
          url: '{{ authUrl }}',
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: 'grant_type=client_credentials&client_id={{ client_id }}&client_secret={{ client_secret }}',
          outputs: { access_token: '{{ response.json()?.access_token }}' },
        },
        {
          type: 'retry',
          attempts: 3,
          backoff,
          when: '{{ Array.contains([429, 500, 502, 503, 504], statusCode) }}',
          block: {
            type: 'request',
            method: 'POST',
            url: '{{ baseUrl }}/wf/chat',
            headers: { Authorization: 'Bearer {{ access_token }}' },
            json: '{{ { messages: [{ role: "user", content: prompt }] } }}',
            outputs: {
              content: '{{ response.json()?.choices?.[0]?.message?.content }}',
              statusCode: '{{ response.statusCode }}',
              error: '{{ response.statusCode >= 400 ? response.json()?.error : "" }}',
              responseBody: '{{ response.body }}',
            },
          },
        },
      ],
    });
    const body = (name: string, secret = 'cs-good-secret', extra: Record<string, unknown> = {}) => ({
      name,
      template: workflowTemplate(),
      inputs: {
        authUrl: `${upstream.url}/oauth/token`,
        baseUrl: upstream.url,
        client_id: 'assistant-app',
        prompt: 'Are you there?',
      },
      secrets: { client_secret: secret },
      test: true,
      ...extra,
    });

    it('creates a workflow provider with test: true: the test runs the OAuth stage, then the chat with its token and inputs.prompt', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      const before = upstream.requests.length;
      const created = await http(base, 'POST', `${V1}/providers`, { auth, body: body('assistant-llm') });
      expect(created.status).toBe(200);
      expect(created.body).toEqual({ id: expect.any(String) });
      const sent = upstream.requests.slice(before);
      expect(sent.map((r) => r.url)).toEqual(['/oauth/token', '/wf/chat']);
      expect(sent[0].body).toBe('grant_type=client_credentials&client_id=assistant-app&client_secret=cs-good-secret');
      expect(sent[1].headers.authorization).toBe('Bearer at-issued-1');
      expect(JSON.parse(sent[1].body)).toEqual({ messages: [{ role: 'user', content: 'Are you there?' }] });

      const got = await http(base, 'GET', `${V1}/providers/${created.body.id}`, { auth });
      expect(got.body.provider.template).toMatchObject({
        type: 'workflow',
        stages: [{ type: 'request' }, { type: 'retry', attempts: 3 }],
      });
      // The test prompt is not kept as an input (the built-in prompt is the user's).
      expect(got.body.provider.inputs).toEqual({
        authUrl: `${upstream.url}/oauth/token`,
        baseUrl: upstream.url,
        client_id: 'assistant-app',
      });
      expect(got.body.provider.secrets.client_secret).not.toBe('cs-good-secret');
    });

    it('saves nothing when the test fails, and says why', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      const failed = await http(base, 'POST', `${V1}/providers`, { auth, body: body('bad-secret', 'cs-wrong') });
      expect(failed.status).toBe(422);
      expect(failed.body.detail).toEqual([
        {
          loc: ['body', 'test'],
          msg: 'the connection test failed: stage 1 (request) answered HTTP 401',
          type: 'value_error.provider_test',
        },
      ]);
      expect((await http(base, 'GET', `${V1}/providers/bad-secret`, { auth })).status).toBe(404);

      // Without test: true the same body is saved untested.
      expect(
        (await http(base, 'POST', `${V1}/providers`, { auth, body: body('bad-secret', 'cs-wrong', { test: false }) }))
          .status,
      ).toBe(200);
      // Updating with a failing test changes nothing.
      const upd = await http(base, 'PATCH', `${V1}/providers/bad-secret`, {
        auth,
        body: { inputs: { client_id: 'other-app' }, test: true },
      });
      expect(upd.status).toBe(422);
      expect((await http(base, 'GET', `${V1}/providers/bad-secret`, { auth })).body.provider.inputs.client_id).toBe(
        'assistant-app',
      );
      // Fixing the secret, the test passes and the update is saved.
      const fixed = await http(base, 'PATCH', `${V1}/providers/bad-secret`, {
        auth,
        body: { secrets: { client_secret: 'cs-good-secret' }, test: true },
      });
      expect(fixed.status).toBe(200);
    });

    it('refuses an invalid workflow on save with a 422 naming the stage and the place', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      const template = workflowTemplate();
      (template.stages[1] as { block: { headers: Record<string, string> } }).block.headers.Authorization =
        'Bearer {{ acces_token }}';
      const res = await http(base, 'POST', `${V1}/providers`, {
        auth,
        body: { ...body('typo'), template, test: false },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail[0]).toMatchObject({
        loc: ['body', 'template', 'stages', '1', 'block', 'headers', 'Authorization'],
        msg: expect.stringContaining('stage 2 (retry): unknown name "acces_token"'),
      });
      const noContent = await http(base, 'POST', `${V1}/providers`, {
        auth,
        body: {
          ...body('no-content'),
          template: { ...workflowTemplate(), outputs: { statusCode: '{{ statusCode }}' } },
        },
      });
      expect(noContent.status).toBe(422);
      expect(noContent.body.detail[0]).toMatchObject({
        loc: ['body', 'template', 'outputs'],
        msg: expect.stringContaining('yields content'),
      });
    });

    it('the tester retries the chat stage while it answers 503, and shows every stage', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      failNext = 2;
      const { name: _n, test: _t, ...testBody } = body('unused');
      const res = await http(base, 'POST', `${V1}/providers/test`, {
        auth,
        body: { ...testBody, template: workflowTemplate('{{ 0.05 * attempt }}') },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ content: 'wf: Are you there?', statusCode: 200, error: null });
      expect(Object.keys(res.body.requests)).toEqual([
        'chat',
        'stage 1',
        'stage 2 attempt 1',
        'stage 2 attempt 2',
        'stage 2 attempt 3',
      ]);
      expect(res.body.requests['stage 2 attempt 1'].response.statusCode).toBe(503);
      expect(res.body.requests['stage 1'].request.body).toContain('client_secret=[redacted]');
      expect(JSON.stringify(res.body)).not.toContain('cs-good-secret');
    });

    it('the proxy runs the same workflow for a prompt sent through the provider', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      expect((await http(base, 'POST', `${V1}/providers`, { auth, body: body('assistant-llm') })).status).toBe(200);
      const projectId = await newProject(auth, 'wf-project');
      failNext = 1;
      const before = upstream.requests.length;
      const sent = await http(base, 'POST', `${V1}/prompts`, {
        auth,
        body: { input: 'What is 2 + 2?', provider: 'assistant-llm', project: projectId },
      });
      expect(sent.status).toBe(200);
      expect(sent.body.result).toMatchObject({ outcome: 'cleared', response: 'wf: What is 2 + 2?' });
      // The OAuth call, a 503, then the answer: the proxy took the retry stage too (backoff 2 s).
      expect(upstream.requests.slice(before).map((r) => r.url)).toEqual(['/oauth/token', '/wf/chat', '/wf/chat']);
    });
  });

  describe('the tester takes inputs.prompt as the test prompt', () => {
    const template = {
      type: 'request',
      method: 'POST',
      url: '{{ baseUrl }}/v1/chat/completions',
      headers: { Authorization: 'Bearer {{ apiKey }}' },
      json: { messages: '{{ messages }}' },
      outputs: { content: '{{ response.json()?.choices?.[0]?.message?.content }}' },
    };

    it('uses inputs.prompt (the spec body) and keeps the prompt field as an alias', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const secrets = { apiKey: 'sk-test-good-key-123456' };
      const spec = await http(base, 'POST', `${V1}/providers/test`, {
        auth,
        body: { template, inputs: { baseUrl: upstream.url, prompt: 'Ping from inputs' }, secrets },
      });
      expect(spec.status).toBe(200);
      expect(spec.body).toMatchObject({ content: 'echo: Ping from inputs', error: null });
      const alias = await http(base, 'POST', `${V1}/providers/test`, {
        auth,
        body: { template, inputs: { baseUrl: upstream.url }, secrets, prompt: 'Ping from alias' },
      });
      expect(alias.body.content).toBe('echo: Ping from alias');
      const both = await http(base, 'POST', `${V1}/providers/test`, {
        auth,
        body: { template, inputs: { baseUrl: upstream.url, prompt: 'inputs wins' }, secrets, prompt: 'alias loses' },
      });
      expect(both.body.content).toBe('echo: inputs wins');
      const none = await http(base, 'POST', `${V1}/providers/test`, {
        auth,
        body: { systemProvider: 'openai', inputs: { baseUrl: upstream.url }, secrets },
      });
      expect(none.body.content).toBe('echo: Say hello.');
    });
  });

  it('documents response schemas for the routes the clients call', async () => {
    const doc = (await http(base, 'GET', '/openapi.json')).body;
    const ok = (path: string, method: string) =>
      doc.paths[path]?.[method]?.responses?.['200']?.content?.['application/json']?.schema;
    for (const [path, method] of [
      ['/backend/v1/scanner-packages', 'get'],
      ['/backend/v1/packages', 'get'],
      ['/backend/v1/project', 'get'],
      ['/backend/v1/scans/{id}', 'get'],
      ['/backend/v1/projects/{id}/scanners/{entryId}', 'post'],
      ['/backend/v1/projects/{id}/scanners/{entryId}', 'delete'],
      ['/backend/v1/projects/{id}/scanner-packages/{entryId}', 'post'],
      ['/backend/v1/projects/{id}/scanner-packages/{entryId}', 'delete'],
      ['/backend/v1/projects/{id}/providers/{entryId}', 'post'],
      ['/backend/v1/projects/{id}/providers/{entryId}', 'delete'],
      ['/api/register/namespaces/system/get-cloud-init-config', 'get'],
      ['/backend/v1/providers', 'post'],
      ['/backend/v1/providers/{ref}', 'patch'],
      ['/backend/v1/providers/{ref}', 'get'],
      ['/backend/v1/providers/test', 'post'],
    ]) {
      expect([path, method, ok(path, method)]).toEqual([
        path,
        method,
        expect.objectContaining({ $ref: expect.any(String) }),
      ]);
    }
    const schemas = doc.components.schemas;
    expect(schemas.ProviderTestResultSchema.properties.requests.additionalProperties.$ref).toBe(
      '#/components/schemas/ProviderTestExchangeSchema',
    );
    expect(schemas.ProviderTestExchangeSchema).toBeDefined();
    expect(schemas.ScanSchema.required).toEqual(
      expect.arrayContaining(['id', 'input', 'redactedInput', 'result', 'type']),
    );
    expect(schemas.ProjectResponseSchema.properties.project.$ref).toBe('#/components/schemas/ProjectSchema');
    expect(schemas.ProviderTemplateDto.properties.type.enum).toEqual(['request', 'workflow']);
  });
});
