import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScanJob } from './scan-job';
import { ScanPool } from './scan-pool';

// The pool is what is tested here, so its workers run a stand-in script (plain JavaScript, which a
// worker can load from these TypeScript sources): a job's text says how long it keeps its thread
// busy ("30" ms of its CPU time), or sleeps without using the CPU ("sleep:80"), or that the worker dies. runScanJob,
// what the real worker runs, is tested with DirectionGuard.
const STAND_IN = `
const { parentPort, workerData } = require('node:worker_threads');
const os = require('node:os');
if (workerData.nice > 0) os.setPriority(0, workerData.nice);
const cpu = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
parentPort.on('message', ({ id, job }) => {
  if (job.text === 'die') process.exit(3);
  const before = cpu();
  const [, sleep, busy] = /^(?:sleep:(\\d+)|(\\d+))$/.exec(job.text);
  if (sleep) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(sleep));
  // Busy for that much of this thread's CPU time, not wall time: on a loaded machine the thread may
  // get less CPU than the wall clock passes, and the pool judges a tenant by CPU.
  while (cpu() - before < Number(busy ?? 0));
  parentPort.postMessage({ id, result: { scanners: [], spentMs: Number(sleep ?? busy), nice: os.getPriority(0) }, cpuMs: cpu() - before });
});
`;

const job = (text: string): ScanJob => ({ scanners: [], text, limitMs: 1000, spentMs: 0 });

describe('ScanPool', () => {
  let dir: string;
  let pool: ScanPool;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'scan-pool-'));
    writeFileSync(join(dir, 'stand-in.js'), STAND_IN);
  });
  afterEach(() => pool?.close());
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps a worker free for other tenants: one tenant's slow scans do not hold up another's", async () => {
    pool = new ScanPool({ workers: 2, perTenant: 1, maxWaiting: 10, nice: 0, script: join(dir, 'stand-in.js') });
    await Promise.all([pool.run('warm', job('0')), pool.run('warm2', job('0'))]);
    const started = performance.now();
    const done: string[] = [];
    const heavy = Array.from({ length: 4 }, (_, i) =>
      pool.run('noisy', job('150')).then(() => done.push(`noisy ${i}`)),
    );
    await new Promise((r) => setTimeout(r, 20));
    await pool.run('quiet', job('1')).then(() => done.push('quiet'));
    await Promise.all(heavy);
    // The quiet tenant's scan ran on the worker the noisy one may not take, before its first ended;
    expect(done[0]).toBe('quiet');
    // and the noisy tenant's four ran one after another, on one worker.
    expect(performance.now() - started).toBeGreaterThanOrEqual(4 * 150);
  });

  it('fails the job of a worker that dies, and goes on with a new worker', async () => {
    pool = new ScanPool({ workers: 1, perTenant: 1, maxWaiting: 10, nice: 0, script: join(dir, 'stand-in.js') });
    await expect(pool.run('t', job('die'))).rejects.toThrow(/exited/);
    await expect(pool.run('t', job('1'))).resolves.toMatchObject({ scanners: [], spentMs: 1 });
  });

  it("refuses a costly tenant's scan past its waiting cap, and only that tenant's", async () => {
    pool = new ScanPool({
      workers: 1,
      perTenant: 1,
      maxWaiting: 2,
      nice: 0,
      heavyMs: 20,
      script: join(dir, 'stand-in.js'),
    });
    // Quick scans are never refused, however many wait.
    await Promise.all(Array.from({ length: 6 }, () => pool.run('noisy', job('1'))));
    await pool.run('noisy', job('30'));
    const running = pool.run('noisy', job('100'));
    const waiting = [pool.run('noisy', job('1')), pool.run('noisy', job('1'))];
    await expect(pool.run('noisy', job('1'))).rejects.toMatchObject({ code: 'RESOURCE_EXHAUSTED', retryAfter: 1 });
    await expect(pool.run('quiet', job('1'))).resolves.toMatchObject({ scanners: [], spentMs: 1 });
    await Promise.all([running, ...waiting]);
  });

  it('runs a tenant whose scans were costly on the lower-priority workers, and quick tenants on the first', async () => {
    pool = new ScanPool({
      workers: 2,
      perTenant: 1,
      maxWaiting: 10,
      nice: 10,
      heavyMs: 20,
      script: join(dir, 'stand-in.js'),
    });
    const niceOf = async (tenant: string, ms: string) =>
      ((await pool.run(tenant, job(ms))) as unknown as { nice: number }).nice;
    // Both idle: the first free worker (the prompt one) takes it; 30 ms marks the tenant costly.
    expect(await niceOf('noisy', '30')).toBe(0);
    expect(await niceOf('noisy', '1')).toBe(10);
    expect(await niceOf('noisy', '1')).toBe(10);
    expect(await niceOf('quiet', '1')).toBe(0);
    // A scan that took long without costing CPU (a busy machine) does not mark its tenant.
    expect(await niceOf('waits', 'sleep:80')).toBe(0);
    expect(await niceOf('waits', '1')).toBe(0);
  });
});
