import { connect } from '@nats-io/transport-node';
import { findServiceMigrations, migrate } from '@bastion/persistence';
import {
  cloneDatabase,
  ensureNats,
  ensurePostgres,
  freePort,
  type LocalService,
  onPath,
  recreateDatabase,
  startNatsServer,
  TEST_NATS_USER,
} from '@bastion/testing';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkerInfra } from './worker-infra';

/**
 * Once per `pnpm test`. Finds Postgres (or starts an embedded one: see local-infra.ts), creates the
 * test database with every service's migrations, and gives each jest worker its own copy of it
 * (CREATE DATABASE ... TEMPLATE) and, when `nats-server` is on PATH, its own NATS on a free port:
 * services answer on fixed subjects, so workers sharing one NATS would answer each other's tests.
 * Without nats-server, every worker uses NATS_URL (or the default address) and files that need NATS
 * take turns (see worker-env.ts). Workers read their share from TEST_WORKER_INFRA.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number }): Promise<void> {
  // Both the integration and the e2e project name this setup; do the work once.
  if (process.env.TEST_WORKER_INFRA) return;
  const root = join(__dirname, '..');
  const started: LocalService[] = [];
  const removeAfter: string[] = [];
  (globalThis as { __stopInfra?: () => Promise<void> }).__stopInfra = async () => {
    await Promise.all(started.map((s) => s.stop()));
    for (const dir of removeAfter) rmSync(dir, { recursive: true, force: true });
  };

  const postgres = await ensurePostgres(root);
  started.push(postgres);
  if (postgres.description.includes('started')) console.log(`\n${postgres.description}`);
  // TEST_DATABASE_NAME lets two checkouts test side by side on one server.
  const base = process.env.TEST_DATABASE_NAME ?? 'bastion_test';
  const template = await recreateDatabase(postgres.url, base);
  for (const s of findServiceMigrations(root)) await migrate(template, s);

  const workers = Math.max(1, globalConfig.maxWorkers);
  const databases = await Promise.all(
    Array.from({ length: workers }, (_, i) => cloneDatabase(postgres.url, base, `${base}_w${i + 1}`)),
  );

  let nats: string[];
  let sharedNats = false;
  if (onPath('nats-server')) {
    const store = mkdtempSync(join(tmpdir(), 'bastion-test-nats-'));
    removeAfter.push(store);
    const servers = await Promise.all(
      Array.from({ length: workers }, async (_, i) =>
        startNatsServer(join(store, `w${i + 1}`), await freePort(), process.env, [TEST_NATS_USER]),
      ),
    );
    started.push(...servers);
    nats = servers.map((s) => s.url);
  } else {
    const shared = await ensureNats(root);
    started.push(shared);
    await refuseIfAStackIsRunning(shared.url);
    nats = Array.from({ length: workers }, () => shared.url);
    sharedNats = true;
  }
  let natsLock: string | undefined;
  if (sharedNats) {
    const dir = mkdtempSync(join(tmpdir(), 'bastion-test-lock-'));
    removeAfter.push(dir);
    natsLock = join(dir, 'nats');
  }
  const infra: WorkerInfra = { databases, nats, natsLock };
  process.env.TEST_WORKER_INFRA = JSON.stringify(infra);
}

/** On a shared NATS, a running `pnpm start` would serve the tests' requests. */
async function refuseIfAStackIsRunning(natsUrl: string): Promise<void> {
  const nc = await connect({ servers: natsUrl.split(',') });
  try {
    await nc.request('tokens.health.check.v1', '{}', { timeout: 300 });
    throw new Error(
      'a tokens service is already running on this NATS (is `pnpm start` up?); stop it before `pnpm test`',
    );
  } catch (err) {
    if (err instanceof Error && err.message.includes('already running')) throw err;
  } finally {
    await nc.close();
  }
}
