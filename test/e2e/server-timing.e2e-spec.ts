import { signDevToken } from '@bastion/auth';
import { bearer, waitFor } from '@bastion/testing';
import { startGuardedStack, type GuardedStack } from '../support/guarded-stack';
import type { MockUpstream } from '../support/mock-upstream';
import { http } from '../support/stack';
import { tenantOnMock } from '../support/tenant';

const TIMING = /^auth;dur=\d+(\.\d+)?, rpc;dur=\d+(\.\d+)?/;

/** Server-Timing on proxied answers, and the gateway's memory of tokens it has already accepted. */
describe('gateway Server-Timing and verified tokens', () => {
  let upstream: MockUpstream;
  let stack: GuardedStack;
  let base: string;
  let key: string;
  let tenant: string;

  beforeAll(async () => {
    stack = await startGuardedStack();
    ({ upstream, base } = stack);
    ({ tenant, key } = await tenantOnMock(base, upstream, { project: 'timed', model: 'claude-test' }));
  });

  afterAll(() => stack?.close());

  const message = (stream = false) => ({
    model: 'claude-test',
    max_tokens: 16,
    ...(stream ? { stream: true } : {}),
    messages: [{ role: 'user', content: 'hello' }],
  });

  it('reports auth and rpc on a JSON answer, and the proxy phases when it reports them', async () => {
    const res = await http(base, 'POST', '/vendor/claude/v1/messages', {
      headers: { 'x-api-key': key },
      body: message(),
    });
    expect(res.status).toBe(200);
    const header = res.headers.get('server-timing');
    expect(header).toMatch(TIMING);
    for (const part of header!.split(', ')) expect(part).toMatch(/^(auth|rpc|guard|upstream|record);dur=\d+(\.\d+)?$/);
  });

  it('reports auth and rpc on a stream, in the head', async () => {
    const res = await fetch(`${base}/vendor/claude/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(message(true)),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('server-timing')).toMatch(TIMING);
    expect(await res.text()).toContain('message_stop');
  });

  it('reports auth on other authenticated routes and nothing on public ones', async () => {
    const listed = await http(base, 'GET', '/backend/v1/providers', { auth: bearer(tenant, 'admin') });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('server-timing')).toMatch(/^auth;dur=/);
    expect((await http(base, 'GET', '/livez')).headers.get('server-timing')).toBeNull();
  });

  it('still refuses a changed token after accepting the original', async () => {
    const token = signDevToken({ tenant, roles: ['viewer'] });
    expect((await http(base, 'GET', '/backend/v1/providers', { auth: `Bearer ${token}` })).status).toBe(200);
    const [header, payload, signature] = token.split('.');
    const otherSignature = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
    expect(
      (await http(base, 'GET', '/backend/v1/providers', { auth: `Bearer ${header}.${payload}.${otherSignature}` }))
        .status,
    ).toBe(401);
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const widened = Buffer.from(JSON.stringify({ ...claims, roles: ['admin'] })).toString('base64url');
    expect(
      (await http(base, 'GET', '/backend/v1/providers', { auth: `Bearer ${header}.${widened}.${signature}` })).status,
    ).toBe(401);
  });

  it('stops accepting a remembered token once it expires', async () => {
    // 5 s of life: room for both calls on a loaded machine. The cache would keep it for
    // AUTH_CACHE_MAX_AGE_MS (60 s), so a refusal within the 15 s below comes from its `exp`.
    const shortLived = signDevToken({ tenant, roles: ['admin'], expiresInSeconds: 5 });
    const list = () => http(base, 'GET', '/backend/v1/providers', { auth: `Bearer ${shortLived}` });
    expect((await list()).status).toBe(200);
    expect((await list()).status).toBe(200);
    const { exp } = JSON.parse(Buffer.from(shortLived.split('.')[1], 'base64url').toString());
    await new Promise((r) => setTimeout(r, Math.max(0, exp * 1000 - Date.now())));
    await waitFor(async () => ((await list()).status === 401 ? true : undefined), 15_000, 'the token to be refused');
  });
});
