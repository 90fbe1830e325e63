import { randomUUID } from 'node:crypto';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import type { PromptRecordedEvent } from '@bastion/contracts';
import { connectNats } from '@bastion/messaging';
import { bearer, uniqueTenant, waitFor, testNatsLogin } from '@bastion/testing';
import type { NatsConnection } from '@nats-io/transport-node';
import { promptRecord, publishRecords, startPromptsService } from '../support/prompts';
import { http, startGateway } from '../support/stack';

const P = '/backend/v1/prompts';
const T = `${P}/templates`;

jest.setTimeout(30_000);

describe('prompts through the gateway', () => {
  let service: INestMicroservice | undefined;
  let gateway: INestApplication;
  let base: string;
  let nc: NatsConnection;

  beforeAll(async () => {
    service = await startPromptsService();
    ({ app: gateway, url: base } = await startGateway());
    nc = await connectNats(testNatsLogin(), { name: 'e2e-prompts' });
  });

  afterAll(async () => {
    await nc?.close();
    await gateway?.close();
    await service?.close();
  });

  /** Publishes records as the proxy would and waits until the tenant's list shows them all. */
  async function recorded(tenant: string, records: PromptRecordedEvent[]): Promise<void> {
    await publishRecords(nc, records);
    const auth = bearer(tenant, 'viewer');
    await waitFor(
      async () => {
        const ids = new Set((await listAll(auth, '')).map((p) => p.id));
        return records.every((r) => ids.has(r.id)) ? true : undefined;
      },
      10_000,
      `${records.length} records of ${tenant} to be stored`,
    );
  }

  /** Every page of a list, following `next`. */
  async function listAll(
    auth: string,
    query: string,
  ): Promise<{ id: string; input: string; projectId: string | null; result: { outcome: string } }[]> {
    const items = [];
    let cursor: string | null = null;
    do {
      const res = await http(base, 'GET', `${P}?limit=100${query}${cursor ? `&cursor=${cursor}` : ''}`, { auth });
      expect(res.status).toBe(200);
      items.push(...res.body.prompts);
      cursor = res.body.next;
    } while (cursor);
    return items;
  }

  const at = (minute: number) => new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString();

  it('shows a recorded prompt exactly as the spec describes it', async () => {
    const tenant = uniqueTenant();
    const record = promptRecord(tenant, {
      projectId: 'proj-a',
      parentId: 'parent-1',
      memory: ['Hi'],
      extraInputs: { lang: 'fr' },
      externalMetadata: { ticket: 'T-1' },
      preserve: true,
      receivedAt: at(0),
    });
    await recorded(tenant, [record]);
    const res = await http(base, 'GET', `${P}/${record.id}`, { auth: bearer(tenant, 'viewer') });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      prompt: {
        id: record.id,
        parentId: 'parent-1',
        projectId: 'proj-a',
        userId: 'user-1',
        provider: 'openai-prod',
        input: 'What is the capital of France?',
        memory: ['Hi'],
        extraInputs: { lang: 'fr' },
        externalMetadata: { ticket: 'T-1' },
        fromTemplate: false,
        preserve: true,
        receivedAt: at(0),
        type: 'prompt',
        result: {
          outcome: 'cleared',
          response: 'Paris.',
          files: [],
          providerResult: { data: '{"content":"Paris."}', receivedDate: at(0), sentDate: at(0), statusCode: 200 },
          scannerResults: [
            {
              scannerId: 'scanner-pii',
              outcome: 'passed',
              scanDirection: 'request',
              data: { type: 'regex', matches: [] },
              message: '',
              customConfig: false,
              startedDate: at(0),
              completedDate: at(0),
              scannerVersionMeta: null,
            },
          ],
        },
      },
    });
    expect((await http(base, 'GET', `${P}/${randomUUID()}`, { auth: bearer(tenant, 'viewer') })).status).toBe(404);
    const bad = await http(base, 'GET', `${P}/not-a-uuid`, { auth: bearer(tenant, 'viewer') });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['path', 'id']);
  });

  it('pages newest first by receipt time, forward and back', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'viewer');
    // Published out of order: the list follows receivedAt, not arrival.
    const records = [3, 0, 4, 1, 2].map((m) => promptRecord(tenant, { input: `p${m}`, receivedAt: at(m) }));
    await recorded(tenant, records);
    const first = await http(base, 'GET', `${P}?limit=2`, { auth });
    expect(first.body.prompts.map((p: { input: string }) => p.input)).toEqual(['p4', 'p3']);
    expect(first.body.prev).toBeNull();
    const second = await http(base, 'GET', `${P}?limit=2&cursor=${first.body.next}`, { auth });
    expect(second.body.prompts.map((p: { input: string }) => p.input)).toEqual(['p2', 'p1']);
    const third = await http(base, 'GET', `${P}?limit=2&cursor=${second.body.next}`, { auth });
    expect(third.body.prompts.map((p: { input: string }) => p.input)).toEqual(['p0']);
    expect(third.body.next).toBeNull();
    const back = await http(base, 'GET', `${P}?limit=2&cursor=${third.body.prev}`, { auth });
    expect(back.body.prompts.map((p: { input: string }) => p.input)).toEqual(['p2', 'p1']);
    const backAgain = await http(base, 'GET', `${P}?limit=2&cursor=${back.body.prev}`, { auth });
    expect(backAgain.body.prompts.map((p: { input: string }) => p.input)).toEqual(['p4', 'p3']);
    expect(backAgain.body.prev).toBeNull();
    expect((await http(base, 'GET', `${P}?cursor=garbage`, { auth })).status).toBe(422);
    expect((await http(base, 'GET', `${P}?limit=1000`, { auth })).status).toBe(422);
  });

  it('filters by project, outcomes and receipt time, alone and together', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'viewer');
    const rec = (
      input: string,
      projectId: string | null,
      outcome: PromptRecordedEvent['result']['outcome'],
      minute: number,
    ) =>
      promptRecord(tenant, {
        input,
        projectId,
        receivedAt: at(minute),
        result: { ...promptRecord(tenant).result, outcome },
      });
    await recorded(tenant, [
      rec('a', 'proj-1', 'cleared', 1),
      rec('b', 'proj-1', 'flagged', 2),
      rec('c', 'proj-2', 'blocked', 3),
      rec('d', 'proj-2', 'redacted', 4),
      rec('e', null, 'flagged', 5),
    ]);
    const inputs = async (query: string) => (await listAll(auth, query)).map((p) => p.input);
    expect(await inputs('')).toEqual(['e', 'd', 'c', 'b', 'a']);
    expect(await inputs('&projectId=proj-1')).toEqual(['b', 'a']);
    expect(await inputs('&outcomes=flagged')).toEqual(['e', 'b']);
    expect(await inputs('&outcomes=flagged,blocked')).toEqual(['e', 'c', 'b']);
    expect(await inputs('&outcomes=flagged&outcomes=redacted')).toEqual(['e', 'd', 'b']);
    expect(await inputs(`&after=${encodeURIComponent(at(2))}`)).toEqual(['e', 'd', 'c']);
    expect(await inputs(`&before=${encodeURIComponent(at(2))}`)).toEqual(['a']);
    expect(await inputs(`&after=${encodeURIComponent(at(1))}&before=${encodeURIComponent(at(5))}`)).toEqual([
      'd',
      'c',
      'b',
    ]);
    // An offset, and the `+` of an unencoded offset that a query string turns into a space.
    expect(await inputs('&after=2026-03-01T12:03:30%2B02:00')).toEqual(['e', 'd']);
    expect(await inputs('&after=2026-03-01T12:03:30+02:00')).toEqual(['e', 'd']);
    expect(await inputs(`&projectId=proj-2&outcomes=blocked,flagged&after=${encodeURIComponent(at(0))}`)).toEqual([
      'c',
    ]);
    expect(await inputs('&projectId=proj-9')).toEqual([]);
  });

  it('answers 422 naming each bad filter', async () => {
    const auth = bearer(uniqueTenant(), 'viewer');
    const outcome = await http(base, 'GET', `${P}?outcomes=flagged,passed`, { auth });
    expect(outcome.status).toBe(422);
    expect(outcome.body.detail).toEqual([
      expect.objectContaining({ loc: ['query', 'outcomes'], msg: expect.stringContaining('"passed"') }),
    ]);
    const times = await http(base, 'GET', `${P}?after=yesterday&before=2026-02-30`, { auth });
    expect(times.status).toBe(422);
    expect(times.body.detail.map((d: { loc: string[] }) => d.loc)).toEqual([
      ['query', 'after'],
      ['query', 'before'],
    ]);
    const reversed = await http(base, 'GET', `${P}?after=2026-03-02&before=2026-03-01`, { auth });
    expect(reversed.status).toBe(422);
  });

  it('makes a template from a prompt and shows the prompts sent from it', async () => {
    const tenant = uniqueTenant();
    const member = bearer(tenant, 'member', { sub: 'alice' });
    const source = promptRecord(tenant, {
      projectId: 'proj-t',
      input: 'Summarise the release notes.',
      receivedAt: at(0),
    });
    await recorded(tenant, [source]);

    const created = await http(base, 'POST', T, { auth: member, body: { name: 'release notes', promptId: source.id } });
    expect(created.status).toBe(200);
    const template = created.body.promptTemplate;
    expect(template).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'release notes',
      projectId: 'proj-t',
      promptId: source.id,
      userId: 'alice',
      createdAt: expect.any(String),
    });
    expect(Date.now() - Date.parse(template.createdAt)).toBeLessThan(60_000);

    const empty = await http(base, 'GET', `${T}/${template.id}`, { auth: bearer(tenant, 'viewer') });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ promptTemplate: template, prompts: [] });

    // What the proxy records when a prompt is sent from the template.
    const sent = [1, 2].map((m) =>
      promptRecord(tenant, {
        projectId: 'proj-t',
        input: source.input,
        fromTemplate: true,
        templateId: template.id,
        source: 'prompts',
        receivedAt: at(m),
      }),
    );
    await recorded(tenant, sent);
    const got = await http(base, 'GET', `${T}/${template.id}`, { auth: bearer(tenant, 'viewer') });
    expect(got.body.promptTemplate).toEqual(template);
    expect(got.body.prompts.map((p: { id: string }) => p.id)).toEqual([sent[1].id, sent[0].id]);
    expect(
      got.body.prompts.every(
        (p: { fromTemplate: boolean; input: string }) => p.fromTemplate && p.input === source.input,
      ),
    ).toBe(true);
    expect(Object.keys(got.body.prompts[0]).sort()).toEqual(
      Object.keys((await http(base, 'GET', `${P}/${source.id}`, { auth: member })).body.prompt).sort(),
    );

    const other = await http(base, 'POST', T, {
      auth: member,
      body: { name: 'elsewhere', promptId: source.id, projectId: 'proj-x' },
    });
    expect(other.body.promptTemplate.projectId).toBe('proj-x');
  });

  it('refuses bad template requests', async () => {
    const tenant = uniqueTenant();
    const member = bearer(tenant, 'member');
    const source = promptRecord(tenant);
    await recorded(tenant, [source]);
    expect(
      (await http(base, 'POST', T, { auth: bearer(tenant, 'viewer'), body: { name: 'n', promptId: source.id } }))
        .status,
    ).toBe(403);
    const missing = await http(base, 'POST', T, { auth: member, body: { promptId: source.id } });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['body', 'name']);
    expect((await http(base, 'POST', T, { auth: member, body: { name: 'n', promptId: 'x' } })).status).toBe(422);
    expect((await http(base, 'POST', T, { auth: member, body: { name: 'n', promptId: randomUUID() } })).status).toBe(
      404,
    );
    expect((await http(base, 'GET', `${T}/${randomUUID()}`, { auth: member })).status).toBe(404);
    expect((await http(base, 'GET', `${T}/not-a-uuid`, { auth: member })).status).toBe(422);
  });

  it('needs a bearer token on every route', async () => {
    for (const [method, path] of [
      ['GET', P],
      ['GET', `${P}/${randomUUID()}`],
      ['POST', T],
      ['GET', `${T}/${randomUUID()}`],
    ]) {
      expect((await http(base, method, path, method === 'POST' ? { body: {} } : {})).status).toBe(401);
    }
  });

  it("keeps every tenant's prompts and templates to itself", async () => {
    const owner = uniqueTenant();
    const source = promptRecord(owner);
    await recorded(owner, [source]);
    const template = (
      await http(base, 'POST', T, { auth: bearer(owner, 'member'), body: { name: 'mine', promptId: source.id } })
    ).body.promptTemplate;
    const stranger = bearer(uniqueTenant(), 'admin');
    expect((await http(base, 'GET', P, { auth: stranger })).body.prompts).toEqual([]);
    expect((await http(base, 'GET', `${P}/${source.id}`, { auth: stranger })).status).toBe(404);
    expect((await http(base, 'GET', `${T}/${template.id}`, { auth: stranger })).status).toBe(404);
    expect(
      (await http(base, 'POST', T, { auth: stranger, body: { name: 'theirs', promptId: source.id } })).status,
    ).toBe(404);
  });

  it('confines a project-scoped token to its project', async () => {
    const tenant = uniqueTenant();
    const mine = promptRecord(tenant, { projectId: 'proj-1', input: 'mine', receivedAt: at(1) });
    const theirs = promptRecord(tenant, { projectId: 'proj-2', input: 'theirs', receivedAt: at(2) });
    const unscoped = promptRecord(tenant, { projectId: null, input: 'no project', receivedAt: at(3) });
    await recorded(tenant, [mine, theirs, unscoped]);
    const scoped = bearer(tenant, 'member', { project: 'proj-1' });

    expect((await listAll(scoped, '')).map((p) => p.input)).toEqual(['mine']);
    expect((await listAll(scoped, '&projectId=proj-1')).map((p) => p.input)).toEqual(['mine']);
    // Another project's list and a made-up project's answer alike: not found.
    for (const project of ['proj-2', 'proj-none']) {
      const res = await http(base, 'GET', `${P}?projectId=${project}`, { auth: scoped });
      expect({ status: res.status, body: res.body }).toEqual({
        status: 404,
        body: { detail: `project ${project} not found` },
      });
    }
    expect((await http(base, 'GET', `${P}/${mine.id}`, { auth: scoped })).status).toBe(200);
    expect((await http(base, 'GET', `${P}/${theirs.id}`, { auth: scoped })).status).toBe(404);
    expect((await http(base, 'GET', `${P}/${unscoped.id}`, { auth: scoped })).status).toBe(404);

    const own = await http(base, 'POST', T, { auth: scoped, body: { name: 'own', promptId: mine.id } });
    expect(own.status).toBe(200);
    expect(own.body.promptTemplate.projectId).toBe('proj-1');
    for (const project of ['proj-2', 'proj-none']) {
      const move = await http(base, 'POST', T, {
        auth: scoped,
        body: { name: 'move', promptId: mine.id, projectId: project },
      });
      expect({ status: move.status, body: move.body }).toEqual({
        status: 404,
        body: { detail: `project ${project} not found` },
      });
    }
    expect((await http(base, 'POST', T, { auth: scoped, body: { name: 'steal', promptId: theirs.id } })).status).toBe(
      404,
    );

    const foreign = await http(base, 'POST', T, {
      auth: bearer(tenant, 'member'),
      body: { name: 'p2', promptId: theirs.id },
    });
    expect((await http(base, 'GET', `${T}/${foreign.body.promptTemplate.id}`, { auth: scoped })).status).toBe(404);
    expect((await http(base, 'GET', `${T}/${own.body.promptTemplate.id}`, { auth: scoped })).status).toBe(200);
  });

  it('loses nothing while the prompts service is down: the records wait and appear once', async () => {
    const tenant = uniqueTenant();
    const auth = bearer(tenant, 'viewer');
    await service!.close();
    service = undefined;
    const down = await http(base, 'GET', P, { auth });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ detail: 'the prompts service is not available' });

    const traffic = Array.from({ length: 6 }, (_, i) =>
      promptRecord(tenant, {
        input: `during outage ${i}`,
        receivedAt: at(i),
        result: {
          ...promptRecord(tenant).result,
          outcome: i % 2 ? 'flagged' : 'cleared',
          scannerResults: [
            {
              ...promptRecord(tenant).result.scannerResults[0],
              scannerId: `scanner-${i}`,
              outcome: i % 2 ? 'failed' : 'passed',
            },
          ],
        },
      }),
    );
    await publishRecords(nc, traffic);
    // The proxy's retried publish of the same record, and a copy delivered twice.
    await publishRecords(nc, [traffic[0]]);
    await publishRecords(nc, [traffic[1]], { duplicate: true });

    service = await startPromptsService();
    await waitFor(
      async () => ((await listAll(auth, '')).length >= traffic.length ? true : undefined),
      10_000,
      'the records from the outage',
    );
    const listed = await listAll(auth, '');
    expect(listed.map((p) => p.id)).toEqual([...traffic].reverse().map((r) => r.id));
    const one = await http(base, 'GET', `${P}/${traffic[3].id}`, { auth });
    expect(one.body.prompt.result).toMatchObject({
      outcome: 'flagged',
      scannerResults: [expect.objectContaining({ scannerId: 'scanner-3', outcome: 'failed' })],
    });
  });
});
