import { connect } from '@nats-io/transport-node';
import { findServiceMigrations, migrate } from '@bastion/platform';
import { recreateDatabase, startTestInfra } from '@bastion/testing';
import { join } from 'node:path';

/**
 * Once per `pnpm test`: finds Postgres and NATS, creates a fresh test database with every
 * service's migrations, and hands both URLs to the test workers through the environment. Tests share
 * the database and isolate themselves by tenant.
 */
export default async function globalSetup(): Promise<void> {
  // Both the integration and the e2e project name this setup; do the work once.
  if (process.env.TEST_DATABASE_URL) return;
  const infra = await startTestInfra();
  // TEST_DATABASE_NAME lets two checkouts test side by side on one server (each with its own NATS).
  const databaseUrl = await recreateDatabase(infra.databaseUrl, process.env.TEST_DATABASE_NAME ?? 'bastion_test');
  for (const s of findServiceMigrations(join(__dirname, '..'))) await migrate(databaseUrl, s);
  await refuseIfAStackIsRunning(infra.natsUrl);
  process.env.TEST_DATABASE_URL = databaseUrl;
  process.env.TEST_NATS_URL = infra.natsUrl;
  (globalThis as { __stopInfra?: () => Promise<void> }).__stopInfra = infra.stop;
}

/** Services answer on shared subjects: a running `pnpm start` would serve the tests' requests. */
async function refuseIfAStackIsRunning(natsUrl: string): Promise<void> {
  const nc = await connect({ servers: natsUrl.split(',') });
  try {
    await nc.request('tokens.health.check.v1', '{}', { timeout: 300 });
    throw new Error('a tokens service is already running on this NATS (is `pnpm start` up?); stop it before `pnpm test`');
  } catch (err) {
    if (err instanceof Error && err.message.includes('already running')) throw err;
  } finally {
    await nc.close();
  }
}
