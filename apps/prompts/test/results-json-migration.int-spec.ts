import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

const migrations = join(__dirname, '..', 'prisma', 'migrations');
const sqlOf = (name: string) => {
  const dir = readdirSync(migrations).find((d) => d.endsWith(name));
  if (!dir) throw new Error(`no migration ${name}`);
  return readFileSync(join(migrations, dir, 'migration.sql'), 'utf8');
};

/**
 * The migration that makes a prompt's provider and scanner results `json` keeps every stored row's
 * values as they were (jsonb's key order and spacing aside, which the API never showed).
 */
describe('prompts migration: provider and scanner results as json', () => {
  const server = new URL(process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  const name = `prompts_migration_${randomUUID().replaceAll('-', '')}`;
  let admin: Client;
  let db: Client;

  beforeAll(async () => {
    admin = new Client({ connectionString: server.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(server.toString());
    url.pathname = `/${name}`;
    db = new Client({ connectionString: url.toString() });
    await db.connect();
  });

  afterAll(async () => {
    await db?.end();
    await admin?.query(`DROP DATABASE IF EXISTS ${name}`);
    await admin?.end();
  });

  it('keeps the rows stored before it, and stores new ones as before', async () => {
    await db.query(sqlOf('_init'));
    const scannerResults = [
      {
        scannerId: 's1',
        outcome: 'failed',
        scanDirection: 'request',
        data: { type: 'regex', matches: [[0, 4, 0]] },
        message: 'matched',
        customConfig: true,
        startedDate: '2026-11-26T10:00:00.000Z',
        completedDate: '2026-11-26T10:00:00.001Z',
        scannerVersionMeta: { id: 'v1', name: 'words', published: true, direction: 'both' },
      },
    ];
    const providerResult = { data: '{"id":"m","content":[]}', statusCode: 200, sentDate: 'a', receivedDate: 'b' };
    const insert = (id: string, provider: unknown) =>
      db.query(
        `INSERT INTO prompts.prompts (id, tenant, user_id, provider, input, memory, extra_inputs, external_metadata,
           from_template, preserve, type, source, received_at, outcome, files, provider_result, scanner_results)
         VALUES ($1, 't', 'u', 'p', 'in', '{}', '{}', '{}', false, false, 'prompt', 'vendor', now(), 'blocked', '[]', $2, $3)`,
        [id, provider === null ? null : JSON.stringify(provider), JSON.stringify(scannerResults)],
      );
    const before = [randomUUID(), randomUUID()];
    await insert(before[0], providerResult);
    await insert(before[1], null);
    for (const m of readdirSync(migrations)
      .filter((d) => /^\d/.test(d) && !d.endsWith('_init'))
      .sort())
      await db.query(readFileSync(join(migrations, m, 'migration.sql'), 'utf8'));
    const types = await db.query(
      `SELECT column_name, data_type FROM information_schema.columns
       WHERE table_schema = 'prompts' AND table_name = 'prompts' AND column_name IN ('provider_result', 'scanner_results')
       ORDER BY column_name`,
    );
    expect(types.rows).toEqual([
      { column_name: 'provider_result', data_type: 'json' },
      { column_name: 'scanner_results', data_type: 'json' },
    ]);
    const after = randomUUID();
    await insert(after, providerResult);
    const { rows } = await db.query(
      'SELECT id, provider_result, scanner_results FROM prompts.prompts ORDER BY array_position($1::uuid[], id)',
      [[...before, after]],
    );
    expect(rows).toEqual([
      { id: before[0], provider_result: providerResult, scanner_results: scannerResults },
      { id: before[1], provider_result: null, scanner_results: scannerResults },
      { id: after, provider_result: providerResult, scanner_results: scannerResults },
    ]);
  });
});
