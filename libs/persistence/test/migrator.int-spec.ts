import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { migrate } from '../src/db/migrator';

const databaseUrl = () => {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is set by the jest global setup');
  return url;
};

function migrationsDir(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'migrations-'));
  for (const [name, sql] of Object.entries(files)) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, 'migration.sql'), sql);
  }
  return dir;
}

describe('migrate (against the real Postgres)', () => {
  const schema = `mig_${Math.random().toString(36).slice(2, 8)}`;
  let db: Client;

  beforeAll(async () => {
    db = new Client({ connectionString: databaseUrl() });
    await db.connect();
  });
  afterAll(async () => {
    await db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db.end();
  });

  it('applies pending migrations once, in name order, recording them as prisma migrate deploy does', async () => {
    const dir = migrationsDir({
      '002_add_column': `ALTER TABLE "${schema}"."things" ADD COLUMN "size" INTEGER;`,
      '001_init': `CREATE TABLE "${schema}"."things" ("id" INTEGER PRIMARY KEY);`,
    });
    expect(await migrate(databaseUrl(), { schema, dir })).toEqual(['001_init', '002_add_column']);
    expect(await migrate(databaseUrl(), { schema, dir })).toEqual([]);
    const { rows } = await db.query(
      `SELECT migration_name, length(checksum) AS len, finished_at IS NOT NULL AS finished, applied_steps_count FROM "${schema}"."_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows).toEqual([
      { migration_name: '001_init', len: 64, finished: true, applied_steps_count: 1 },
      { migration_name: '002_add_column', len: 64, finished: true, applied_steps_count: 1 },
    ]);
    await db.query(`INSERT INTO "${schema}"."things" (id, size) VALUES (1, 2)`);
  });

  it('refuses to go on when an applied migration file was changed', async () => {
    const dir = migrationsDir({ '001_init': `CREATE TABLE "${schema}"."things" ("id" BIGINT PRIMARY KEY);` });
    await expect(migrate(databaseUrl(), { schema, dir })).rejects.toThrow('001_init in schema');
  });

  it('rolls a failing migration back entirely and names it', async () => {
    const other = `${schema}_f`;
    const dir = migrationsDir({
      '001_bad': `CREATE TABLE "${other}"."a" ("id" INT); SELECT no_such_function();`,
    });
    await expect(migrate(databaseUrl(), { schema: other, dir })).rejects.toThrow(/001_bad.*failed/);
    const { rows } = await db.query(
      `SELECT to_regclass('"${other}"."a"') AS t, (SELECT count(*)::int FROM "${other}"."_prisma_migrations") AS n`,
    );
    expect(rows[0]).toEqual({ t: null, n: 0 });
    await db.query(`DROP SCHEMA "${other}" CASCADE`);
  });

  it('applies each migration once when several runners start together', async () => {
    const other = `${schema}_c`;
    const dir = migrationsDir({ '001_init': `CREATE TABLE "${other}"."t" ("id" INT);` });
    const results = await Promise.all([1, 2, 3, 4].map(() => migrate(databaseUrl(), { schema: other, dir })));
    expect(results.flat()).toEqual(['001_init']);
    await db.query(`DROP SCHEMA "${other}" CASCADE`);
  });
});
