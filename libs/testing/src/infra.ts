import { Client } from 'pg';

/**
 * Where the tests find Postgres and NATS: DATABASE_URL / NATS_URL when set (CI and our machines run
 * both locally), otherwise containers started with testcontainers (needs a Docker engine).
 */
export interface TestInfra {
  databaseUrl: string;
  natsUrl: string;
  stop(): Promise<void>;
}

export async function startTestInfra(env: NodeJS.ProcessEnv = process.env): Promise<TestInfra> {
  const stops: (() => Promise<unknown>)[] = [];
  let databaseUrl = env.DATABASE_URL;
  let natsUrl = env.NATS_URL;
  if (!databaseUrl) {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const pg = await new PostgreSqlContainer('postgres:17-alpine').start();
    stops.push(() => pg.stop());
    databaseUrl = pg.getConnectionUri();
  }
  if (!natsUrl) {
    const { GenericContainer, Wait } = await import('testcontainers');
    const nats = await new GenericContainer('nats:2.11-alpine')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    stops.push(() => nats.stop());
    natsUrl = `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`;
  }
  return { databaseUrl, natsUrl, stop: async () => void (await Promise.all(stops.map((s) => s()))) };
}

/** Replaces the database name in a Postgres URL. */
export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

/** Drops and creates a database (connecting to the server's default database to do it). */
export async function recreateDatabase(serverUrl: string, database: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]*$/.test(database)) throw new Error(`unsafe database name ${database}`);
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  return withDatabase(serverUrl, database);
}
