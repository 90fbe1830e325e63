import { randomUUID } from 'node:crypto';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { SiteAdmissionEvent, TOKENS_ADMISSIONS_STREAM } from '@bastion/contracts';
import { connectNats, DurableConsumer } from '@bastion/messaging';
import { bearer, uniqueTenant, waitFor, testNatsLogin } from '@bastion/testing';
import type { NatsConnection } from '@nats-io/transport-node';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { Client } from 'pg';
import { parse } from 'yaml';
import { AdmissionService } from '../../apps/tokens/src/admission/admission.service';
import { TokenViewSync } from '../../apps/tokens/src/tokens/token-view.sync';
import { SigningKeyService } from '../../apps/tokens/src/keys/signing-key.service';
import { http, quietLogger, startGateway, startTokensService, testEnv } from '../support/stack';

const API = '/api/register';
const TOKENS = `${API}/namespaces/system/tokens`;
const REFUSED = { code: 16, details: [], message: 'invalid token' };

// Starting services and the gateway takes more than jest's default 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('site admission', () => {
  let replicas: INestMicroservice[];
  let gateway: INestApplication;
  let base: string;
  let db: Client;
  let nc: NatsConnection;

  beforeAll(async () => {
    const env = { ADMISSION_REFUSALS_PER_MINUTE: '5', EXPIRY_SWEEP_INTERVAL_MS: '200', SIGNING_KEY_REFRESH_MS: '200' };
    replicas = [
      await startTokensService(quietLogger('tokens-a'), env),
      await startTokensService(quietLogger('tokens-b'), env),
    ];
    ({ app: gateway, url: base } = await startGateway(undefined, { GATEWAY_TRUST_PROXY: 'true' }));
    db = new Client({ connectionString: testEnv().DATABASE_URL });
    await db.connect();
    nc = await connectNats(testNatsLogin(), { name: 'e2e-admission' });
  });

  afterAll(async () => {
    await nc?.close();
    await db?.end();
    await gateway?.close();
    for (const r of replicas ?? []) await r.close();
  });

  /** Each test registers from its own address, so refusals in one do not rate-limit another. */
  const address = () => `10.${rand()}.${rand()}.${rand()}`;
  const rand = () => Math.floor(Math.random() * 250) + 1;

  const register = (token: string, node: string, cluster = 'site-a', from = address()) =>
    http(base, 'POST', `${API}/registerBootstrap`, {
      body: {
        metadata: { name: node },
        spec: { token, passport: { cluster_name: cluster, cluster_size: 1, latitude: 48.85, longitude: 2.35 } },
      },
      headers: { 'x-forwarded-for': from },
    });

  async function normalToken(auth: string, name: string, spec: Record<string, unknown> = {}): Promise<string> {
    const res = await http(base, 'POST', TOKENS, { auth, body: { metadata: { name }, spec } });
    expect(res.status).toBe(200);
    return res.body.system_metadata.uid;
  }

  const setState = (auth: string, name: string, state: string) =>
    http(base, 'POST', `${TOKENS}/${name}/state`, { auth, body: { state } });

  it('admits a site with a NORMAL token, many sites with one token, and lists them', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'admin');
    const uid = await normalToken(auth, 'fleet');
    const first = await register(uid, 'node-1', 'site-a');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      metadata: { name: 'node-1', namespace: 'system' },
      system_metadata: { tenant, uid: expect.any(String) },
      spec: {
        state: 'ADMITTED',
        site_name: 'site-a',
        token_name: 'fleet',
        token_uid: uid,
        passport: { cluster_name: 'site-a', latitude: 48.85 },
      },
    });
    expect((await register(uid, 'node-2', 'site-b')).status).toBe(200);

    const byToken = await http(base, 'POST', `${API}/namespaces/system/get-registrations-by-token`, {
      auth,
      body: { site_token: uid },
    });
    expect(byToken.body.items.map((i: { name: string }) => i.name)).toEqual(['node-1', 'node-2']);
    const listed = await http(base, 'GET', `${API}/namespaces/system/registrations?report_fields`, { auth });
    expect(listed.body.items.map((i: { get_spec: { token_uid: string } }) => i.get_spec.token_uid)).toEqual([uid, uid]);
    const refs = await http(base, 'GET', `${TOKENS}/fleet?response_format=GET_RSP_FORMAT_REFERRING_OBJECTS`, { auth });
    expect(refs.body.referring_objects).toHaveLength(2);
    const del = await http(base, 'DELETE', `${TOKENS}/fleet`, { auth, body: { fail_if_referred: true } });
    expect(del.status).toBe(409);
    expect(
      (await http(base, 'GET', `${API}/namespaces/system/registrations`, { auth: bearer(uniqueTenant(), 'admin') }))
        .body.items,
    ).toEqual([]);
  });

  it('refuses unknown, malformed and forged tokens with 401 "invalid token"', async () => {
    expect((await register(randomUUID(), 'n')).body).toEqual(REFUSED);
    expect((await register('not-a-token', 'n')).status).toBe(401);
    const forged = 'eyJhbGciOiJFZERTQSIsImtpZCI6IngifQ.eyJzdWIiOiJ4IiwidGVuYW50IjoidCJ9.c2lnbmF0dXJl';
    expect((await register(forged, 'n')).body).toEqual(REFUSED);
    const invalidBody = await http(base, 'POST', `${API}/registerBootstrap`, {
      body: { metadata: { name: 'n' }, spec: { token: 'x' } },
    });
    expect(invalidBody.status).toBe(400);
  });

  it('answers 400 for a passport Postgres could not store (U+0000, an unpaired surrogate), and admits nothing', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    const uid = await normalToken(auth, `t-${randomUUID().slice(0, 6)}`);
    const send = (passport: Record<string, unknown>) =>
      http(base, 'POST', `${API}/registerBootstrap`, {
        body: { metadata: { name: 'unstorable' }, spec: { token: uid, passport } },
        headers: { 'x-forwarded-for': address() },
      });
    for (const passport of [
      { cluster_name: 'site\u0000a' },
      { cluster_name: 'site-a', note: 'cut \ud83d' },
      { cluster_name: 'site-a', 'k\u0000': 'v' },
    ]) {
      const res = await send(passport);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 3 });
    }
    expect((await send({ cluster_name: 'site-a', note: 'whole \ud83d\ude00' })).status).toBe(200);
    const { rows } = await db.query("SELECT passport->>'note' AS note FROM tokens.registrations WHERE token_uid = $1", [
      uid,
    ]);
    expect(rows).toEqual([{ note: 'whole \ud83d\ude00' }]);
  });

  it.each([
    ['EXPIRED', async (auth: string, name: string) => setState(auth, name, 'EXPIRED'), 'not_valid'],
    ['UNKNOWN', async (auth: string, name: string) => setState(auth, name, 0 as unknown as string), 'not_valid'],
    [
      'disable: true',
      async (auth: string, name: string) =>
        http(base, 'PUT', `${TOKENS}/${name}`, { auth, body: { metadata: { name, disable: true } } }),
      'disabled',
    ],
  ])('refuses after %s, records why, and admits again once re-validated', async (_what, change, reason) => {
    const auth = bearer(uniqueTenant(), 'admin');
    const name = `t-${randomUUID().slice(0, 6)}`;
    const uid = await normalToken(auth, name);
    expect((await register(uid, 'before')).status).toBe(200);
    await change(auth, name);
    expect((await register(uid, 'after')).body).toEqual(REFUSED);
    const { rows } = await db.query(
      'SELECT outcome, reason FROM tokens.admission_attempts WHERE token_uid = $1 AND node_name = $2',
      [uid, 'after'],
    );
    expect(rows).toEqual([{ outcome: 'REFUSED', reason }]);
    if (reason === 'disabled')
      await http(base, 'PUT', `${TOKENS}/${name}`, { auth, body: { metadata: { name, disable: false } } });
    else await setState(auth, name, 'VALID');
    expect((await register(uid, 'again')).status).toBe(200);
  });

  it('refuses past expiration_timestamp, moves the token to EXPIRED by itself, and re-validation admits again', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    // 5 s of validity: room for the token's creation and a first admission on a loaded machine.
    const expiresAt = new Date(Date.now() + 5000).toISOString();
    const uid = await normalToken(auth, 'short-lived', { expiration_timestamp: expiresAt });
    expect((await register(uid, 'early')).status).toBe(200);
    // Registering from the start would admit a site every few ms until then: wait for the time itself.
    await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(expiresAt) - Date.now())));
    await waitFor(async () => ((await register(uid, 'late')).status === 401 ? true : undefined), 15_000, 'expiry');
    const expired = await waitFor(
      async () => {
        const got = await http(base, 'GET', `${TOKENS}/short-lived`, { auth });
        return got.body.spec.state === 'EXPIRED' ? got.body : undefined;
      },
      15_000,
      'the sweeper',
    );
    expect(expired.spec.expiration_timestamp).toBe(expiresAt);
    await setState(auth, 'short-lived', 'VALID');
    expect((await register(uid, 'revived')).status).toBe(200);
    const past = await http(base, 'POST', TOKENS, {
      auth,
      body: { metadata: { name: 'in-the-past' }, spec: { expiration_timestamp: '2020-01-01T00:00:00Z' } },
    });
    expect(past.status).toBe(400);
  });

  it('admits max_registrations sites, then refuses and marks the token EXPIRED; re-validation restarts the count', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    const uid = await normalToken(auth, 'two-sites', { max_registrations: 2 });
    expect((await register(uid, 'n1')).status).toBe(200);
    expect((await register(uid, 'n2')).status).toBe(200);
    expect((await register(uid, 'n3')).body).toEqual(REFUSED);
    const got = await http(base, 'GET', `${TOKENS}/two-sites`, { auth });
    expect(got.body.spec).toMatchObject({ state: 'EXPIRED', max_registrations: 2, used_registrations: 2 });
    await setState(auth, 'two-sites', 'VALID');
    expect((await register(uid, 'n4')).status).toBe(200);
  });

  it('never admits more than max_registrations under concurrent registrations on two replicas', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    const uid = await normalToken(auth, 'race', { max_registrations: 3 });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => register(uid, `racer-${i}`)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
  });

  it('issues cloud-init with a JWT that verifies against the JWKS, appears in List, and admits only its site', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'member');
    const res = await http(
      base,
      'GET',
      `${API}/namespaces/system/get-cloud-init-config?provider=kvm&site_name=paris-1`,
      { auth },
    );
    expect(res.status).toBe(200);
    const text: string = res.body.cloud_init_config;
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    const doc = parse(text);
    const file = doc.write_files.find((f: { path: string }) => f.path === '/etc/vpm/user_data');
    const jwt = parse(file.content).token as string;

    const jwks = await http(base, 'GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    const { payload, protectedHeader } = await jwtVerify(jwt, createLocalJWKSet(jwks.body), {
      issuer: 'bastion-tokens',
    });
    expect(protectedHeader).toMatchObject({ alg: 'EdDSA', kid: expect.any(String) });
    expect(payload).toMatchObject({
      tenant,
      site_name: 'paris-1',
      sub: expect.any(String),
      jti: expect.any(String),
      iat: expect.any(Number),
    });

    const list = await http(base, 'GET', TOKENS, { auth });
    const issued = list.body.items.find((i: { uid: string }) => i.uid === payload.sub);
    expect(issued.name).toMatch(/^cloud-init-paris-1-[0-9a-f]{8}$/);
    const full = await http(base, 'GET', `${TOKENS}/${issued.name}`, { auth });
    expect(full.body.spec).toMatchObject({ type: 'JWT', site_name: 'paris-1', content: jwt, state: 'VALID' });

    expect((await register(jwt, 'kvm-node', 'paris-1')).status).toBe(200);
    expect((await register(jwt, 'kvm-node-2', 'lyon-1')).body).toEqual(REFUSED);
    const tampered = jwt.slice(0, -4) + (jwt.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    expect((await register(tampered, 'kvm-node-3', 'paris-1')).status).toBe(401);
  });

  it('answers 400 naming the supported providers for an unknown or missing one, 403 for a viewer', async () => {
    const auth = bearer(uniqueTenant(), 'member');
    const unknown = await http(base, 'GET', `${API}/namespaces/system/get-cloud-init-config?provider=xen&site_name=s`, {
      auth,
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({
      code: 3,
      message: expect.stringContaining('supported: kvm, vmware, aws, azure, gcp'),
    });
    expect((await http(base, 'GET', `${API}/namespaces/system/get-cloud-init-config`, { auth })).status).toBe(400);
    expect(
      (
        await http(base, 'GET', `${API}/namespaces/system/get-cloud-init-config?provider=kvm`, {
          auth: bearer('x', 'viewer'),
        })
      ).status,
    ).toBe(403);
  });

  it('refuses on every replica within a second of a state change made through one', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    const uid = await normalToken(auth, 'replicated');
    expect((await register(uid, 'r-1')).status).toBe(200);
    await setState(auth, 'replicated', 'EXPIRED');
    // How fast the views converge is bench/admission's question; here: they all do.
    for (const replica of replicas) {
      const view = replica.get(TokenViewSync).view;
      await waitFor(() => (view.get(uid)?.state === 'EXPIRED' ? true : undefined), 10_000, 'the view of every replica');
    }
    const attempts = await Promise.all(Array.from({ length: 10 }, (_, i) => register(uid, `r-after-${i}`)));
    expect(attempts.every((r) => r.status === 401)).toBe(true);
  });

  it("admits a JWT-type token only with its JWT, never with its bare uid (the JWT's readable sub)", async () => {
    const auth = bearer(uniqueTenant(), 'member');
    const res = await http(base, 'GET', `${API}/namespaces/system/get-cloud-init-config?provider=kvm`, { auth });
    const jwt = parse(
      parse(res.body.cloud_init_config).write_files.find((f: { path: string }) => f.path === '/etc/vpm/user_data')
        .content,
    ).token as string;
    const uid = JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString()).sub as string;
    expect((await register(uid, 'by-uid')).body).toEqual(REFUSED);
    const { rows } = await db.query(
      'SELECT reason FROM tokens.admission_attempts WHERE token_uid = $1 AND node_name = $2',
      [uid, 'by-uid'],
    );
    expect(rows).toEqual([{ reason: 'jwt_required' }]);
    expect((await register(jwt, 'by-jwt')).status).toBe(200);
  });

  it('keeps a node name to the token that registered it until that token or an admin frees it', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'admin');
    const owner = await normalToken(auth, 'owner');
    const other = await normalToken(auth, 'other', { max_registrations: 3 });
    expect((await register(owner, 'edge-7', 'site-a')).status).toBe(200);
    // Another token of the tenant cannot take the name over; the attempt is refused and audited,
    // and it does not use up one of that token's registrations.
    expect((await register(other, 'edge-7', 'site-evil')).body).toEqual(REFUSED);
    const { rows } = await db.query(
      'SELECT reason FROM tokens.admission_attempts WHERE token_uid = $1 AND node_name = $2',
      [other, 'edge-7'],
    );
    expect(rows).toEqual([{ reason: 'node_taken' }]);
    const listed = await http(base, 'GET', `${API}/namespaces/system/registrations?report_fields`, { auth });
    expect(
      listed.body.items.map((i: { get_spec: { token_uid: string; site_name: string } }) => [
        i.get_spec.token_uid,
        i.get_spec.site_name,
      ]),
    ).toEqual([[owner, 'site-a']]);
    expect((await http(base, 'GET', `${TOKENS}/other`, { auth })).body.spec).toMatchObject({ state: 'VALID' });
    // The owner token registers it again; an admin frees it; then the other token may take it.
    expect((await register(owner, 'edge-7', 'site-a2')).status).toBe(200);
    expect(
      (await http(base, 'DELETE', `${API}/namespaces/system/registrations/edge-7`, { auth: bearer(tenant, 'member') }))
        .status,
    ).toBe(403);
    expect((await http(base, 'DELETE', `${API}/namespaces/system/registrations/edge-7`, { auth })).status).toBe(200);
    expect((await register(other, 'edge-7', 'site-b')).status).toBe(200);
  });

  it('counts a flood of refusals per source and minute instead of writing a row for each', async () => {
    const from = address();
    for (let i = 0; i < 12; i++) await register(randomUUID(), `flood-${i}`, 'x', from);
    const { rows } = await db.query(
      'SELECT reason, attempts FROM tokens.admission_attempts WHERE source_address = $1 ORDER BY reason',
      [from],
    );
    // 5 refusals (ADMISSION_REFUSALS_PER_MINUTE here) then 429s: two rows, unless the minute turned meanwhile.
    expect(rows.length).toBeLessThanOrEqual(4);
    expect(rows.reduce((n: number, r: { attempts: number }) => n + r.attempts, 0)).toBe(12);
    expect(new Set(rows.map((r: { reason: string }) => r.reason))).toEqual(new Set(['unknown_token', 'rate_limited']));
  });

  it('deletes audit rows past their retention', async () => {
    const old = randomUUID();
    await db.query(
      `INSERT INTO tokens.admission_attempts (id, at, outcome, reason, source_address, node_name, site_name) VALUES ($1, now() - interval '91 days', 'REFUSED', 'unknown_token', '10.0.0.1', 'old', 'old')`,
      [old],
    );
    const fresh = randomUUID();
    await db.query(
      `INSERT INTO tokens.admission_attempts (id, at, outcome, reason, source_address, node_name, site_name) VALUES ($1, now() - interval '89 days', 'REFUSED', 'unknown_token', '10.0.0.1', 'new', 'new')`,
      [fresh],
    );
    expect(await replicas[0].get(AdmissionService).sweepAudit()).toBeGreaterThanOrEqual(1);
    const { rows } = await db.query('SELECT id FROM tokens.admission_attempts WHERE id = ANY($1)', [[old, fresh]]);
    expect(rows).toEqual([{ id: fresh }]);
  });

  it('rate-limits repeated refusals from one address with 429 and Retry-After', async () => {
    const from = address();
    for (let i = 0; i < 5; i++) expect((await register(randomUUID(), 'guess', 'x', from)).status).toBe(401);
    const limited = await register(randomUUID(), 'guess', 'x', from);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.code).toBe(8);
    // Another address is not affected.
    expect((await register(randomUUID(), 'guess', 'x', address())).status).toBe(401);
  });

  it('publishes tokens.site.admitted.v1 and tokens.site.refused.v1', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    const uid = await normalToken(auth, 'audited');
    const seen: SiteAdmissionEvent[] = [];
    const consumer = await DurableConsumer.start(nc, {
      stream: TOKENS_ADMISSIONS_STREAM,
      durable: `e2e-audit-${randomUUID().slice(0, 8)}`,
      startAt: 'new',
      // One filter for both subjects (NATS before 2.10 takes a single filter subject).
      subjects: ['tokens.site.>'],
      payload: SiteAdmissionEvent,
      logger: quietLogger('e2e'),
      handler: async (e) => void (e.tokenUid === uid && seen.push(e)),
    });
    try {
      const from = address();
      await register(uid, 'ok-node', 'site-a', from);
      await setState(auth, 'audited', 'EXPIRED');
      await register(uid, 'late-node', 'site-a', from);
      await waitFor(() => (seen.length === 2 ? true : undefined), 15_000, 'both admission events');
      expect(seen).toEqual([
        expect.objectContaining({ outcome: 'ADMITTED', nodeName: 'ok-node', sourceAddress: from, siteName: 'site-a' }),
        expect.objectContaining({
          outcome: 'REFUSED',
          reason: 'not_valid',
          nodeName: 'late-node',
          sourceAddress: from,
        }),
      ]);
    } finally {
      await consumer.stop();
    }
  });

  it('rotates keys: new JWTs carry the new kid, JWTs signed by the retired key still verify and admit', async () => {
    const auth = bearer(uniqueTenant(), 'member');
    const cloudInit = async (site: string) => {
      const res = await http(
        base,
        'GET',
        `${API}/namespaces/system/get-cloud-init-config?provider=kvm&site_name=${site}`,
        { auth },
      );
      return parse(parse(res.body.cloud_init_config).write_files[0].content).token as string;
    };
    const before = await cloudInit('any');
    const newKid = await replicas[0].get(SigningKeyService).rotate();
    // The other replica learns of the rotation by itself, on its next key refresh.
    for (const r of replicas) {
      const keys = r.get(SigningKeyService);
      await waitFor(
        async () =>
          decodeProtectedHeader(await keys.sign({ tokenUid: randomUUID(), tenant: 't' })).kid === newKid
            ? true
            : undefined,
        10_000,
        'every replica to sign with the new key',
      );
    }
    // A site that already has a valid JWT keeps it; a new site gets one signed by the new key.
    expect(await cloudInit('any')).toBe(before);
    const after = await cloudInit('other');
    expect(decodeProtectedHeader(after).kid).toBe(newKid);
    expect(decodeProtectedHeader(before).kid).not.toBe(newKid);
    const jwks = (await http(base, 'GET', '/.well-known/jwks.json')).body;
    for (const jwt of [before, after]) await expect(jwtVerify(jwt, createLocalJWKSet(jwks))).resolves.toBeDefined();
    expect((await register(before, 'old-key-node', 'any')).status).toBe(200);
    expect((await register(after, 'new-key-node', 'other')).status).toBe(200);
  });

  const cloudInitJwt = (res: { status: number; body: { cloud_init_config: string } }) => {
    expect(res.status).toBe(200);
    const text = res.body.cloud_init_config;
    expect(text.startsWith('#cloud-config\n')).toBe(true);
    const jwt = parse(parse(text).write_files[0].content).token as string;
    // Site tools read the document's `token:` line as text.
    expect(text.split('\n').map((l) => l.trim())).toContain(`token: ${jwt}`);
    return jwt;
  };

  it('F5 site bootstrap: the JWT token it created for the site is the one in the aws cloud-init, on every call', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'admin');
    // The tool's first request: a JWT token bound to the site.
    const created = await http(base, 'POST', TOKENS, {
      auth,
      body: { metadata: { name: 'site-boot-1', namespace: 'system' }, spec: { type: 1, site_name: 'boot-site-1' } },
    });
    expect(created.status).toBe(200);
    expect(created.body.spec).toMatchObject({ type: 'JWT', site_name: 'boot-site-1', state: 'VALID' });
    const jwt: string = created.body.spec.content;
    expect(jwt.split('.')).toHaveLength(3);

    // Then, exactly as it asks for the cloud-init:
    const url = `${API}/namespaces/system/get-cloud-init-config?provider=aws&site_name=boot-site-1&enable_management_network=false`;
    const first = await http(base, 'GET', url, { auth });
    expect(cloudInitJwt(first)).toBe(jwt);
    const again = await Promise.all([
      http(base, 'GET', url, { auth }),
      http(base, 'GET', url.replace('aws', 'azure'), { auth }),
    ]);
    for (const res of again) expect(cloudInitJwt(res)).toBe(jwt);

    // No token piled up: the tenant still has just the one it created.
    const list = await http(base, 'GET', TOKENS, { auth });
    expect(list.body.items.map((i: { name: string }) => i.name)).toEqual(['site-boot-1']);
    expect((await register(jwt, 'boot-node', 'boot-site-1')).status).toBe(200);
  });

  it('issues a new JWT only when the site has no valid one, and then reuses it', async () => {
    const auth = bearer(uniqueTenant(), 'admin');
    const url = (provider: string) =>
      `${API}/namespaces/system/get-cloud-init-config?provider=${provider}&site_name=lyon-2`;
    // Another site's JWT token and a NORMAL token do not count.
    await http(base, 'POST', TOKENS, {
      auth,
      body: { metadata: { name: 'other-site' }, spec: { type: 'JWT', site_name: 'lyon-3' } },
    });
    await normalToken(auth, 'plain');
    const firstJwt = cloudInitJwt(await http(base, 'GET', url('gcp'), { auth }));
    const names = async () =>
      (await http(base, 'GET', TOKENS, { auth })).body.items.map((i: { name: string }) => i.name) as string[];
    const issued = (await names()).filter((n) => n.startsWith('cloud-init-lyon-2-'));
    expect(issued).toHaveLength(1);
    const concurrent = await Promise.all(
      ['vmware', 'kvm', 'gcp', 'aws'].map((p) => http(base, 'GET', url(p), { auth })),
    );
    for (const res of concurrent) expect(cloudInitJwt(res)).toBe(firstJwt);
    expect((await names()).filter((n) => n.startsWith('cloud-init-lyon-2-'))).toHaveLength(1);

    // Once that token is no longer VALID, the next call issues a fresh one.
    expect((await setState(auth, issued[0], 'EXPIRED')).status).toBe(200);
    const secondJwt = cloudInitJwt(await http(base, 'GET', url('kvm'), { auth }));
    expect(secondJwt).not.toBe(firstJwt);
    expect((await names()).filter((n) => n.startsWith('cloud-init-lyon-2-'))).toHaveLength(2);
    expect(cloudInitJwt(await http(base, 'GET', url('kvm'), { auth }))).toBe(secondJwt);
  });

  it('issues one JWT for a new site however many first calls arrive at once, across both replicas', async () => {
    const auth = bearer(uniqueTenant(), 'member');
    const url = `${API}/namespaces/system/get-cloud-init-config?provider=kvm&site_name=burst-1`;
    const answers = await Promise.all(Array.from({ length: 12 }, () => http(base, 'GET', url, { auth })));
    const jwts = new Set(answers.map(cloudInitJwt));
    expect(jwts.size).toBe(1);
    const list = await http(base, 'GET', TOKENS, { auth });
    expect(list.body.items.map((i: { name: string }) => i.name)).toEqual([
      expect.stringMatching(/^cloud-init-burst-1-[0-9a-f]{8}$/),
    ]);
  });
});
