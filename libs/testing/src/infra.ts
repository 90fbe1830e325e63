import { Client } from 'pg';

/** Replaces the database name in a Postgres URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function safeName(database: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`unsafe database name ${database}`);
  return database;
}

/** Runs statements against the server's default database (where CREATE and DROP DATABASE go). */
async function onServer(serverUrl: string, statements: string[]): Promise<void> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (const sql of statements) await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Drops and creates a database. */
export async function recreateDatabase(serverUrl: string, database: string): Promise<string> {
  const name = safeName(database);
  await onServer(serverUrl, [`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, `CREATE DATABASE ${name}`]);
  return withDatabase(serverUrl, name);
}

/** Drops `database` and creates it again as a copy of `template` (which must have no connections). */
export async function cloneDatabase(serverUrl: string, template: string, database: string): Promise<string> {
  const name = safeName(database);
  await onServer(serverUrl, [
    `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`,
    `CREATE DATABASE ${name} TEMPLATE ${safeName(template)}`,
  ]);
  return withDatabase(serverUrl, name);
}
