import { mkdir, rmdir } from 'node:fs/promises';
import { TestEnvironment } from 'jest-environment-node';
import type { WorkerInfra } from './worker-infra';

/**
 * The environment of integration and e2e files: points TEST_DATABASE_URL and TEST_NATS_URL at this
 * worker's own database and NATS (prepared by global-setup). When the workers share one NATS, a file
 * holds the shared lock from before its first hook until after its last, so such files run one at a
 * time while unit files still run beside them.
 */
export default class WorkerEnvironment extends TestEnvironment {
  private readonly lock?: string;
  private held = false;

  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    const raw = process.env.TEST_WORKER_INFRA;
    if (!raw) throw new Error('TEST_WORKER_INFRA is unset: run through jest, whose global setup sets it');
    const infra = JSON.parse(raw) as WorkerInfra;
    const i = (Number(process.env.JEST_WORKER_ID ?? 1) - 1) % infra.databases.length;
    // Before super(): the test's `process.env` is copied from the worker's here.
    process.env.TEST_DATABASE_URL = infra.databases[i];
    process.env.TEST_NATS_URL = infra.nats[i];
    super(...args);
    this.lock = infra.natsLock;
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (!this.lock) return;
    for (;;) {
      try {
        await mkdir(this.lock);
        this.held = true;
        return;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  }

  override async teardown(): Promise<void> {
    if (this.held && this.lock) await rmdir(this.lock);
    this.held = false;
    await super.teardown();
  }
}
