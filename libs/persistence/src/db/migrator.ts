import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

export interface MigrationSource {
  /** The Postgres schema the service owns; its `_prisma_migrations` table lives there too. */
  schema: string;
  /** A Prisma migrations folder: one sub-folder per migration, each with `migration.sql`. */
  dir: string;
}

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Prisma's bookkeeping table, as `prisma migrate deploy` creates it, so either tool sees the other's work. */
const MIGRATIONS_TABLE_DDL = (schema: string) => `
CREATE TABLE IF NOT EXISTS ${ident(schema)}."_prisma_migrations" (
  "id"                  VARCHAR(36) PRIMARY KEY NOT NULL,
  "checksum"            VARCHAR(64) NOT NULL,
  "finished_at"         TIMESTAMPTZ,
  "migration_name"      VARCHAR(255) NOT NULL,
  "logs"                TEXT,
  "rolled_back_at"      TIMESTAMPTZ,
  "started_at"          TIMESTAMPTZ NOT NULL DEFAULT now(),
  "applied_steps_count" INTEGER NOT NULL DEFAULT 0
)`;

function ident(name: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`unsafe schema name ${name}`);
  return `"${name}"`;
}

export function readMigrations(dir: string): Migration[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'migration.sql')))
    .map((d) => d.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies a service's pending migrations, each in its own transaction, under an advisory lock so
 * that concurrent runners (several pods starting) apply each migration once. Refuses to go on when
 * an applied migration's file has changed or an earlier run failed half-way. Returns the names
 * applied now.
 */
export async function migrate(databaseUrl: string, source: MigrationSource): Promise<string[]> {
  const migrations = readMigrations(source.dir);
  const schema = ident(source.schema);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  const lockKey = `bastion:migrate:${source.schema}`;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await client.query(MIGRATIONS_TABLE_DDL(source.schema));
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>(`SELECT migration_name, checksum, finished_at, rolled_back_at FROM ${schema}."_prisma_migrations"`);
    const applied = new Map(rows.filter((r) => r.rolled_back_at === null).map((r) => [r.migration_name, r]));
    for (const row of applied.values()) {
      if (row.finished_at === null) {
        throw new Error(
          `migration ${row.migration_name} in schema ${source.schema} failed earlier; resolve it before migrating again`,
        );
      }
    }
    const done: string[] = [];
    for (const m of migrations) {
      const row = applied.get(m.name);
      if (row) {
        if (row.checksum !== m.checksum) {
          throw new Error(`migration ${m.name} in schema ${source.schema} was changed after it was applied`);
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        const id = randomUUID();
        await client.query(
          `INSERT INTO ${schema}."_prisma_migrations" (id, checksum, migration_name, started_at) VALUES ($1, $2, $3, now())`,
          [id, m.checksum, m.name],
        );
        await client.query(m.sql);
        await client.query(
          `UPDATE ${schema}."_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
          [id],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${m.name} in schema ${source.schema} failed: ${(err as Error).message}`, {
          cause: err,
        });
      }
      done.push(m.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey]).catch(() => undefined);
    await client.end();
  }
}

/** Reads the schema a service's `schema.prisma` declares in `schemas = ["..."]`. */
export function prismaSchemaName(schemaFile: string): string {
  const match = /schemas\s*=\s*\[\s*"([a-z_][a-z0-9_]*)"\s*\]/.exec(readFileSync(schemaFile, 'utf8'));
  if (!match) throw new Error(`${schemaFile} must declare exactly one schema: schemas = ["<name>"]`);
  return match[1];
}
