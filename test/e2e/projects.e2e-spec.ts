import { randomUUID } from 'node:crypto';
import type { INestApplication, INestMicroservice } from '@nestjs/common';
import {
  DATASET_MAX_BYTES,
  ProjectChangedEvent,
  ProjectEvents,
  ProjectRpc,
  PROJECTS_STREAM,
  ScannerChangedEvent,
} from '@bastion/contracts';
import { connectNats, DurableConsumer, NatsRpcClient } from '@bastion/messaging';
import { bearer, cpuStopwatch, uniqueTenant, waitFor, testNatsLogin } from '@bastion/testing';
import type { NatsConnection } from '@nats-io/transport-node';
import { startProjectsService } from '../support/projects';
import { http, quietLogger, startGateway } from '../support/stack';

jest.setTimeout(30_000);

const SCANNERS = '/backend/v1/scanners';
const PROJECTS = '/backend/v1/projects';
const SSN = '\\d{3}-\\d{2}-\\d{4}';

describe('projects and scanners through the gateway', () => {
  let projects: INestMicroservice;
  let gateway: INestApplication;
  let base: string;
  let nc: NatsConnection;
  const durables: string[] = [];

  beforeAll(async () => {
    projects = await startProjectsService();
    // A 10 MB dataset run takes a few seconds, far more on a busy machine: past the default 5 s the
    // gateway would answer 504, which is what a slow machine looks like, not what this file tests.
    ({ app: gateway, url: base } = await startGateway(undefined, { RPC_TIMEOUT_MS: '100000' }));
    nc = await connectNats(testNatsLogin(), { name: 'e2e-projects' });
  });

  afterAll(async () => {
    // The JetStream API over plain NATS: the test consumers are not left on the server.
    for (const d of durables)
      await nc
        ?.request(`$JS.API.CONSUMER.DELETE.${PROJECTS_STREAM}.${d}`, '', { timeout: 2000 })
        .catch(() => undefined);
    await nc?.close();
    await gateway?.close();
    await projects?.close();
  });

  const newScanner = async (auth: string, body: Record<string, unknown> = {}) => {
    const res = await http(base, 'POST', SCANNERS, {
      auth,
      body: { name: `ssn-${randomUUID().slice(0, 6)}`, config: { type: 'regex', pattern: SSN }, ...body },
    });
    expect(res.status).toBe(200);
    return res.body.id as string;
  };
  const newProject = async (auth: string, name = `proj-${randomUUID().slice(0, 6)}`) => {
    const res = await http(base, 'POST', PROJECTS, { auth, body: { name } });
    expect(res.status).toBe(200);
    return res.body.project;
  };
  const evaluate = (auth: string, scannerId: string, version: string, csv: string, contentType = 'text/csv') =>
    http(base, 'POST', `${SCANNERS}/${scannerId}/versions/${version}/evaluate`, {
      auth,
      rawBody: csv,
      headers: { 'content-type': contentType },
    });

  describe('the story of the issue', () => {
    it('creates a regex scanner, edits it into v_2, publishes it, attaches it in block mode, goes live, and reads the config from before the attach', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'member', { sub: 'alice' });
      const created = await http(base, 'POST', SCANNERS, {
        auth,
        body: {
          name: 'US SSN',
          config: { type: 'regex', pattern: '\\d{3}-\\d{2}-\\d{4}' },
          direction: 'request',
          tags: ['pii'],
          published: false,
        },
      });
      expect(created.status).toBe(200);
      expect(Object.keys(created.body)).toEqual(['id']);
      const id = created.body.id;

      const v1 = await http(base, 'GET', `${SCANNERS}/${id}`, { auth });
      expect(v1.status).toBe(200);
      expect(v1.body.scanner).toEqual({
        id,
        name: 'US SSN',
        type: 'regex',
        kind: 'scanner',
        description: '',
        config: { type: 'regex', pattern: '\\d{3}-\\d{2}-\\d{4}' },
        direction: 'request',
        tags: ['pii'],
        published: false,
        builtIn: false,
        createdBy: 'alice',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        versionMeta: {
          id: expect.any(String),
          name: 'v_1',
          description: '',
          direction: 'request',
          published: false,
          createdAt: expect.any(String),
          createdBy: 'alice',
          f1Score: null,
          latestDatasetResult: null,
        },
      });

      // The spec's Update guardrail: a config change makes v_2; push makes it the latest.
      const edited = await http(base, 'PATCH', `${SCANNERS}/${id}`, {
        auth,
        body: {
          config: { type: 'regex', patterns: [SSN, '\\d{9}'] },
          version: { description: 'also undashed', push: true },
        },
      });
      expect(edited.status).toBe(200);
      expect(edited.body).toEqual({
        message: 'Scanner updated: version v_2 created and now the latest',
        versionMeta: expect.objectContaining({
          name: 'v_2',
          description: 'also undashed',
          published: false,
          direction: 'request',
        }),
      });

      const published = await http(base, 'PATCH', `${SCANNERS}/${id}`, { auth, body: { published: true } });
      expect(published.status).toBe(200);
      expect(published.body.versionMeta).toMatchObject({ name: 'v_2', published: true });
      const versions = await http(base, 'GET', `${SCANNERS}/${id}/versions`, { auth });
      expect(
        versions.body.versions.map((v: { name: string; published: boolean; latest: boolean }) => [
          v.name,
          v.published,
          v.latest,
        ]),
      ).toEqual([
        ['v_2', true, true],
        ['v_1', false, false],
      ]);

      const project = await newProject(auth, 'support-bot');
      expect(project).toMatchObject({
        deploymentStatus: 'draft',
        scannerCount: 0,
        providerCount: 0,
        config: { packages: [], scanners: [], providers: [] },
      });
      const beforeAttach = project.config.validFrom;

      const attached = await http(base, 'POST', `${PROJECTS}/${project.id}/scanners`, {
        auth,
        body: { id, version: 'v_2', mode: 'block' },
      });
      expect(attached.status).toBe(200);
      expect(attached.body.project.config.scanners).toEqual([
        {
          id,
          version: 'v_2',
          enabled: true,
          blocking: true,
          force: false,
          mode: 'block',
          flagMessage: '',
          direction: 'request',
        },
      ]);
      expect(attached.body.project.scannerCount).toBe(1);

      const live = await http(base, 'PATCH', `${PROJECTS}/${project.id}`, { auth, body: { deploymentStatus: 'live' } });
      expect(live.status).toBe(200);
      expect(live.body.project.deploymentStatus).toBe('live');

      const then = await http(base, 'GET', `${PROJECTS}/support-bot?configAt=${encodeURIComponent(beforeAttach)}`, {
        auth,
      });
      expect(then.status).toBe(200);
      expect(then.body.project).toMatchObject({
        id: project.id,
        scannerCount: 0,
        config: { id: project.config.id, revision: 1, scanners: [] },
      });
      const now = await http(base, 'GET', `${PROJECTS}/${project.id}`, { auth });
      expect(now.body.project).toMatchObject({ deploymentStatus: 'live', scannerCount: 1, config: { revision: 2 } });

      // What the message proxy will ask: enforcing, with v_2's config resolved.
      const runtime = await new NatsRpcClient(nc, 5000).call(
        ProjectRpc.runtime,
        { tenant, project: 'support-bot' },
        'e2e',
      );
      expect(runtime.project).toMatchObject({ id: project.id, enforcing: true });
      expect(runtime.scanners[0].resolvedVersion).toMatchObject({
        name: 'v_2',
        config: { type: 'regex', patterns: [SSN, '\\d{9}'] },
      });
    });

    it('refuses a lookahead pattern at save with a 422 that says why', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const res = await http(base, 'POST', SCANNERS, {
        auth,
        body: { name: 'price', config: { type: 'regex', pattern: '\\d+(?= USD)' } },
      });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        detail: [
          {
            loc: ['body', 'config', 'pattern'],
            msg: 'lookahead (?=...) is not supported: patterns run on RE2, a linear-time engine',
            type: 'value_error',
          },
        ],
      });
      const id = await newScanner(auth);
      const patched = await http(base, 'PATCH', `${SCANNERS}/${id}`, {
        auth,
        body: { config: { type: 'regex', patterns: ['ok', '(?<!-)\\d+'] } },
      });
      expect(patched.status).toBe(422);
      expect(patched.body.detail[0]).toMatchObject({
        loc: ['body', 'config', 'patterns', '1'],
        msg: expect.stringContaining('negative lookbehind'),
      });
    });

    it('refuses a pattern over the RE2 program budget with a 422 naming it, and warns of one longer than the hold-back cap', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const costly = '[\\p{L}\\p{N}]{1,400}z0';
      // CPU time of this process (the projects service runs in it), which a busy machine does not stretch.
      const cpuMs = cpuStopwatch();
      const res = await http(base, 'POST', SCANNERS, {
        auth,
        body: { name: 'costly', config: { type: 'regex', patterns: ['ok', costly] } },
      });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        {
          loc: ['body', 'config', 'patterns', '1'],
          msg: expect.stringContaining(JSON.stringify(costly)),
          type: 'value_error',
        },
      ]);
      expect(cpuMs()).toBeLessThan(5_000);
      const open = await http(base, 'POST', SCANNERS, {
        auth,
        body: { name: 'open', config: { type: 'regex', pattern: 'BEGIN.*END' } },
      });
      expect(open.status).toBe(200);
      expect(open.body.warnings).toEqual([
        { loc: ['body', 'config', 'pattern'], msg: expect.stringContaining('unbounded'), type: 'match_length_warning' },
      ]);
      const bounded = await http(base, 'POST', SCANNERS, {
        auth,
        body: { name: 'bounded', config: { type: 'regex', pattern: 'BEGIN.{0,40}END' } },
      });
      expect(bounded.body).toEqual({ id: expect.any(String) });
    });

    it('evaluates a dataset on the canonical text, so look-alike spellings count', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const id = await newScanner(auth);
      const csv = [
        'prompt,label',
        '"ssn 123\u201145\u20116789",true',
        '"ssn \uff11\uff12\uff13-45-6789",true',
        'hello,false',
      ].join('\n');
      const res = await evaluate(auth, id, 'v_1', csv);
      expect(res.status).toBe(200);
      expect(res.body.datasetRun.confusionMatrix).toEqual({
        truePositive: 2,
        falseNegative: 0,
        falsePositive: 0,
        trueNegative: 1,
      });
    });

    it('stores an F1 that a hand count confirms and shows it in versionMeta', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const id = await newScanner(auth);
      // TP: rows 2, 3. FN: row 4 (no dashes). FP: row 5 (an order number). TN: rows 6, 7.
      const csv = [
        'prompt,label',
        '"my ssn is 123-45-6789, ok?",true',
        'call 555-12-3456 now,1',
        'ssn: 123 45 6789,TRUE',
        'order 111-22-3333 shipped,false',
        'hello there,false',
        '"nothing, here",0',
      ].join('\n');
      const res = await evaluate(auth, id, 'v_1', csv);
      expect(res.status).toBe(200);
      const run = res.body.datasetRun;
      expect(run).toMatchObject({
        scannerId: id,
        versionName: 'v_1',
        rows: 6,
        confusionMatrix: { truePositive: 2, falseNegative: 1, falsePositive: 1, trueNegative: 2 },
      });
      // precision 2/3, recall 2/3, F1 = 2TP / (2TP + FP + FN) = 4/6, accuracy 4/6.
      expect(run.precision).toBeCloseTo(2 / 3, 12);
      expect(run.recall).toBeCloseTo(2 / 3, 12);
      expect(run.f1Score).toBeCloseTo(2 / 3, 12);
      expect(run.accuracy).toBeCloseTo(4 / 6, 12);

      const scanner = await http(base, 'GET', `${SCANNERS}/${id}`, { auth });
      expect(scanner.body.scanner.versionMeta).toMatchObject({
        f1Score: run.f1Score,
        latestDatasetResult: { datasetRunId: run.id, f1Score: run.f1Score },
      });
      const runs = await http(base, 'GET', `${SCANNERS}/${id}/versions/v_1/evaluations`, { auth });
      expect(runs.body).toEqual({ datasetRuns: [run], next: null, prev: null });
      // Dataset scores are the tenant's own.
      const other = await http(base, 'GET', `${SCANNERS}`, { auth: bearer(uniqueTenant(), 'viewer') });
      expect(other.body.scanners.find((s: { id: string }) => s.id === id)).toBeUndefined();
    });

    it('names the line of a malformed CSV in a 422', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const id = await newScanner(auth);
      const badLabel = await evaluate(auth, id, 'v_1', 'prompt,label\nfine,1\n"two\nlines",0\nhmm,maybe\n');
      expect(badLabel.status).toBe(422);
      expect(badLabel.body).toEqual({
        detail: [
          {
            loc: ['body', 'line', '5'],
            msg: 'line 5: the label must be true, false, 1 or 0, not "maybe"',
            type: 'value_error',
          },
        ],
      });
      const badQuote = await evaluate(auth, id, 'v_1', 'prompt,label\nok,1\n"never closed,0\n', 'text/plain');
      expect(badQuote.status).toBe(422);
      expect(badQuote.body.detail[0].msg).toBe('line 3: a quoted field is never closed');
      const notCsv = await http(base, 'POST', `${SCANNERS}/${id}/versions/v_1/evaluate`, {
        auth,
        body: { prompt: 'x', label: true },
      });
      expect(notCsv.status).toBe(422);
      expect(notCsv.body.detail[0].loc).toEqual(['body']);
      const empty = await evaluate(auth, id, 'v_1', 'prompt,label\n');
      expect(empty.status).toBe(422);
      expect(empty.body.detail[0].msg).toBe('the CSV has no labelled rows');
    });

    it('takes a CSV of almost 10 MB (many NATS messages), and refuses one over 10 MB', async () => {
      // (120 s below: a busy machine takes its time over 10 MB, and that is not what this test is about.)
      const auth = bearer(uniqueTenant(), 'member');
      const id = await newScanner(auth);
      const rows: string[] = ['prompt,label'];
      let tp = 0;
      for (
        let i = 0, size = 0;
        size < DATASET_MAX_BYTES - 200;
        i++, size += Buffer.byteLength(rows[rows.length - 1]) + 1
      ) {
        rows.push(
          i % 3 === 0
            ? `"my id is ${String(i).padStart(3, '0').slice(-3)}-12-3456, é; please check it against the register",true`
            : `plain text number ${i} with ünïcode and nothing to see in it at all,false`,
        );
        if (i % 3 === 0) tp++;
      }
      const res = await evaluate(auth, id, 'v_1', rows.join('\n'));
      expect(res.status).toBe(200);
      expect(res.body.datasetRun).toMatchObject({
        rows: rows.length - 1,
        f1Score: 1,
        confusionMatrix: { truePositive: tp, falsePositive: 0, falseNegative: 0 },
      });

      const tooBig = await evaluate(auth, id, 'v_1', `prompt,label\n${'x'.repeat(DATASET_MAX_BYTES)},1\n`);
      expect(tooBig.status).toBe(413);
      // Every other route keeps the global 1 MB limit.
      const bigJson = await http(base, 'POST', SCANNERS, {
        auth,
        body: { name: 'x'.repeat(2 * 1024 * 1024), config: {} },
      });
      expect(bigJson.status).toBe(413);
    }, 120_000);
  });

  describe('versions and pinning', () => {
    it('keeps an unpushed version out of the latest, pins only published versions, and pushes back (rollback)', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const id = await newScanner(auth, { published: true });
      const draft = await http(base, 'PATCH', `${SCANNERS}/${id}`, {
        auth,
        body: { config: { type: 'regex', pattern: 'draft' }, version: { name: 'experiment' } },
      });
      expect(draft.body).toMatchObject({
        message: expect.stringContaining('push it'),
        versionMeta: { name: 'experiment', published: false },
      });
      expect((await http(base, 'GET', `${SCANNERS}/${id}`, { auth })).body.scanner).toMatchObject({
        config: { pattern: SSN },
        versionMeta: { name: 'v_1' },
      });

      const same = await http(base, 'PATCH', `${SCANNERS}/${id}`, {
        auth,
        body: { config: { pattern: SSN, type: 'regex' }, tags: ['x'] },
      });
      expect(same.body).toMatchObject({ message: 'Scanner updated', versionMeta: { name: 'v_1' } });

      const project = await newProject(auth);
      const unpublished = await http(base, 'POST', `${PROJECTS}/${project.id}/scanners`, {
        auth,
        body: { id, version: 'experiment' },
      });
      expect(unpublished.status).toBe(422);
      expect(unpublished.body.detail[0]).toMatchObject({
        loc: ['body', 'version'],
        msg: expect.stringContaining('is not published'),
      });

      const pushed = await http(base, 'PATCH', `${SCANNERS}/${id}/versions/experiment`, {
        auth,
        body: { published: true, push: true },
      });
      expect(pushed.body).toMatchObject({
        message: 'Version experiment published, now the latest',
        versionMeta: { name: 'experiment', published: true },
      });
      const v1 = (await http(base, 'GET', `${SCANNERS}/${id}/versions/v_1`, { auth })).body.version;
      const back = await http(base, 'PATCH', `${SCANNERS}/${id}/versions/${v1.id}`, { auth, body: { push: true } });
      expect(back.status).toBe(200);
      expect((await http(base, 'GET', `${SCANNERS}/${id}`, { auth })).body.scanner.versionMeta.name).toBe('v_1');

      const reserved = await http(base, 'PATCH', `${SCANNERS}/${id}`, {
        auth,
        body: { direction: 'both', version: { name: 'v_9' } },
      });
      expect(reserved.status).toBe(422);
      expect(reserved.body.detail[0].loc).toEqual(['body', 'version', 'name']);
      const typeChange = await http(base, 'PATCH', `${SCANNERS}/${id}`, {
        auth,
        body: { config: { type: 'keyword', words: ['a'] } },
      });
      expect(typeChange.status).toBe(422);
      expect(typeChange.body.detail[0].loc).toEqual(['body', 'config', 'type']);
    });

    it('reads the built-in scanners and packages, attaches a package, and refuses to change a built-in', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'admin');
      const packages = await http(base, 'GET', '/backend/v1/packages', { auth });
      expect(packages.body.packages.map((p: { config: unknown }) => p.config)).toEqual(
        expect.arrayContaining([{ type: 'pii' }, { type: 'secrets' }]),
      );
      const pii = packages.body.packages.find((p: { type: string }) => p.type === 'pii');
      expect(pii.detectors.map((d: { id: string }) => d.id)).toContain('email');
      const list = await http(base, 'GET', `${SCANNERS}?limit=100`, { auth });
      const email = list.body.scanners.find((s: { name: string }) => s.name === 'E-mail address');
      expect(email).toMatchObject({ builtIn: true, published: true, config: { type: 'pii', detectors: ['email'] } });

      expect((await http(base, 'PATCH', `${SCANNERS}/${email.id}`, { auth, body: { name: 'mine' } })).status).toBe(403);
      expect((await http(base, 'DELETE', `${SCANNERS}/${email.id}`, { auth })).status).toBe(403);

      const project = await newProject(auth);
      const wrongList = await http(base, 'POST', `${PROJECTS}/${project.id}/scanners`, { auth, body: { id: pii.id } });
      expect(wrongList.status).toBe(422);
      const withPackage = await http(base, 'POST', `${PROJECTS}/${project.id}/packages`, {
        auth,
        body: { id: pii.id, mode: 'redact' },
      });
      expect(withPackage.body.project.config.packages).toEqual([
        {
          id: pii.id,
          version: 'latest',
          enabled: true,
          blocking: true,
          force: false,
          mode: 'redact',
          flagMessage: '',
          direction: 'both',
        },
      ]);
      const withEmail = await http(base, 'POST', `${PROJECTS}/${project.id}/scanners`, {
        auth,
        body: { id: email.id, version: 'v_1', mode: 'audit', flagMessage: 'e-mail seen' },
      });
      expect(withEmail.body.project).toMatchObject({
        scannerCount: 1,
        config: { scanners: [{ id: email.id, version: 'v_1', mode: 'audit', flagMessage: 'e-mail seen' }] },
      });
    });
  });

  describe('projects', () => {
    it('shows every field of the spec, attaches and detaches providers, and keeps one default provider', async () => {
      const auth = bearer(uniqueTenant(), 'member', { sub: 'bob' });
      const created = await http(base, 'POST', PROJECTS, {
        auth,
        body: {
          name: 'Helpdesk',
          type: 'chatbot',
          botType: 'support',
          chatbotId: 'cb-1',
          adminRoleId: 'grp-admins',
          memberRoleId: 'grp-users',
        },
      });
      const project = created.body.project;
      expect(project).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        friendlyId: expect.stringMatching(/^helpdesk-[a-z0-9]{6}$/),
        name: 'Helpdesk',
        type: 'chatbot',
        botType: 'support',
        chatbotId: 'cb-1',
        adminRoleId: 'grp-admins',
        memberRoleId: 'grp-users',
        createdBy: 'bob',
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        adminCount: 0,
        agentSessionCount: 0,
        memberCount: 0,
        providerCount: 0,
        scannerCount: 0,
        tokenCount: 0,
        deploymentStatus: 'draft',
        config: {
          id: expect.any(String),
          revision: 1,
          validFrom: project.createdAt,
          packages: [],
          scanners: [],
          providers: [],
        },
      });
      const [a, b] = [randomUUID(), randomUUID()];
      await http(base, 'POST', `${PROJECTS}/${project.id}/providers`, {
        auth,
        body: { id: a, name: 'openai', type: 'openai', capabilities: ['chat'], default: true },
      });
      const two = await http(base, 'POST', `${PROJECTS}/${project.id}/providers`, {
        auth,
        body: { id: b, name: 'anthropic', default: true },
      });
      expect(two.body.project.providerCount).toBe(2);
      expect(two.body.project.config.providers.map((p: { default: boolean }) => p.default)).toEqual([false, true]);
      const dup = await http(base, 'POST', `${PROJECTS}/${project.id}/providers`, { auth, body: { id: a } });
      expect(dup.status).toBe(409);
      const disabled = await http(base, 'PATCH', `${PROJECTS}/${project.id}/providers/${a}`, {
        auth,
        body: { enabled: false },
      });
      expect(disabled.body.project.config.providers[0]).toEqual({
        id: a,
        name: 'openai',
        type: 'openai',
        capabilities: ['chat'],
        default: false,
        enabled: false,
      });
      const detached = await http(base, 'DELETE', `${PROJECTS}/${project.id}/providers/${b}`, { auth });
      expect(detached.body.project).toMatchObject({ providerCount: 1, config: { revision: 5 } });
      expect((await http(base, 'DELETE', `${PROJECTS}/${project.id}/providers/${b}`, { auth })).status).toBe(404);
      const list = await http(base, 'GET', `${PROJECTS}?limit=1`, { auth });
      expect(list.body).toMatchObject({ projects: [{ id: project.id }], next: null, prev: null });
    });

    it("reads the tenant's default project, made on first use", async () => {
      const auth = bearer(uniqueTenant(), 'viewer');
      const first = await http(base, 'GET', `${PROJECTS}/default`, { auth });
      expect(first.status).toBe(200);
      expect(first.body.project).toMatchObject({ name: 'default', deploymentStatus: 'draft', createdBy: 'bastion' });
      expect((await http(base, 'GET', `${PROJECTS}/default`, { auth })).body.project.id).toBe(first.body.project.id);
    });

    it('answers 400 for a configAt that is not a time, and 404 for one before the project existed', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const project = await newProject(auth);
      const bad = await http(base, 'GET', `${PROJECTS}/${project.id}?configAt=last-tuesday`, { auth });
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual({
        detail:
          'configAt must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z (got "last-tuesday")',
      });
      const before = new Date(Date.parse(project.createdAt) - 1).toISOString();
      const early = await http(base, 'GET', `${PROJECTS}/${project.id}?configAt=${before}`, { auth });
      expect(early.status).toBe(404);
      expect(early.body.detail).toMatch(/did not exist at/);
      const later = await http(base, 'GET', `${PROJECTS}/${project.id}?configAt=2999-01-01`, { auth });
      expect(later.body.project.config.revision).toBe(1);
    });
  });

  describe('access', () => {
    it('refuses a request without a token', async () => {
      for (const [method, path] of [
        ['GET', SCANNERS],
        ['POST', PROJECTS],
        ['GET', `${PROJECTS}/default`],
      ]) {
        const res = await http(base, method, path, { body: method === 'POST' ? { name: 'x' } : undefined });
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ detail: expect.any(String) });
      }
    });

    it('lets viewers read, members write, and only admins delete', async () => {
      const tenant = uniqueTenant();
      const [viewer, member, admin] = (['viewer', 'member', 'admin'] as const).map((r) => bearer(tenant, r));
      const id = await newScanner(member);
      const project = await newProject(member);
      expect((await http(base, 'GET', `${SCANNERS}/${id}`, { auth: viewer })).status).toBe(200);
      expect((await http(base, 'GET', `${PROJECTS}/${project.id}`, { auth: viewer })).status).toBe(200);
      const denied = await http(base, 'POST', SCANNERS, {
        auth: viewer,
        body: { name: 'v', config: { type: 'regex', pattern: 'x' } },
      });
      expect(denied.status).toBe(403);
      expect(denied.body).toEqual({ detail: 'this operation needs the member role' });
      expect(
        (await http(base, 'POST', `${PROJECTS}/${project.id}/scanners`, { auth: viewer, body: { id } })).status,
      ).toBe(403);
      expect((await evaluate(viewer, id, 'v_1', 'a,1')).status).toBe(403);
      expect((await http(base, 'DELETE', `${SCANNERS}/${id}`, { auth: member })).status).toBe(403);
      expect((await http(base, 'DELETE', `${PROJECTS}/${project.id}`, { auth: member })).status).toBe(403);
      expect((await http(base, 'DELETE', `${PROJECTS}/${project.id}`, { auth: admin })).body).toEqual({
        message: `Project ${project.name} deleted`,
      });
      expect((await http(base, 'DELETE', `${SCANNERS}/${id}`, { auth: admin })).status).toBe(200);
      expect((await http(base, 'GET', `${SCANNERS}/${id}`, { auth: admin })).status).toBe(404);
    });

    it('lets a project-scoped token read its own project and nothing else, and another is not found', async () => {
      const tenant = uniqueTenant();
      const member = bearer(tenant, 'member');
      const mine = await newProject(member, 'scoped-one');
      const other = await newProject(member, 'scoped-two');
      const scoped = bearer(tenant, 'admin', { project: mine.id });
      expect((await http(base, 'GET', `${PROJECTS}/${mine.id}`, { auth: scoped })).status).toBe(200);
      expect((await http(base, 'GET', `${PROJECTS}/scoped-one`, { auth: scoped })).status).toBe(200);
      // Another project answers as one that does not exist, by id and by name: nothing tells them apart.
      for (const [theirs, none] of [
        [other.id, randomUUID()],
        ['scoped-two', 'scoped-none'],
      ]) {
        const [seen, missing] = await Promise.all(
          [theirs, none].map((ref) => http(base, 'GET', `${PROJECTS}/${ref}`, { auth: scoped })),
        );
        expect({ status: seen.status, body: seen.body }).toEqual({
          status: 404,
          body: { detail: `project ${theirs} not found` },
        });
        expect({ status: missing.status, body: missing.body }).toEqual({
          status: 404,
          body: { detail: `project ${none} not found` },
        });
      }
      for (const [method, path, body] of [
        ['GET', PROJECTS],
        ['GET', SCANNERS],
        ['POST', SCANNERS, { name: 'n', config: { type: 'regex', pattern: 'x' } }],
        ['PATCH', `${PROJECTS}/${mine.id}`, { deploymentStatus: 'live' }],
        ['DELETE', `${PROJECTS}/${mine.id}`],
      ] as const) {
        const res = await http(base, method, path, { auth: scoped, body });
        expect([method, path, res.status]).toEqual([method, path, 403]);
      }
    });

    it("answers 404 for another tenant's scanners and projects", async () => {
      const owner = bearer(uniqueTenant(), 'admin');
      const id = await newScanner(owner);
      const project = await newProject(owner, 'private');
      const stranger = bearer(uniqueTenant(), 'admin');
      for (const [method, path, body] of [
        ['GET', `${SCANNERS}/${id}`],
        ['PATCH', `${SCANNERS}/${id}`, { name: 'mine now' }],
        ['DELETE', `${SCANNERS}/${id}`],
        ['GET', `${SCANNERS}/${id}/versions`],
        ['GET', `${PROJECTS}/${project.id}`],
        ['GET', `${PROJECTS}/private`],
        ['PATCH', `${PROJECTS}/${project.id}`, { name: 'mine' }],
        ['DELETE', `${PROJECTS}/${project.id}`],
        ['POST', `${PROJECTS}/${project.id}/scanners`, { id }],
      ] as const) {
        const res = await http(base, method, path, { auth: stranger, body });
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
      expect((await evaluate(stranger, id, 'v_1', 'a,1')).status).toBe(404);
      const theirs = await newProject(stranger);
      expect(
        (await http(base, 'POST', `${PROJECTS}/${theirs.id}/scanners`, { auth: stranger, body: { id } })).status,
      ).toBe(404);
    });

    it('answers 422 naming the field for a malformed body, query or path', async () => {
      const auth = bearer(uniqueTenant(), 'member');
      const cases: [string, string, unknown, string[]][] = [
        ['POST', SCANNERS, { config: { type: 'regex', pattern: 'x' } }, ['body', 'name']],
        [
          'POST',
          SCANNERS,
          { name: 'n', config: { type: 'regex', pattern: 'x' }, direction: 'sideways' },
          ['body', 'direction'],
        ],
        ['POST', SCANNERS, { name: 'n', config: 'regex' }, ['body', 'config']],
        ['POST', PROJECTS, { name: 'bad/name' }, ['body', 'name']],
        ['POST', PROJECTS, { name: 'ok', deploymentStatus: 'paused' }, ['body', 'deploymentStatus']],
        [
          'POST',
          PROJECTS,
          { name: 'ok', config: { scanners: [{ id: 'not-a-uuid' }] } },
          ['body', 'config', 'scanners', '0', 'id'],
        ],
        ['GET', `${SCANNERS}/not-a-uuid`, undefined, ['path', 'scannerId']],
        ['GET', `${SCANNERS}?limit=1000`, undefined, ['query', 'limit']],
        [
          'PATCH',
          `${PROJECTS}/${randomUUID()}`,
          { config: { providers: [{ id: randomUUID(), default: 'yes' }] } },
          ['body', 'config', 'providers', '0', 'default'],
        ],
      ];
      for (const [method, path, body, loc] of cases) {
        const res = await http(base, method, path, { auth, body });
        expect([path, res.status]).toEqual([path, 422]);
        expect(res.body.detail.map((d: { loc: string[] }) => d.loc)).toContainEqual(loc);
      }
      const uuidName = await http(base, 'POST', PROJECTS, { auth, body: { name: randomUUID() } });
      expect(uuidName.status).toBe(422);
      const notJson = await http(base, 'POST', PROJECTS, {
        auth,
        rawBody: '{"name":',
        headers: { 'content-type': 'application/json' },
      });
      expect(notJson.status).toBe(400);
    });
  });

  describe('events', () => {
    it('publishes project and scanner changes on JetStream', async () => {
      const tenant = uniqueTenant();
      const auth = bearer(tenant, 'admin');
      const projectEvents: ProjectChangedEvent[] = [];
      const scannerEvents: ScannerChangedEvent[] = [];
      const consumers = [
        await DurableConsumer.start(nc, {
          stream: PROJECTS_STREAM,
          durable: durable(),
          startAt: 'new',
          subjects: [ProjectEvents.projectChanged],
          payload: ProjectChangedEvent,
          logger: quietLogger('e2e'),
          handler: async (e) => void (e.tenant === tenant && projectEvents.push(e)),
        }),
        await DurableConsumer.start(nc, {
          stream: PROJECTS_STREAM,
          durable: durable(),
          startAt: 'new',
          subjects: [ProjectEvents.scannerChanged],
          payload: ScannerChangedEvent,
          logger: quietLogger('e2e'),
          handler: async (e) => void (e.tenant === tenant && scannerEvents.push(e)),
        }),
      ];
      try {
        const id = await newScanner(auth);
        const project = await newProject(auth);
        await http(base, 'POST', `${PROJECTS}/${project.id}/scanners`, { auth, body: { id } });
        const patched = await http(base, 'PATCH', `${SCANNERS}/${id}`, {
          auth,
          body: { config: { type: 'regex', pattern: 'v2' }, version: { push: true } },
        });
        await http(base, 'PATCH', `${PROJECTS}/${project.id}`, { auth, body: { deploymentStatus: 'live' } });
        await http(base, 'DELETE', `${PROJECTS}/${project.id}`, { auth });

        await waitFor(
          () => (projectEvents.length >= 4 && scannerEvents.length >= 2 ? true : undefined),
          15_000,
          'the project and scanner events',
        );
        expect(projectEvents.map((e) => [e.change, e.revision, e.deploymentStatus])).toEqual([
          ['created', 1, 'draft'],
          ['config-changed', 2, 'draft'],
          ['updated', 2, 'live'],
          ['deleted', 2, 'live'],
        ]);
        expect(projectEvents.every((e) => e.id === project.id)).toBe(true);
        expect(scannerEvents.map((e) => [e.change, e.projectIds])).toEqual([
          ['created', []],
          ['version-created', [project.id]],
        ]);
        expect(scannerEvents[1]).toMatchObject({
          id,
          versionId: patched.body.versionMeta.id,
          latestVersionId: patched.body.versionMeta.id,
        });
      } finally {
        for (const c of consumers) await c.stop();
      }
    });
  });

  function durable(): string {
    const name = `e2e-projects-${randomUUID().slice(0, 8)}`;
    durables.push(name);
    return name;
  }
});
