import Anthropic from '@anthropic-ai/sdk';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { API_KEY_CACHE_TTL_MS } from '@bastion/contracts';
import { bearer, uniqueTenant, waitFor } from '@bastion/testing';
import { Client } from 'pg';
import { MockUpstream } from '../support/mock-upstream';
import { startProjectsService } from '../support/projects';
import { startPromptsService } from '../support/prompts';
import { startProvidersService } from '../support/providers';
import { startProxyService } from '../support/proxy';
import { http, startGateway, testEnv } from '../support/stack';
import { tenantOnMock } from '../support/tenant';

jest.setTimeout(30_000);

const MODEL = 'claude-test-1';
const TOKENS = '/backend/v1/tokens';

/**
 * API keys as an app uses them: an admin makes one for a project, the official Anthropic SDK sends
 * it, every gateway replica refuses it as soon as it is revoked (told by the revocation event, not
 * when its cached copy grows old).
 */
describe('API keys', () => {
  let upstream: MockUpstream;
  let services: INestMicroservice[];
  let gateway: INestApplication;
  let second: INestApplication;
  let base: string;
  let base2: string;

  beforeAll(async () => {
    upstream = await new MockUpstream().start();
    services = [
      await startPromptsService(),
      await startProvidersService({ OUTBOUND_ALLOWLIST: '127.0.0.1' }),
      await startProjectsService(),
      await startProxyService({ OUTBOUND_ALLOWLIST: '127.0.0.1' }),
    ];
    ({ app: gateway, url: base } = await startGateway());
    ({ app: second, url: base2 } = await startGateway());
  });

  afterAll(async () => {
    await second?.close();
    await gateway?.close();
    for (const s of services ?? []) await s.close();
    await upstream?.stop();
  });

  /** A tenant with an Anthropic provider on the mock and a project that uses it (a draft). */
  const tenantWithProject = () => tenantOnMock(base, upstream, { model: MODEL, live: false });

  async function newKey(admin: string, body: Record<string, unknown>) {
    const res = await http(base, 'POST', TOKENS, { auth: admin, body: { name: 'k', ...body } });
    expect(res.status).toBe(200);
    return res.body.token as {
      id: string;
      value: string;
      projectId: string | null;
      role: string;
      expiresAt: string | null;
    };
  }

  const ask = (client: Anthropic) =>
    client.messages.create({ model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] });

  it('makes a project key that the Anthropic SDK uses, and refuses it on every replica once revoked, before its cached copy expires', async () => {
    const { admin, projectId } = await tenantWithProject();
    const key = await newKey(admin, { projectId, machine: true });
    expect(key.value).toMatch(/^bsk_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/);
    expect(key).toMatchObject({ projectId, role: 'member', expiresAt: null });

    const clients = [base, base2].map(
      (b) => new Anthropic({ baseURL: `${b}/vendor/claude`, apiKey: key.value, maxRetries: 0 }),
    );
    // Each gateway caches the key from here on: without the revocation event it would take the key
    // until API_KEY_CACHE_TTL_MS (30 s) after this.
    const cachedFrom = Date.now();
    for (const c of clients) expect((await ask(c)).content[0]).toMatchObject({ type: 'text' });
    // The same key as a bearer token, and with no scheme at all.
    const viaBearer = new Anthropic({
      baseURL: `${base}/vendor/claude`,
      authToken: key.value,
      apiKey: null,
      maxRetries: 0,
    });
    expect((await ask(viaBearer)).content[0]).toMatchObject({ type: 'text' });
    const me = await http(base, 'GET', '/backend/v1/users/me', { headers: { authorization: key.value } });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ id: `key:${key.id}`, projectId, roles: ['member'], kind: 'project-key' });

    // Listed and read without its value; counted by its project.
    const list = await http(base, 'GET', TOKENS, { auth: admin });
    expect(list.status).toBe(200);
    expect(list.body.tokens.map((t: { id: string }) => t.id)).toEqual([key.id]);
    expect(JSON.stringify(list.body)).not.toContain(key.value.slice(-43));
    expect((await http(base, 'GET', `${TOKENS}/${key.id}`, { auth: admin })).body.token).not.toHaveProperty('value');
    expect(
      (await http(base, 'GET', `/backend/v1/projects/${projectId}`, { auth: admin })).body.project.tokenCount,
    ).toBe(1);

    const revoked = await http(base, 'DELETE', `${TOKENS}/${key.id}`, { auth: admin });
    expect(revoked.status).toBe(200);
    for (const c of clients) {
      await waitFor(
        async () =>
          ask(c).then(
            () => undefined,
            (err) => (err instanceof Anthropic.AuthenticationError ? true : undefined),
          ),
        10_000,
        'the revoked key to be refused',
      );
    }
    // Refused on both before either cached copy could have expired: the revocation reached them.
    expect(Date.now() - cachedFrom).toBeLessThan(API_KEY_CACHE_TTL_MS);
    expect(
      (await http(base, 'GET', `/backend/v1/projects/${projectId}`, { auth: admin })).body.project.tokenCount,
    ).toBe(0);
  });

  it('stops taking a key when it expires', async () => {
    const { admin, projectId } = await tenantWithProject();
    const key = await newKey(admin, { projectId, expiresAt: new Date(Date.now() + 5000).toISOString() });
    const me = () => http(base, 'GET', '/backend/v1/users/me', { headers: { 'x-api-key': key.value } });
    expect((await me()).status).toBe(200);
    await waitFor(async () => ((await me()).status === 401 ? true : undefined), 15_000, 'the key to expire');
    // Refused for its expiry, not before it.
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(key.expiresAt!));
  });

  it('keeps a project key to its project: no site admission, no other project, no configuration', async () => {
    const { admin, projectId } = await tenantWithProject();
    const other = await http(base, 'POST', '/backend/v1/projects', { auth: admin, body: { name: 'other' } });
    const key = await newKey(admin, { projectId, role: 'admin' });
    const auth = `Bearer ${key.value}`;
    expect((await http(base, 'GET', '/api/register/namespaces/system/tokens', { auth })).status).toBe(403);
    expect(
      (
        await http(base, 'POST', '/api/register/namespaces/system/tokens', {
          auth,
          body: { metadata: { name: 'x' }, spec: {} },
        })
      ).status,
    ).toBe(403);
    expect(
      (await http(base, 'GET', '/api/register/namespaces/system/get-cloud-init-config?provider=kvm', { auth })).status,
    ).toBe(403);
    expect((await http(base, 'POST', TOKENS, { auth, body: { name: 'more' } })).status).toBe(403);
    expect((await http(base, 'GET', '/backend/v1/providers', { auth })).status).toBe(403);
    // Another project answers as a missing one does.
    expect(await http(base, 'GET', `/backend/v1/projects/${other.body.project.id}`, { auth })).toMatchObject({
      status: 404,
      body: { detail: `project ${other.body.project.id} not found` },
    });
    expect((await http(base, 'GET', `/backend/v1/projects/${projectId}`, { auth })).status).toBe(200);
  });

  it('lets only admins make and revoke keys, and makes tenant-wide keys', async () => {
    const tenant = uniqueTenant();
    for (const role of ['member', 'viewer'] as const) {
      expect((await http(base, 'POST', TOKENS, { auth: bearer(tenant, role), body: { name: 'k' } })).status).toBe(403);
    }
    const key = await newKey(bearer(tenant, 'admin'), { role: 'viewer' });
    expect(key.projectId).toBeNull();
    expect((await http(base, 'DELETE', `${TOKENS}/${key.id}`, { auth: bearer(tenant, 'member') })).status).toBe(403);
    const me = await http(base, 'GET', '/backend/v1/users/me', { headers: { 'x-api-key': key.value } });
    expect(me.body.user).toMatchObject({ tenant, roles: ['viewer'], projectId: null, kind: 'tenant-key' });
    // A viewer key reads, and does not spend.
    expect((await http(base, 'GET', '/backend/v1/projects', { headers: { 'x-api-key': key.value } })).status).toBe(200);
    expect(
      (await http(base, 'POST', '/backend/v1/scans', { headers: { 'x-api-key': key.value }, body: { input: 'hi' } }))
        .status,
    ).toBe(403);
    // Another tenant sees none of it.
    expect((await http(base, 'GET', `${TOKENS}/${key.id}`, { auth: bearer(uniqueTenant(), 'admin') })).status).toBe(
      404,
    );
  });

  it('refuses to let a key make or revoke keys, so none outlives the key that would have made it', async () => {
    const tenant = uniqueTenant();
    const admin = bearer(tenant, 'admin');
    const expiring = await newKey(admin, { role: 'admin', expiresAt: new Date(Date.now() + 86_400_000).toISOString() });
    const other = await newKey(admin, { name: 'other' });
    const headers = { 'x-api-key': expiring.value };
    const made = await http(base, 'POST', TOKENS, { headers, body: { name: 'x', role: 'admin' } });
    expect(made.status).toBe(403);
    expect(made.body).toEqual({ detail: expect.stringMatching(/tenant-key cannot call this route/) });
    expect((await http(base, 'DELETE', `${TOKENS}/${other.id}`, { headers })).status).toBe(403);
    // It still reads the tenant's keys, and nothing was made by it.
    const list = await http(base, 'GET', TOKENS, { headers });
    expect(list.status).toBe(200);
    expect(list.body.tokens.map((t: { id: string }) => t.id).sort()).toEqual([expiring.id, other.id].sort());
  });

  it('counts a use only with the right secret: a known id with a wrong one leaves lastUsedAt alone', async () => {
    const admin = bearer(uniqueTenant(), 'admin');
    const key = await newKey(admin, {});
    const lastUsedAt = async () =>
      (await http(base, 'GET', `${TOKENS}/${key.id}`, { auth: admin })).body.token.lastUsedAt;
    const wrong = `bsk_${key.id.replace(/-/g, '')}_${'A'.repeat(43)}`;
    expect((await http(base, 'GET', '/backend/v1/users/me', { headers: { 'x-api-key': wrong } })).status).toBe(401);
    expect(await lastUsedAt()).toBeNull();
    // The right secret, on the replica that has not looked the key up yet, is a use.
    expect((await http(base2, 'GET', '/backend/v1/users/me', { headers: { 'x-api-key': key.value } })).status).toBe(
      200,
    );
    expect(await lastUsedAt()).not.toBeNull();
  });

  it("refuses a forged or tampered key, and pages through a tenant's keys", async () => {
    const tenant = uniqueTenant();
    const admin = bearer(tenant, 'admin');
    const keys = [];
    for (let i = 0; i < 3; i++) keys.push(await newKey(admin, { name: `k${i}` }));
    const tampered = keys[0].value.slice(0, -1) + (keys[0].value.endsWith('A') ? 'B' : 'A');
    expect((await http(base, 'GET', '/backend/v1/users/me', { headers: { 'x-api-key': tampered } })).status).toBe(401);
    const forged = `bsk_${keys[0].id.replace(/-/g, '')}_${keys[1].value.slice(-43)}`;
    expect((await http(base, 'GET', '/backend/v1/users/me', { headers: { 'x-api-key': forged } })).status).toBe(401);
    const p1 = await http(base, 'GET', `${TOKENS}?limit=2`, { auth: admin });
    const p2 = await http(base, 'GET', `${TOKENS}?limit=2&cursor=${p1.body.next}`, { auth: admin });
    expect([...p1.body.tokens, ...p2.body.tokens].map((t: { id: string }) => t.id).sort()).toEqual(
      keys.map((k) => k.id).sort(),
    );
    expect(p2.body.next).toBeNull();
  });

  it('stores only a hash of each key', async () => {
    const { admin } = await tenantWithProject();
    const key = await newKey(admin, {});
    const db = new Client({ connectionString: testEnv().DATABASE_URL });
    await db.connect();
    try {
      const { rows } = await db.query('SELECT * FROM projects.api_keys WHERE id = $1', [key.id]);
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(key.value.slice(-43));
    } finally {
      await db.end();
    }
  });
});
