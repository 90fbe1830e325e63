import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import { signDevToken } from '@bastion/auth';
import { TOKENS_STREAM, TokenEvents, TokenStateChangedEvent } from '@bastion/contracts';
import { connectNats, DurableConsumer } from '@bastion/messaging';
import { createLogger } from '@bastion/observability';
import { bearer, uniqueTenant, waitFor, testNatsLogin } from '@bastion/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import jwt from 'jsonwebtoken';
import { generateKeyPairSync } from 'node:crypto';
import { http, quietLogger, startGateway, startTokensService } from '../support/stack';

const TOKENS = (ns = 'system') => `/api/register/namespaces/${ns}/tokens`;
const RFC3339_FRACTION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d+Z$/;
const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// Starting the service and the gateway takes more than jest's default 5 s on a loaded machine.
jest.setTimeout(30_000);

describe('token API through the gateway', () => {
  let tokens: INestMicroservice;
  let gateway: INestApplication;
  let base: string;
  let nc: NatsConnection;
  const serviceLog: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        serviceLog.push(...chunk.toString().split('\n').filter(Boolean));
        done();
      },
    });
    tokens = await startTokensService(createLogger('tokens', 'debug', sink));
    ({ app: gateway, url: base } = await startGateway());
    nc = await connectNats(testNatsLogin(), { name: 'e2e-observer' });
  });

  afterAll(async () => {
    await nc?.close();
    await gateway?.close();
    await tokens?.close();
  });

  const create = (auth: string, name: string, extra: Record<string, unknown> = {}, ns = 'system') =>
    http(base, 'POST', TOKENS(ns), { auth, body: { metadata: { name, namespace: ns, ...extra }, spec: {} } });

  describe('authentication', () => {
    it('refuses a request with no token', async () => {
      const res = await http(base, 'GET', TOKENS());
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ code: 16, details: [], message: 'missing or invalid bearer token' });
    });

    it.each([
      ['garbage', 'Bearer not-a-jwt'],
      ['an unknown scheme', `Basic ${Buffer.from('a:b').toString('base64')}`],
      ['a token signed by another key', `Bearer ${foreignToken()}`],
      ['an expired token', `Bearer ${signDevToken({ tenant: 'acme', roles: ['admin'], expiresInSeconds: -10 })}`],
      [
        'a token for another audience',
        `Bearer ${signDevToken({ tenant: 'acme', roles: ['admin'], audience: 'someone-else' })}`,
      ],
      ['a token without roles', `Bearer ${jwt.sign({ tenant: 'acme' }, 'x')}`],
    ])('refuses %s', async (_what, auth) => {
      const res = await http(base, 'GET', TOKENS(), { auth });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe(16);
    });

    it('accepts the APIToken scheme as well as Bearer', async () => {
      const tenant = uniqueTenant();
      const jwtOnly = bearer(tenant, 'viewer').replace('Bearer ', '');
      expect((await http(base, 'GET', TOKENS(), { auth: `APIToken ${jwtOnly}` })).status).toBe(200);
      expect((await http(base, 'GET', TOKENS(), { auth: `Bearer ${jwtOnly}` })).status).toBe(200);
    });
  });

  describe('create', () => {
    it('creates a VALID NORMAL token with every default written', async () => {
      const tenant = uniqueTenant();
      const res = await http(base, 'POST', TOKENS(), {
        auth: bearer(tenant, 'member', { sub: 'alice' }),
        body: { metadata: { name: 'edge-1', namespace: 'system', labels: { env: 'prod' } }, spec: {} },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        metadata: {
          name: 'edge-1',
          namespace: 'system',
          labels: { env: 'prod' },
          annotations: {},
          description: '',
          disable: false,
        },
        system_metadata: {
          creation_timestamp: expect.stringMatching(RFC3339_FRACTION),
          creator_class: 'bastion-tokens',
          creator_id: 'alice',
          deletion_timestamp: null,
          finalizers: [],
          initializers: { pending: [], result: null },
          labels: {},
          modification_timestamp: null,
          object_index: 0,
          owner_view: null,
          tenant,
          uid: expect.stringMatching(UUID_V4),
        },
        spec: {
          state: 'VALID',
          type: 'NORMAL',
          content: '',
          site_name: '',
          expiration_timestamp: null,
          max_registrations: null,
          used_registrations: 0,
        },
      });
    });

    it('accepts the body as curl -d sends it (form content type) and lets the path namespace win', async () => {
      const tenant = uniqueTenant();
      const res = await http(base, 'POST', TOKENS('edge-sites'), {
        auth: bearer(tenant, 'admin'),
        rawBody: JSON.stringify({ metadata: { name: 'n1', namespace: 'other' }, spec: {} }),
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(200);
      expect(res.body.metadata.namespace).toBe('edge-sites');
    });

    it('accepts spec.type and spec.site_name, enums by name or number, and echoes them', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'member');
      const byNumber = await http(base, 'POST', TOKENS(), {
        auth,
        body: { metadata: { name: 'j1' }, spec: { type: 1, site_name: 'site-a' } },
      });
      expect(byNumber.status).toBe(200);
      expect(byNumber.body.spec).toMatchObject({ state: 'VALID', type: 'JWT', site_name: 'site-a' });
      expect(byNumber.body.spec.content).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      const byName = await http(base, 'POST', TOKENS(), {
        auth,
        body: { metadata: { name: 'j2' }, spec: { type: 'NORMAL' } },
      });
      expect(byName.body.spec.type).toBe('NORMAL');
    });

    it('answers 409 "Object already exists" for a duplicate name in the same tenant and namespace', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      expect((await create(auth, 'dup')).status).toBe(200);
      const again = await create(auth, 'dup');
      expect(again.status).toBe(409);
      expect(again.body).toEqual({ code: 6, details: [], message: 'Object already exists' });
    });

    it('lets two tenants use the same name', async () => {
      expect((await create(bearer(uniqueTenant(), 'member'), 'shared-name')).status).toBe(200);
      expect((await create(bearer(uniqueTenant(), 'member'), 'shared-name')).status).toBe(200);
    });

    it.each([
      ['no metadata', { spec: {} }, 'metadata'],
      ['a name that is not a DNS label', { metadata: { name: 'Not_A_Label' } }, 'metadata.name'],
      ['labels that are not strings', { metadata: { name: 'x', labels: { a: 1 } } }, 'metadata.labels'],
      ['disable that is not a boolean', { metadata: { name: 'x', disable: 'yes' } }, 'metadata.disable'],
      ['an unknown token type', { metadata: { name: 'x' }, spec: { type: 'GOLD' } }, 'spec.type'],
    ])('refuses %s with 400 naming the field', async (_what, body, field) => {
      const res = await http(base, 'POST', TOKENS(), { auth: bearer(uniqueTenant(), 'admin'), body });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(3);
      expect(res.body.details[0].field_violations.map((v: { field: string }) => v.field)).toContain(field);
    });

    it('refuses a body that is not JSON and a namespace that is not a DNS label', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      const notJson = await http(base, 'POST', TOKENS(), {
        auth,
        rawBody: '{"metadata":',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
      expect(notJson.body).toEqual({ code: 3, details: [], message: 'request body is not valid JSON' });
      const badNs = await create(auth, 'x', {}, 'Bad_NS');
      expect(badNs.status).toBe(400);
      expect(badNs.body.message).toContain('namespace');
    });

    it('refuses a viewer with 403', async () => {
      const res = await create(bearer(uniqueTenant(), 'viewer'), 'nope');
      expect(res.status).toBe(403);
      expect(res.body.code).toBe(7);
    });
  });

  describe('list', () => {
    it('lists summaries sorted by name, with report fields only when asked', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'member');
      for (const name of ['charlie', 'alpha', 'bravo'])
        await create(auth, name, { labels: { env: name === 'alpha' ? 'dev' : 'prod' } });
      const plain = await http(base, 'GET', TOKENS(), { auth });
      expect(plain.status).toBe(200);
      expect(plain.body.errors).toEqual([]);
      expect(plain.body.items.map((i: { name: string }) => i.name)).toEqual(['alpha', 'bravo', 'charlie']);
      expect(plain.body.items[0]).toEqual({
        tenant,
        namespace: 'system',
        name: 'alpha',
        uid: expect.stringMatching(UUID_V4),
        description: '',
        disabled: false,
        labels: { env: 'dev' },
        annotations: {},
        owner_view: null,
        metadata: null,
        system_metadata: null,
        get_spec: null,
        status_set: [],
      });
      const full = await http(base, 'GET', `${TOKENS()}?report_fields&report_status_fields`, { auth });
      expect(full.body.items[0].metadata).toMatchObject({ name: 'alpha', labels: { env: 'dev' } });
      expect(full.body.items[0].system_metadata).toMatchObject({ tenant, uid: full.body.items[0].uid });
      expect(full.body.items[0].get_spec).toEqual({
        state: 'VALID',
        type: 'NORMAL',
        content: '',
        site_name: '',
        expiration_timestamp: null,
        max_registrations: null,
        used_registrations: 0,
      });
      expect(full.body.items[0].status_set).toHaveLength(1);
      expect(full.body.items[0].status_set[0].conditions[0]).toMatchObject({
        type: 'Admission',
        status: 'True',
        reason: 'VALID',
      });
    });

    it.each([
      ['env=prod', ['bravo', 'charlie']],
      ['env==dev', ['alpha']],
      ['env!=prod', ['alpha', 'delta']],
      ['env in (dev, prod), tier', ['charlie']],
      ['env notin (prod)', ['alpha', 'delta']],
      ['!env', ['delta']],
      ['tier', ['charlie']],
    ])('filters with label_filter %p', async (filter, expected) => {
      const auth = bearer(uniqueTenant(), 'member');
      await create(auth, 'alpha', { labels: { env: 'dev' } });
      await create(auth, 'bravo', { labels: { env: 'prod' } });
      await create(auth, 'charlie', { labels: { env: 'prod', tier: 'web' } });
      await create(auth, 'delta');
      const res = await http(base, 'GET', `${TOKENS()}?label_filter=${encodeURIComponent(filter)}`, { auth });
      expect(res.status).toBe(200);
      expect(res.body.items.map((i: { name: string }) => i.name)).toEqual(expected);
    });

    it('refuses a malformed selector with 400', async () => {
      const res = await http(base, 'GET', `${TOKENS()}?label_filter=${encodeURIComponent('env in (a, b')}`, {
        auth: bearer(uniqueTenant(), 'viewer'),
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe(3);
      expect(res.body.message).toMatch(/^invalid label_filter/);
    });

    it("shows nothing of another tenant's tokens", async () => {
      await create(bearer(uniqueTenant(), 'member'), 'private');
      const res = await http(base, 'GET', TOKENS(), { auth: bearer(uniqueTenant(), 'admin') });
      expect(res.body.items).toEqual([]);
    });
  });

  describe('get', () => {
    const FORMATS: [string | number, string | null][] = [
      ['GET_RSP_FORMAT_DEFAULT', null],
      ['GET_RSP_FORMAT_FOR_CREATE', 'create_form'],
      ['GET_RSP_FORMAT_FOR_REPLACE', 'replace_form'],
      ['GET_RSP_FORMAT_STATUS', 'status'],
      ['GET_RSP_FORMAT_READ', null],
      ['GET_RSP_FORMAT_REFERRING_OBJECTS', 'referring_objects'],
      ['GET_RSP_FORMAT_BROKEN_REFERENCES', 'deleted_referred_objects'],
      [1, 'create_form'],
      [2, 'replace_form'],
      [3, 'status'],
    ];

    it.each(FORMATS)('answers response_format %p with every key present', async (format, filled) => {
      const auth = bearer(uniqueTenant(), 'member');
      await create(auth, 'g1', { labels: { a: 'b' }, description: 'd' });
      const res = await http(base, 'GET', `${TOKENS()}/g1?response_format=${format}`, { auth });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(
        [
          'create_form',
          'deleted_referred_objects',
          'disabled_referred_objects',
          'metadata',
          'referring_objects',
          'replace_form',
          'spec',
          'status',
          'system_metadata',
        ].sort(),
      );
      expect(res.body.metadata).toEqual({
        name: 'g1',
        namespace: 'system',
        labels: { a: 'b' },
        annotations: {},
        description: 'd',
        disable: false,
      });
      expect(res.body.spec.state).toBe('VALID');
      expect(res.body.create_form).toEqual(
        filled === 'create_form'
          ? {
              metadata: res.body.metadata,
              spec: { type: 'NORMAL', site_name: '', expiration_timestamp: null, max_registrations: null },
            }
          : null,
      );
      expect(res.body.replace_form).toEqual(
        filled === 'replace_form' ? { metadata: res.body.metadata, spec: {} } : null,
      );
      expect(res.body.status).toHaveLength(filled === 'status' ? 1 : 0);
      expect(res.body.referring_objects).toEqual([]);
      expect(res.body.deleted_referred_objects).toEqual([]);
      expect(res.body.disabled_referred_objects).toEqual([]);
    });

    it('refuses an unknown response_format', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      await create(auth, 'g2');
      const res = await http(base, 'GET', `${TOKENS()}/g2?response_format=GET_RSP_FORMAT_NOPE`, { auth });
      expect(res.status).toBe(400);
    });

    it("answers 404 in the API words for a missing token and for another tenant's", async () => {
      const owner = bearer(uniqueTenant(), 'member');
      await create(owner, 'mine');
      for (const auth of [owner, bearer(uniqueTenant(), 'admin')]) {
        const name = auth === owner ? 'absent' : 'mine';
        const res = await http(base, 'GET', `${TOKENS()}/${name}`, { auth });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({
          code: 5,
          details: [],
          message: `ves.io.schema.token.Object: ${name} does not exist in namespace system`,
        });
      }
    });
  });

  describe('replace', () => {
    it('rewrites metadata only and answers {}', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const created = await create(auth, 'r1', { labels: { a: '1' }, description: 'old' });
      const res = await http(base, 'PUT', `${TOKENS()}/r1`, {
        auth,
        body: {
          metadata: { name: 'r1', labels: { b: '2' }, annotations: { note: 'x' }, description: 'new', disable: true },
          spec: {},
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({});
      const got = await http(base, 'GET', `${TOKENS()}/r1`, { auth });
      expect(got.body.metadata).toEqual({
        name: 'r1',
        namespace: 'system',
        labels: { b: '2' },
        annotations: { note: 'x' },
        description: 'new',
        disable: true,
      });
      expect(got.body.system_metadata.uid).toBe(created.body.system_metadata.uid);
      expect(got.body.system_metadata.modification_timestamp).toMatch(RFC3339_FRACTION);
      expect(got.body.spec.state).toBe('VALID');
    });

    it('answers 404 for a missing token and for another tenant, 403 for a viewer', async () => {
      const owner = bearer(uniqueTenant(), 'member');
      await create(owner, 'r2');
      const body = { metadata: { name: 'r2' }, spec: {} };
      expect(
        (await http(base, 'PUT', `${TOKENS()}/absent`, { auth: owner, body: { metadata: { name: 'absent' } } })).status,
      ).toBe(404);
      expect((await http(base, 'PUT', `${TOKENS()}/r2`, { auth: bearer(uniqueTenant(), 'admin'), body })).status).toBe(
        404,
      );
      expect(
        (await http(base, 'PUT', `${TOKENS()}/r2`, { auth: owner.replace(/.*/, bearer('x', 'viewer')), body })).status,
      ).toBe(403);
    });
  });

  describe('set state', () => {
    it('moves between any states, by name or number, and answers the changed object', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'admin');
      const created = await create(auth, 's1');
      const res = await http(base, 'POST', `${TOKENS()}/s1/state`, {
        auth,
        body: { name: 's1', namespace: 'system', state: 'EXPIRED' },
      });
      expect(res.status).toBe(200);
      expect(res.body.obj.metadata).toMatchObject({
        name: 's1',
        namespace: 'system',
        uid: created.body.system_metadata.uid,
      });
      expect(res.body.obj.spec).toEqual({
        gc_spec: {
          state: 'EXPIRED',
          type: 'NORMAL',
          content: '',
          site_name: '',
          expiration_timestamp: null,
          max_registrations: null,
          used_registrations: 0,
        },
      });
      expect(res.body.obj.system_metadata).toMatchObject({
        tenant,
        sre_disable: false,
        vtrp_stale: false,
        namespace: [],
        creator_cookie: '',
      });
      for (const [state, name] of [
        [1, 'VALID'],
        [0, 'UNKNOWN'],
        ['EXPIRED', 'EXPIRED'],
        ['VALID', 'VALID'],
      ] as const) {
        const r = await http(base, 'POST', `${TOKENS()}/s1/state`, { auth, body: { state } });
        expect(r.body.obj.spec.gc_spec.state).toBe(name);
        expect((await http(base, 'GET', `${TOKENS()}/s1`, { auth })).body.spec.state).toBe(name);
      }
    });

    it('refuses state 2 (there is none), a member, and another tenant', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      await create(auth, 's2');
      expect((await http(base, 'POST', `${TOKENS()}/s2/state`, { auth, body: { state: 2 } })).status).toBe(400);
      expect(
        (
          await http(base, 'POST', `${TOKENS()}/s2/state`, {
            auth: bearer('other', 'member'),
            body: { state: 'VALID' },
          })
        ).status,
      ).toBe(403);
      expect(
        (
          await http(base, 'POST', `${TOKENS()}/s2/state`, {
            auth: bearer(uniqueTenant(), 'admin'),
            body: { state: 'VALID' },
          })
        ).status,
      ).toBe(404);
    });

    it('publishes tokens.token.state-changed.v1 on JetStream within a second', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'admin');
      await create(auth, 'ev1');
      const seen: TokenStateChangedEvent[] = [];
      const consumer = await DurableConsumer.start(nc, {
        stream: TOKENS_STREAM,
        durable: `e2e-${randomUUID().slice(0, 8)}`,
        startAt: 'new',
        subjects: [TokenEvents.stateChanged],
        payload: TokenStateChangedEvent,
        logger: quietLogger('e2e'),
        handler: async (e) => void (e.tenant === tenant && seen.push(e)),
      });
      try {
        await http(base, 'POST', `${TOKENS()}/ev1/state`, { auth, body: { state: 'EXPIRED' } });
        const event = await waitFor(() => seen[0], 10_000, 'the state-changed event');
        expect(event).toMatchObject({
          tenant,
          namespace: 'system',
          name: 'ev1',
          state: 'EXPIRED',
          previousState: 'VALID',
          disable: false,
        });
      } finally {
        await consumer.stop();
      }
    });

    it('lets a stopped consumer catch up on the events it missed', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'admin');
      await create(auth, 'ev2');
      const durable = `e2e-catchup-${randomUUID().slice(0, 8)}`;
      const seen: string[] = [];
      const options = {
        stream: TOKENS_STREAM,
        durable,
        startAt: 'new' as const,
        subjects: [TokenEvents.stateChanged],
        payload: TokenStateChangedEvent,
        logger: quietLogger('e2e'),
        handler: async (e: TokenStateChangedEvent) => void (e.tenant === tenant && seen.push(e.state)),
      };
      const first = await DurableConsumer.start(nc, options);
      await http(base, 'POST', `${TOKENS()}/ev2/state`, { auth, body: { state: 'EXPIRED' } });
      await waitFor(() => (seen.length === 1 ? true : undefined), 15_000, 'the first event');
      await first.stop();
      // While the consumer is away, two more changes happen.
      await http(base, 'POST', `${TOKENS()}/ev2/state`, { auth, body: { state: 'UNKNOWN' } });
      await http(base, 'POST', `${TOKENS()}/ev2/state`, { auth, body: { state: 'VALID' } });
      // Both wait in the durable (published before the answers above), and neither reached the handler:
      // not yet delivered, or delivered to the stopped consumer's last pull before the server heard
      // it was gone (those come again after the ack wait, 5 s).
      const jsm = await jetstreamManager(nc);
      await waitFor(
        async () => {
          const info = await jsm.consumers.info(TOKENS_STREAM, durable);
          return info.num_pending + info.num_ack_pending >= 2 ? true : undefined;
        },
        15_000,
        'both changes kept for the durable',
      );
      expect(seen).toEqual(['EXPIRED']);
      const second = await DurableConsumer.start(nc, options);
      try {
        // Longer than the ack wait (5 s), for events the stopped consumer's pull took.
        await waitFor(() => (seen.length === 3 ? true : undefined), 20_000, 'the missed events');
        expect(seen).toEqual(['EXPIRED', 'UNKNOWN', 'VALID']);
      } finally {
        await second.stop();
      }
    });
  });

  describe('delete', () => {
    it('deletes with an empty body or with fail_if_referred, answering {}; then 404', async () => {
      const auth = bearer(uniqueTenant(), 'admin');
      await create(auth, 'd1');
      await create(auth, 'd2');
      const plain = await http(base, 'DELETE', `${TOKENS()}/d1`, { auth });
      expect(plain.status).toBe(200);
      expect(plain.body).toEqual({});
      const referred = await http(base, 'DELETE', `${TOKENS()}/d2`, {
        auth,
        body: { fail_if_referred: true, name: 'd2', namespace: 'system' },
      });
      expect(referred.status).toBe(200);
      const again = await http(base, 'DELETE', `${TOKENS()}/d1`, { auth });
      expect(again.status).toBe(404);
      expect(again.body.message).toBe('ves.io.schema.token.Object: d1 does not exist in namespace system');
    });

    it("refuses a member, and answers 404 for another tenant's token", async () => {
      const tenant = uniqueTenant();
      await create(bearer(tenant, 'admin'), 'd3');
      expect((await http(base, 'DELETE', `${TOKENS()}/d3`, { auth: bearer(tenant, 'member') })).status).toBe(403);
      expect((await http(base, 'DELETE', `${TOKENS()}/d3`, { auth: bearer(uniqueTenant(), 'admin') })).status).toBe(
        404,
      );
      expect((await http(base, 'GET', `${TOKENS()}/d3`, { auth: bearer(tenant, 'viewer') })).status).toBe(200);
    });
  });

  describe('plumbing', () => {
    it('carries x-request-id to the response and into the service logs', async () => {
      const requestId = `e2e-${randomUUID()}`;
      const res = await http(base, 'GET', TOKENS(), {
        auth: bearer(uniqueTenant(), 'viewer'),
        headers: { 'x-request-id': requestId },
      });
      expect(res.headers.get('x-request-id')).toBe(requestId);
      const line = await waitFor(() => serviceLog.find((l) => l.includes(requestId)), 15_000, 'the service log line');
      expect(JSON.parse(line)).toMatchObject({
        service: 'tokens',
        requestId,
        subject: 'tokens.token.list.v1',
        msg: 'handled',
      });
    });

    it('answers unknown routes with 404 in the token error format', async () => {
      const res = await http(base, 'GET', '/api/register/nothing-here', { auth: bearer('t', 'admin') });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe(5);
    });

    it('serves the OpenAPI document and the docs UI without a token', async () => {
      const doc = await http(base, 'GET', '/openapi.json');
      expect(doc.status).toBe(200);
      expect(Object.keys(doc.body.paths)).toEqual(
        expect.arrayContaining([
          '/api/register/namespaces/{namespace}/tokens',
          '/api/register/namespaces/{namespace}/tokens/{name}/state',
        ]),
      );
      expect(doc.body.components.schemas.CreateTokenRequest).toBeDefined();
      const ui = await http(base, 'GET', '/docs');
      expect(ui.status).toBe(200);
      expect(String(ui.body)).toContain('<html');
    });

    it('says ok or not on the public /healthz, and nothing more (only this service runs here)', async () => {
      const res = await http(base, 'GET', '/healthz');
      expect(res.body).toEqual({ status: res.status === 200 ? 'ok' : 'degraded' });
    });
  });
});

function foreignToken(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return jwt.sign({ tenant: 'acme', roles: ['admin'] }, privateKey, {
    algorithm: 'ES256',
    issuer: 'bastion-dev',
    audience: 'bastion',
    subject: 'x',
  });
}
