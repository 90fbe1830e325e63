import { randomUUID } from 'node:crypto';
import {
  PromptSubjects,
  PROXY_STREAM,
  ProxyEvents,
  type PromptRecordedEvent,
  type PromptView,
  scannerResultTuple,
} from '@bastion/contracts';
import { scannerResultRecord, uniqueTenant, untypedRpc, waitFor } from '@bastion/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { Logger } from 'pino';
import type { PromptsConfig } from '../src/config';
import { PrismaService } from '../src/prisma/prisma.service';
import { PROMPTS_STORE_DURABLE } from '../src/store/prompt-record.consumer';
import { promptRecord, publishRecords, startPromptsService } from '../../../test/support/prompts';
import { serviceUnderTest, testEnv } from '../../../test/support/stack';

/** The prompt store on its own: records published to JetStream in, rows in Postgres out. */
jest.setTimeout(30_000);

/** A scanner result with its version, as the proxy records one. */
const SECRETS_PASSED = scannerResultRecord({
  scannerId: 'secrets',
  data: { type: 'keyword', matches: [] },
  customConfig: true,
  scannerVersionMeta: { id: 'v-7', name: 'secrets v7', published: false, direction: 'request' },
});

describe('prompt store', () => {
  const svc = serviceUnderTest(() => startPromptsService(), { name: 'int-prompts' });

  const principal = (tenant: string, role = 'member', project?: string) => ({
    sub: 'int-user',
    tenant,
    roles: [role],
    ...(project ? { project } : {}),
  });

  async function rowsOf(tenant: string): Promise<{ id: string; input: string }[]> {
    const { rows } = await svc.db.query(
      'SELECT id, input FROM prompts.prompts WHERE tenant = $1 ORDER BY received_at',
      [tenant],
    );
    return rows;
  }

  /**
   * Waits until the store has handled everything published so far: the store takes records in
   * order, so once a marker published last is stored, the records before it were handled too.
   */
  async function storeCaughtUp(): Promise<void> {
    const marker = promptRecord(uniqueTenant('marker'));
    await publishRecords(svc.nc, [marker]);
    await waitFor(
      async () => ((await rowsOf(marker.tenant)).length === 1 ? true : undefined),
      10_000,
      'the store to catch up',
    );
  }

  it('stores a record with its result, scanner results and provider result', async () => {
    const tenant = uniqueTenant();
    const record = promptRecord(tenant, {
      projectId: 'proj-1',
      memory: ['Hi', 'Hello! How can I help?'],
      extraInputs: { lang: 'en' },
      externalMetadata: { ticket: 42, tags: ['a'] },
      source: 'prompts',
      result: {
        ...promptRecord(tenant).result,
        outcome: 'redacted',
        response: 'My card is ****************',
        scannerResults: [
          scannerResultRecord({
            scannerId: 'card-numbers',
            outcome: 'failed',
            scanDirection: 'response',
            data: { type: 'regex', matches: [['4111111111111111', 11, 27]] },
            message: 'card number redacted',
            startedDate: '2026-03-01T10:00:01.000Z',
            completedDate: '2026-03-01T10:00:01.002Z',
          }),
          SECRETS_PASSED,
        ],
      } as PromptRecordedEvent['result'],
    });
    await publishRecords(svc.nc, [record]);
    await waitFor(
      async () => ((await rowsOf(tenant)).length === 1 ? true : undefined),
      5000,
      'the record to be stored',
    );
    const { rows } = await svc.db.query('SELECT * FROM prompts.prompts WHERE id = $1', [record.id]);
    expect(rows[0]).toMatchObject({
      tenant,
      project_id: 'proj-1',
      source: 'prompts',
      outcome: 'redacted',
      memory: ['Hi', 'Hello! How can I help?'],
      provider_result: { statusCode: 200, data: '{"content":"Paris."}' },
      // Each result as one array of its fields (ScannerResultTuple).
      scanner_results: [
        [
          'card-numbers',
          'failed',
          'response',
          { type: 'regex', matches: [['4111111111111111', 11, 27]] },
          'card number redacted',
          false,
          '2026-03-01T10:00:01.000Z',
          '2026-03-01T10:00:01.002Z',
          null,
          '',
          false,
          null,
        ],
        [
          'secrets',
          'passed',
          'request',
          { type: 'keyword', matches: [] },
          '',
          true,
          '2026-03-01T10:00:00.000Z',
          '2026-03-01T10:00:00.001Z',
          'v-7',
          'secrets v7',
          false,
          'request',
        ],
      ],
    });
    const got = await svc.rpc.call(
      untypedRpc<{ prompt: PromptView }>(PromptSubjects.get),
      { principal: principal(tenant, 'viewer'), id: record.id },
      'int-p1',
    );
    expect(got.prompt).toMatchObject({
      id: record.id,
      projectId: 'proj-1',
      memory: ['Hi', 'Hello! How can I help?'],
      extraInputs: { lang: 'en' },
      externalMetadata: { ticket: 42, tags: ['a'] },
      receivedAt: record.receivedAt,
      result: {
        outcome: 'redacted',
        response: 'My card is ****************',
        scannerResults: record.result.scannerResults,
      },
    });
    // A row stored before results were kept as arrays (objects, with their keys) reads the same.
    await svc.db.query('UPDATE prompts.prompts SET scanner_results = $2::jsonb WHERE id = $1', [
      record.id,
      JSON.stringify(record.result.scannerResults),
    ]);
    const before = await svc.rpc.call(
      untypedRpc<{ prompt: PromptView }>(PromptSubjects.get),
      { principal: principal(tenant, 'viewer'), id: record.id },
      'int-p1b',
    );
    expect(before.prompt.result.scannerResults).toEqual(got.prompt.result.scannerResults);
  });

  it('compresses a large row with LZ4 where the server has it, and reads it back whole', async () => {
    const { rows: lz4 } = await svc.db.query(
      "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)",
    );
    const tenant = uniqueTenant();
    const input = 'the quarterly numbers look steady '.repeat(200);
    await publishRecords(svc.nc, [promptRecord(tenant, { input })]);
    await storeCaughtUp();
    const { rows } = await svc.db.query(
      'SELECT input, pg_column_compression(input) AS method FROM prompts.prompts WHERE tenant = $1',
      [tenant],
    );
    expect(rows).toEqual([{ input, method: lz4.length ? 'lz4' : 'pglz' }]);
  });

  it('stores a record once however often it is delivered', async () => {
    const tenant = uniqueTenant();
    const [a, b] = [promptRecord(tenant, { input: 'first' }), promptRecord(tenant, { input: 'second' })];
    // Three copies of `a` reach the store (a redelivery looks exactly like this), and a retried
    // publish of `b` with the same message id, which JetStream itself drops.
    await publishRecords(svc.nc, [a, a, a], { duplicate: true });
    await publishRecords(svc.nc, [b, b]);
    await storeCaughtUp();
    expect((await rowsOf(tenant)).map((r) => r.input).sort()).toEqual(['first', 'second']);
  });

  it('stores NUL characters and unpaired surrogates, which Postgres refuses, as U+FFFD, and the text "\\u0000" as it is', async () => {
    const tenant = uniqueTenant();
    const nul = promptRecord(tenant, {
      input: 'a\u0000b',
      memory: ['\u0000'],
      externalMetadata: { 'k\u0000': 'v\ud83d' },
    });
    const text = promptRecord(tenant, { input: 'a\\u0000b', receivedAt: new Date(Date.now() + 1000).toISOString() });
    await publishRecords(svc.nc, [nul, text]);
    await storeCaughtUp();
    const { rows } = await svc.db.query(
      'SELECT input, memory, external_metadata FROM prompts.prompts WHERE tenant = $1 ORDER BY received_at',
      [tenant],
    );
    expect(rows).toEqual([
      { input: 'a\uFFFDb', memory: ['\uFFFD'], external_metadata: { 'k\uFFFD': 'v\uFFFD' } },
      { input: 'a\\u0000b', memory: [], external_metadata: {} },
    ]);
  });

  it('catches up on records published while it was stopped, each once', async () => {
    const tenant = uniqueTenant();
    await svc.service!.close();
    svc.service = undefined;
    const jsm = await jetstreamManager(svc.nc);
    const pending = async () => (await jsm.consumers.info(PROXY_STREAM, PROMPTS_STORE_DURABLE)).num_pending;
    const before = await pending();
    const missed = Array.from({ length: 5 }, (_, i) => promptRecord(tenant, { input: `while down ${i}` }));
    await publishRecords(svc.nc, missed);
    await publishRecords(svc.nc, [missed[0]], { duplicate: true });
    // All six (five and a redelivered copy) wait in the store's durable, and none was stored. The
    // server counts a consumer's pending messages a moment after it stored them: asked until it did.
    let waiting = before;
    await waitFor(
      async () => ((waiting = await pending()) === before + 6 ? true : undefined),
      10_000,
      'the six records counted as pending',
    ).catch(() => undefined);
    expect(waiting).toBe(before + 6);
    expect(await rowsOf(tenant)).toEqual([]);

    svc.service = await startPromptsService();
    await waitFor(
      async () => ((await rowsOf(tenant)).length >= 5 ? true : undefined),
      10_000,
      'the missed records to be stored',
    );
    await storeCaughtUp();
    expect((await rowsOf(tenant)).map((r) => r.input).sort()).toEqual(missed.map((r) => r.input).sort());
  });

  it('retries a record the database refused until it is stored', async () => {
    const tenant = uniqueTenant();
    const fn = `refuse_${randomUUID().slice(0, 8)}`;
    // The trigger refuses this tenant's rows and counts attempts in a sequence (which a rollback
    // does not undo).
    await svc.db.query(`CREATE SEQUENCE prompts.${fn}`);
    await svc.db.query(`CREATE FUNCTION prompts.${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.tenant = '${tenant}' THEN PERFORM nextval('prompts.${fn}'); RAISE EXCEPTION 'refused for this test'; END IF;
        RETURN NEW;
      END $$`);
    await svc.db.query(
      `CREATE TRIGGER ${fn} BEFORE INSERT ON prompts.prompts FOR EACH ROW EXECUTE FUNCTION prompts.${fn}()`,
    );
    const attempts = async () =>
      Number(
        (await svc.db.query(`SELECT last_value, is_called FROM prompts.${fn}`)).rows.map((r) =>
          r.is_called ? r.last_value : 0,
        )[0],
      );
    try {
      await publishRecords(svc.nc, [promptRecord(tenant, { input: 'refused at first' })]);
      await waitFor(async () => ((await attempts()) >= 2 ? true : undefined), 10_000, 'a second attempt');
      expect(await rowsOf(tenant)).toEqual([]);
    } finally {
      await svc.db.query(`DROP TRIGGER ${fn} ON prompts.prompts`);
      await svc.db.query(`DROP FUNCTION prompts.${fn}()`);
      await svc.db.query(`DROP SEQUENCE prompts.${fn}`);
    }
    await waitFor(
      async () => ((await rowsOf(tenant)).map((r) => r.input).join() === 'refused at first' ? true : undefined),
      10_000,
      'the record, stored on a retry',
    );
  });

  it('stores the rest of a batch while one record of it is refused by the database, and that one on a retry', async () => {
    const tenant = uniqueTenant();
    const fn = `refuse_${randomUUID().slice(0, 8)}`;
    await svc.db.query(`CREATE FUNCTION prompts.${fn}() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.input = 'poison' THEN RAISE EXCEPTION 'refused for this test'; END IF;
        RETURN NEW;
      END $$`);
    await svc.db.query(
      `CREATE TRIGGER ${fn} BEFORE INSERT ON prompts.prompts FOR EACH ROW EXECUTE FUNCTION prompts.${fn}()`,
    );
    try {
      // Published together, so they reach the store in one batch (or a few).
      const good = Array.from({ length: 30 }, (_, i) => promptRecord(tenant, { input: `good ${i}` }));
      await publishRecords(svc.nc, [
        ...good.slice(0, 15),
        promptRecord(tenant, { input: 'poison' }),
        ...good.slice(15),
      ]);
      await waitFor(async () => ((await rowsOf(tenant)).length === 30 ? true : undefined), 10_000, 'the good records');
      expect((await rowsOf(tenant)).map((r) => r.input)).not.toContain('poison');
    } finally {
      await svc.db.query(`DROP TRIGGER ${fn} ON prompts.prompts`);
      await svc.db.query(`DROP FUNCTION prompts.${fn}()`);
    }
    await waitFor(
      async () => ((await rowsOf(tenant)).length === 31 ? true : undefined),
      10_000,
      'the refused record, stored on a retry',
    );
  });

  it('drops a malformed record without holding up the ones after it', async () => {
    const tenant = uniqueTenant();
    await jetstream(svc.nc).publish(ProxyEvents.promptRecorded, JSON.stringify({ id: 'not-a-uuid', tenant }));
    await jetstream(svc.nc).publish(
      ProxyEvents.promptRecorded,
      JSON.stringify({ ...promptRecord(tenant), result: { outcome: 'exploded' } }),
    );
    await publishRecords(svc.nc, [promptRecord(tenant, { input: 'fine' })]);
    await waitFor(async () => ((await rowsOf(tenant)).length === 1 ? true : undefined), 5000, 'the good record');
    await storeCaughtUp();
    expect((await rowsOf(tenant)).map((r) => r.input)).toEqual(['fine']);
  });

  it('stores the tuples the proxy publishes as sent, and drops a record with a tuple short of a field', async () => {
    const tenant = uniqueTenant();
    const tuple = scannerResultTuple(SECRETS_PASSED);
    const short = promptRecord(tenant, { input: 'short' });
    short.result.scannerResults = [tuple.slice(0, 11) as never];
    const good = promptRecord(tenant, { input: 'tuples' });
    good.result.scannerResults = [tuple];
    await publishRecords(svc.nc, [short, good]);
    await storeCaughtUp();
    expect((await rowsOf(tenant)).map((r) => r.input)).toEqual(['tuples']);
    const { rows } = await svc.db.query('SELECT scanner_results FROM prompts.prompts WHERE id = $1', [good.id]);
    expect(rows[0].scanner_results).toEqual([tuple]);
  });

  it("gives the proxy a template's input, within the tenant and a project-scoped caller's project only", async () => {
    const tenant = uniqueTenant();
    const record = promptRecord(tenant, { projectId: 'proj-t', input: 'Summarise this week.' });
    await publishRecords(svc.nc, [record]);
    await waitFor(async () => ((await rowsOf(tenant)).length === 1 ? true : undefined), 5000, 'the record');
    const { promptTemplate } = await svc.rpc.call(
      untypedRpc<{ promptTemplate: { id: string } }>(PromptSubjects.createTemplate),
      { principal: principal(tenant), body: { name: 'weekly', promptId: record.id } },
      'int-t1',
    );
    await expect(
      svc.rpc.call(untypedRpc(PromptSubjects.templateInput), { tenant, templateId: promptTemplate.id }, 'int-t2'),
    ).resolves.toEqual({
      input: 'Summarise this week.',
      projectId: 'proj-t',
    });
    await expect(
      svc.rpc.call(
        untypedRpc(PromptSubjects.templateInput),
        { tenant: uniqueTenant(), templateId: promptTemplate.id },
        'int-t3',
      ),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(
      svc.rpc.call(untypedRpc(PromptSubjects.templateInput), { tenant, templateId: 'nope' }, 'int-t4'),
    ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    // A caller scoped to the template's project reads it; one scoped to another project finds
    // nothing, in the words an id that names no template gets.
    await expect(
      svc.rpc.call(
        untypedRpc(PromptSubjects.templateInput),
        { tenant, templateId: promptTemplate.id, project: 'proj-t' },
        'int-t5',
      ),
    ).resolves.toEqual({ input: 'Summarise this week.', projectId: 'proj-t' });
    const missing = randomUUID();
    const refusals = await Promise.all(
      [
        { templateId: promptTemplate.id, project: 'proj-other' },
        { templateId: missing, project: 'proj-other' },
      ].map((q, i) =>
        svc.rpc.call(untypedRpc(PromptSubjects.templateInput), { tenant, ...q }, `int-t6-${i}`).then(
          () => undefined,
          (err: { code: string; message: string }) => ({ code: err.code, message: err.message }),
        ),
      ),
    );
    expect(refusals).toEqual([
      { code: 'NOT_FOUND', message: `prompt template ${promptTemplate.id} not found` },
      { code: 'NOT_FOUND', message: `prompt template ${missing} not found` },
    ]);
  });

  it('survives Postgres dropping an idle connection of its pool before Prisma has used it, and closes the pool', async () => {
    const warned: unknown[] = [];
    const logger = { warn: (...args: unknown[]) => warned.push(args) } as unknown as Logger;
    const prisma = new PrismaService({ DATABASE_URL: testEnv().DATABASE_URL } as PromptsConfig, logger);
    try {
      // The store's insert path: the pool alone, Prisma not yet connected.
      const { rows } = await prisma.pool.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await svc.db.query('SELECT pg_terminate_backend($1)', [rows[0].pid]);
      // Unheard, the pool's error would be an uncaught exception here.
      await waitFor(async () => warned.length > 0 || undefined, 5000, "the pool's error");
      expect((await prisma.pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await prisma.onModuleDestroy();
    }
    expect(prisma.pool.ended).toBe(true);
  });

  it('answers its health check with the database and NATS', async () => {
    // Asked until it is all ok (a loaded machine may hold a check up a moment, e.g. just after the
    // service was restarted above), then its last answer is what is checked.
    let answer: unknown;
    await waitFor(
      async () => {
        answer = await svc.rpc.call(untypedRpc(PromptSubjects.health), {}, 'int-h').catch((e: unknown) => e);
        return (answer as { status?: string }).status === 'ok' ? true : undefined;
      },
      15_000,
      'an ok health check',
    ).catch(() => undefined);
    expect(answer).toEqual({
      service: 'prompts',
      status: 'ok',
      checks: { database: 'ok', nats: 'ok', process: 'ok' },
    });
  });
});

describe('prompt store with PROMPTS_SCANNER_RESULTS_FORM=objects (while upgrading from a release that reads only objects)', () => {
  const svc = serviceUnderTest(() => startPromptsService({ PROMPTS_SCANNER_RESULTS_FORM: 'objects' }), {
    name: 'int-prompts-objects',
  });

  it('stores scanner results as objects, the form an earlier release reads', async () => {
    const tenant = uniqueTenant('objects');
    const record = promptRecord(tenant, {
      result: {
        ...promptRecord(tenant).result,
        scannerResults: [SECRETS_PASSED],
      } as PromptRecordedEvent['result'],
    });
    await publishRecords(svc.nc, [record]);
    const stored = await waitFor(
      async () => {
        const { rows } = await svc.db.query<{ scanner_results: unknown }>(
          'SELECT scanner_results FROM prompts.prompts WHERE id = $1',
          [record.id],
        );
        return rows[0];
      },
      5000,
      'the record to be stored',
    );
    expect(stored.scanner_results).toEqual(record.result.scannerResults);
  });
});
