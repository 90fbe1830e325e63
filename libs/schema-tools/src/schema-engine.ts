import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type * as SE from '@prisma/schema-engine-wasm';
import { Client } from 'pg';
import { LOCK_CONTENT, LOCK_FILE, readMigrationsList } from './migrations-list';
import { loadSchemaEngine } from './wasm-engine';

const NO_FILTER: SE.SchemaFilter = { externalTables: [], externalEnums: [] };

export interface ServiceSchema {
  schemaPath: string;
  migrationsDir: string;
}

type Queryable = {
  performIO(q: unknown): Promise<{ fields: { dataTypeID: number }[] }>;
  startTransaction?: (...a: unknown[]) => Promise<unknown>;
  executeScript?: (script: string) => Promise<void>;
  client?: { query(sql: string): Promise<unknown> };
  onError?: (err: unknown) => never;
};

/**
 * The engine's catalog queries return Postgres "char" (OID 18), which the pg adapter cannot map:
 * read it as text. And a migration script goes to Postgres whole, as `pnpm db:migrate` sends it
 * (the adapter would cut it at every `;`, inside a quoted DO block's body too).
 */
function readCharAsText<T extends object>(queryable: T): T {
  const q = queryable as unknown as Queryable;
  if (typeof q.executeScript === 'function' && q.client) {
    const client = q.client;
    q.executeScript = async (script) => {
      try {
        await client.query(script);
      } catch (err) {
        if (q.onError) q.onError(err);
        throw err;
      }
    };
  }
  const performIO = q.performIO.bind(q);
  q.performIO = async (query) => {
    const res = await performIO(query);
    for (const f of res.fields) if (f.dataTypeID === 18) f.dataTypeID = 25;
    return res;
  };
  if (typeof q.startTransaction === 'function') {
    const start = q.startTransaction.bind(q);
    q.startTransaction = async (...args) => readCharAsText((await start(...args)) as object);
  }
  return queryable;
}

/** A scratch database for the engine to replay migrations into, dropped when disposed. */
async function scratchDatabase(serverUrl: string) {
  const name = `bastion_shadow_${randomUUID().replace(/-/g, '')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const adapter = await new PrismaPg({ connectionString: url.toString() }).connect();
  const dispose = adapter.dispose.bind(adapter);
  adapter.dispose = async () => {
    await dispose();
    const c = new Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await c.end();
    }
  };
  return adapter;
}

/**
 * The SQL that would bring a database migrated with `migrationsDir` to what `schemaPath`
 * describes; empty when they agree. Offline: Prisma's schema engine as WebAssembly, over the pg
 * driver adapter, replaying the migrations into a scratch database on `serverUrl` (the role needs
 * CREATEDB).
 */
export async function missingMigrationSql(serverUrl: string, s: ServiceSchema): Promise<string> {
  const engineBindings = loadSchemaEngine();
  const opened: { dispose(): Promise<void> }[] = [];
  const factory = new PrismaPg({ connectionString: serverUrl, max: 1 });
  const connect = factory.connect.bind(factory);
  factory.connect = async () => {
    const a = readCharAsText(await connect());
    opened.push(a);
    return a;
  };
  // The adapter's own shadow connection would reuse the main database; give it a scratch one.
  factory.connectToShadowDb = async () => {
    const a = readCharAsText(await scratchDatabase(serverUrl));
    opened.push(a);
    return a;
  };
  const engine = await engineBindings.SchemaEngine.new(
    { datamodels: [[s.schemaPath, readFileSync(s.schemaPath, 'utf8')]] },
    () => undefined,
    bindMigrationAwareSqlAdapterFactory(factory),
  );
  try {
    const list = readMigrationsList(s.migrationsDir);
    const result = await engine.diff({
      from: list.migrationDirectories.length ? { tag: 'migrations', ...list } : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: s.schemaPath, content: readFileSync(s.schemaPath, 'utf8') }] },
      script: true,
      exitCode: true,
      filters: NO_FILTER,
    });
    return result.exitCode === 2 ? (result.stdout ?? '') : '';
  } finally {
    engine.free();
    await Promise.allSettled(opened.splice(0).map((a) => a.dispose()));
  }
}

/** Writes `<timestamp>_<name>/migration.sql` with what the schema needs; undefined when nothing changed. */
export async function createMigration(
  serverUrl: string,
  s: ServiceSchema,
  name: string,
  now = new Date(),
): Promise<string | undefined> {
  const sql = await missingMigrationSql(serverUrl, s);
  if (!sql) return undefined;
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const dirName = `${stamp}_${name.replace(/[^A-Za-z0-9_]/g, '_')}`;
  const dir = join(s.migrationsDir, dirName);
  if (existsSync(dir)) throw new Error(`${dir} already exists`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'migration.sql'), sql);
  writeFileSync(join(s.migrationsDir, LOCK_FILE), LOCK_CONTENT);
  return dirName;
}
