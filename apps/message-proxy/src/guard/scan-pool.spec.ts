import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { ErrorCode } from '@bastion/contracts';
import { CompiledScannerCache, sharedScannerCache } from '@bastion/guardrails';
import { ScanBudget } from './direction-guard';
import { runScanJob, type ScanJob, type ScanJobResult, type ScanRequest, scannerKey } from './scan-job';
import { OVERRAN, ScanPool, type ScanPoolOptions } from './scan-pool';

// The pool is what is tested here, so its workers run a stand-in script (plain JavaScript, which a
// worker can load from these TypeScript sources): a job's text says how long it keeps its thread
// busy ("30" ms of its CPU time), or sleeps without using the CPU ("sleep:80"), or that the worker dies; or
// ("compile:A:B") that the scanners whose configs came with the job took A ms to compile and those it
// was asked to time again B ms. runScanJob,
// what the real worker runs, is tested with DirectionGuard.
const STAND_IN = `
const { parentPort, workerData } = require('node:worker_threads');
const os = require('node:os');
if (workerData.nice > 0) os.setPriority(0, workerData.nice);
const cpu = () => { const u = process.threadCpuUsage(); return (u.user + u.system) / 1000; };
parentPort.on('message', ({ id, job, configs, retime }) => {
  if (job.text === 'die') process.exit(3);
  const timed = /^compile:([\\d.]+):([\\d.]+)$/.exec(job.text);
  if (timed) {
    const compileMs = {};
    for (const c of configs) compileMs[c.id + '\\u0000' + c.version] = Number(timed[1]);
    for (const key of retime ?? []) if (!(key in compileMs)) compileMs[key] = Number(timed[2]);
    return parentPort.postMessage({ id, result: { scanners: [], spentMs: 0 }, compileMs });
  }
  // As a worker that dropped its configs: it asks for them, then runs the job sent again with them.
  if (job.text === 'forgot') {
    if (configs.length < job.scanners.length) return parentPort.postMessage({ id, need: ['?'] });
    return parentPort.postMessage({ id, result: { scanners: [], spentMs: configs.length } });
  }
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

// The real scan worker, run from these TypeScript sources as jest runs them: swc compiles each file
// as it is required, and @bastion/* resolves to each lib's sources.
const ROOT = resolve(__dirname, '../../../..');
const FROM_SOURCES = `
const fs = require('node:fs');
const Module = require('node:module');
const { transformSync } = require(${JSON.stringify(join(ROOT, 'node_modules/@swc/core'))});
const options = require(${JSON.stringify(join(ROOT, 'scripts/swc-options'))});
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = request.startsWith('@bastion/') && request.slice('@bastion/'.length);
  return resolve.call(this, lib ? ${JSON.stringify(ROOT)} + '/libs/' + lib + '/src/index.ts' : request, ...rest);
};
Module._extensions['.ts'] = (module, filename) => {
  module._compile(transformSync(fs.readFileSync(filename, 'utf8'), { ...options, filename }).code, filename);
};
require(${JSON.stringify(join(__dirname, 'scan-worker.ts'))});
`;

describe('ScanPool', () => {
  let dir: string;
  let pool: ScanPool;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'scan-pool-'));
    writeFileSync(join(dir, 'stand-in.js'), STAND_IN);
    writeFileSync(join(dir, 'from-sources.js'), FROM_SOURCES);
  });
  afterEach(() => pool?.close());

  /** A pool of one worker (the stand-in script unless `options.script`), one per tenant, ten waiting, no nice, unless `options` say otherwise. */
  const standIn = (options: Partial<ScanPoolOptions> = {}) =>
    new ScanPool({ workers: 1, perTenant: 1, maxWaiting: 10, nice: 0, script: join(dir, 'stand-in.js'), ...options });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("keeps a worker free for other tenants: one tenant's slow scans do not hold up another's", async () => {
    pool = standIn({ workers: 2 });
    await Promise.all([pool.run('warm', job('0')), pool.run('warm2', job('0'))]);
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    try {
      const started = performance.now();
      const done: string[] = [];
      const heavy = Array.from({ length: 4 }, (_, i) =>
        pool.run('noisy', job('150')).then(() => done.push(`noisy ${i}`)),
      );
      // The quiet tenant's scan comes while the noisy one's first runs and three wait. (Not after a
      // timer: a loaded machine may hold this thread up until the first has ended.)
      await pool.run('quiet', job('1')).then(() => done.push('quiet'));
      await Promise.all(heavy);
      // The quiet tenant's scan went at once to the worker the noisy one may not take, ahead of the
      // noisy one's waiting three, which ran one after another on the other worker;
      const posts = posted.mock.calls.map(([req], i) => ({
        text: (req as ScanRequest).job.text,
        worker: posted.mock.contexts[i] as Worker,
      }));
      expect(posts.map((p) => p.text)).toEqual(['150', '1', '150', '150', '150']);
      expect(posts[1].worker).not.toBe(posts[0].worker);
      expect(posts.filter((p) => p.text === '150').every((p) => p.worker === posts[0].worker)).toBe(true);
      // so it ended before the noisy one's second could (which waited for the first, 150 ms of CPU);
      expect(done.indexOf('quiet')).toBeLessThan(done.indexOf('noisy 1'));
      // and the noisy one's four took 150 ms of CPU each, one after another.
      expect(performance.now() - started).toBeGreaterThanOrEqual(4 * 150);
    } finally {
      posted.mockRestore();
    }
  });

  it('fails the job of a worker that dies, and goes on with a new worker', async () => {
    pool = standIn();
    await expect(pool.run('t', job('die'))).rejects.toThrow(/exited/);
    await expect(pool.run('t', job('1'))).resolves.toMatchObject({ scanners: [], spentMs: 1 });
  });

  it('never hands a waiting job to the worker that just died', async () => {
    pool = standIn();
    const dies = pool.run('a', job('die')).catch((e: unknown) => e);
    const waiting = pool.run('b', job('1'));
    expect(await dies).toBeInstanceOf(Error);
    await expect(waiting).resolves.toMatchObject({ spentMs: 1 });
  });

  it("refuses a costly tenant's scan past its waiting cap, and only that tenant's", async () => {
    pool = standIn({ maxWaiting: 2, heavyMs: 20 });
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
    pool = standIn({ workers: 2, nice: 10, heavyMs: 20 });
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

  it("holds a tenant to its share of the workers' CPU, and only that tenant", async () => {
    pool = standIn({ workers: 2, perTenant: 2, cpuMsPerSecond: 200, cpuBurstMs: 100 });
    const posted = jest.spyOn(Worker.prototype, 'postMessage');
    const postedTexts = () => posted.mock.calls.map(([req]) => (req as ScanRequest).job.text);
    try {
      const started = performance.now();
      // 100 ms of burst, then in debt: 60 ms more of CPU at 200 ms a second waits about 300 ms.
      await pool.run('noisy', job('160'));
      const paid = pool.run('noisy', job('1')).then(() => performance.now() - started);
      const quiet = pool.run('quiet', job('1'));
      // The quiet tenant's scan went to a worker at once; the noisy one's waits, a worker free,
      // until its debt is paid. (Which ends first is then up to how busy the machine is.)
      expect(postedTexts()).toEqual(['160', '1']);
      const [noisyAt] = await Promise.all([paid, quiet]);
      expect(postedTexts()).toEqual(['160', '1', '1']);
      expect(noisyAt).toBeGreaterThanOrEqual(160 + 250);
      // Once paid back, the tenant runs at once again: its scan goes to a worker as it comes, with
      // no wait for its debt (the time of the worker's round trip is the machine's, not the pool's).
      await new Promise((r) => setTimeout(r, 600));
      posted.mockClear();
      const again = pool.run('noisy', job('1'));
      expect(postedTexts()).toEqual(['1']);
      await again;
    } finally {
      posted.mockRestore();
    }
  });

  it('refuses, with the wait as Retry-After, a scan whose tenant owes more CPU than its caller waits', async () => {
    pool = standIn({ cpuMsPerSecond: 100, cpuBurstMs: 10, maxDebtWaitMs: 200 });
    // 10 ms of burst, then 60 ms of debt at 100 ms a second: about 600 ms to pay back.
    await pool.run('noisy', job('70'));
    const err = await pool.run('noisy', job('1')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, retryAfter: 1 });
    await expect(pool.run('quiet', job('1'))).resolves.toMatchObject({ spentMs: 1 });
  });

  it('holds a tenant whose scans are costly to the lower share, and one with quick scans to the ordinary one', async () => {
    pool = standIn({
      cpuMsPerSecond: 1000,
      costlyCpuMsPerSecond: 100,
      cpuBurstMs: 10,
      maxDebtWaitMs: 200,
      heavyMs: 50,
    });
    // 40 ms of scans under the 50 ms that makes a tenant costly: 30 ms of debt at 1,000 ms a second.
    await pool.run('quick', job('40'));
    await expect(pool.run('quick', job('1'))).resolves.toMatchObject({ spentMs: 1 });
    // 70 ms in one scan makes its tenant costly: 60 ms of debt at 100 ms a second, 600 ms, is over the 200 it may wait.
    await pool.run('costly', job('70'));
    const err = await pool.run('costly', job('1')).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: ErrorCode.RESOURCE_EXHAUSTED, retryAfter: 1 });
  });

  it('resends a job with all its configs to a worker that dropped some', async () => {
    pool = standIn();
    const scanners = [
      { id: 'a', version: '1', config: { type: 'pii' } },
      { id: 'b', version: '1', config: { type: 'secrets' } },
    ];
    await pool.run('t', { ...job('0'), scanners });
    // The stand-in answers with how many configs it was sent.
    await expect(pool.run('t', { ...job('forgot'), scanners })).resolves.toMatchObject({ spentMs: 2 });
  });

  describe("scanners' compile costs", () => {
    let posted: jest.SpyInstance;
    beforeEach(() => {
      posted = jest.spyOn(Worker.prototype, 'postMessage');
    });
    afterEach(() => posted.mockRestore());
    const regex = (id: string) => ({ id, version: '1', config: { type: 'regex', patterns: [`${id}\\d`] } });
    const timedJob = (scanners: ScanJob['scanners'], text: string): ScanJob => ({
      scanners,
      text,
      limitMs: 5000,
      spentMs: 0,
    });
    const retimed = () => posted.mock.calls.map(([req]) => (req as ScanRequest).retime);

    // Scans here may take 1 s: only compiling decides where a job runs (a loaded machine's inline scan may take ms).
    const roomyScan = { inlineMaxChars: 100, inlineScanMs: 1000 };

    it('compiles here, within the inline allowance, some scanners of a job refused here only for compiling them all', async () => {
      const refs = ['ahead-a', 'ahead-b', 'ahead-c'].map(regex);
      // 4 s each as the workers time them, 10 s for one inline job: far more than these compiles
      // take here, however loaded the machine (a compile here over the allowance would send the
      // tenant's scans to the workers, and end compiling ahead).
      pool = standIn({ ...roomyScan, inlineCompileMs: 10_000 });
      // Never compiled anywhere: a worker compiles them first, 12 s in all.
      await pool.scan('t', timedJob(refs, 'compile:4000:4000'));
      expect(refs.map((r) => sharedScannerCache.peek(r))).toEqual([undefined, undefined, undefined]);
      // More than an inline job may compile: a worker scans, and the first two compile here meanwhile.
      await pool.scan('t', timedJob(refs, 'compile:4000:4000'));
      expect(posted).toHaveBeenCalledTimes(2);
      expect(refs.map((r) => sharedScannerCache.peek(r) !== undefined)).toEqual([true, true, false]);
      // The last compiles in the inline job: scanned here.
      await expect(pool.scan('t', timedJob(refs, 'compile:4000:4000'))).resolves.toMatchObject({
        scanners: [{ failed: false }, { failed: false }, { failed: false }],
      });
      expect(posted).toHaveBeenCalledTimes(2);
    });

    it('says where it placed each job (onScan)', async () => {
      const places: string[] = [];
      const ref = regex('placed');
      pool = standIn({ ...roomyScan, inlineCompileMs: 50, onScan: (where) => places.push(where) });
      // Never compiled anywhere: a worker first, then here.
      await pool.scan('t', timedJob([ref], 'compile:1:1'));
      await pool.scan('t', timedJob([ref], 'compile:1:1'));
      // A text over inlineMaxChars (101 zeros: the stand-in keeps its thread busy for 0 ms): a worker.
      await pool.scan('t', timedJob([ref], '0'.repeat(101)));
      expect(places).toEqual(['worker', 'inline', 'worker']);
    });

    it('compiles nothing here for a job with a scanner over the allowance alone, or one never timed', async () => {
      const [slow, quick1, quick2, fresh] = ['mixed-slow', 'mixed-a', 'mixed-b', 'mixed-fresh'].map(regex);
      pool = standIn({ ...roomyScan, inlineCompileMs: 50 });
      await pool.scan('t', timedJob([slow], 'compile:60:60'));
      await pool.scan('t', timedJob([quick1, quick2], 'compile:20:20'));
      posted.mockClear();
      for (let i = 0; i < 3; i++) await pool.scan('t', timedJob([slow, quick1, quick2], 'compile:20:20'));
      await pool.scan('u', timedJob([fresh, quick1, quick2], 'compile:20:20'));
      expect(posted).toHaveBeenCalledTimes(4);
      expect([slow, quick1, quick2].map((r) => sharedScannerCache.peek(r))).toEqual([undefined, undefined, undefined]);
    });

    it("sends a tenant's scans to the workers once a compile here took longer than the allowance, and keeps that cost", async () => {
      const [costly, other] = ['here-costly', 'here-other'].map(regex);
      pool = standIn({ ...roomyScan, inlineCompileMs: 5 });
      await pool.scan('t', timedJob([costly], 'compile:1:1'));
      await pool.scan('u', timedJob([other], 'compile:1:1'));
      // Compiling here takes 30 ms (this thread had not worked out what a worker had).
      const compile = sharedScannerCache.get.bind(sharedScannerCache);
      const slowly = jest.spyOn(sharedScannerCache, 'get').mockImplementation((ref) => {
        const until = performance.now() + 30;
        while (performance.now() < until);
        return compile(ref);
      });
      try {
        expect(pool.tryInline('t', timedJob([costly], 'x'))).toMatchObject({ scanners: [{ failed: false }] });
      } finally {
        slowly.mockRestore();
      }
      // Its tenant's scans go to the workers for a while, another tenant's stay here.
      expect(pool.tryInline('t', timedJob([costly], 'x'))).toBeUndefined();
      expect(pool.tryInline('u', timedJob([other], 'x'))).toMatchObject({ scanners: [{ failed: false }] });
      // The worker's timing does not lower it again.
      const costs = (pool as unknown as { compileCosts: Map<string, { ms: number }> }).compileCosts;
      expect(costs.get(scannerKey(costly))!.ms).toBeGreaterThanOrEqual(30);
    });

    it('times a compile over the inline allowance again, up to three timings in all, and keeps the least', async () => {
      const [quickLater, slow, far] = ['retime-a', 'retime-b', 'retime-c'].map(regex);
      pool = standIn({ ...roomyScan, inlineCompileMs: 5 });
      // First timed at 20 ms (a worker kept waiting for the CPU, say), then 30, then 1.
      for (const text of ['compile:20:30', 'compile:20:30', 'compile:20:1'])
        await pool.scan('t', timedJob([quickLater], text));
      expect(retimed()).toEqual([[scannerKey(quickLater)], [scannerKey(quickLater)], [scannerKey(quickLater)]]);
      // The least, 1 ms, is within the allowance: scanned here.
      expect(pool.tryInline('t', timedJob([quickLater], 'x'))).toMatchObject({ scanners: [{ failed: false }] });
      posted.mockClear();
      // Slow every time: timed three times, then no more, and never here.
      for (let i = 0; i < 4; i++) await pool.scan('t', timedJob([slow], 'compile:20:20'));
      expect(retimed()).toEqual([[scannerKey(slow)], [scannerKey(slow)], [scannerKey(slow)], undefined]);
      expect(pool.tryInline('t', timedJob([slow], 'x'))).toBeUndefined();
      posted.mockClear();
      // Far over the allowance (COMPILE_RETIME_MAX_MS): not timed again.
      for (let i = 0; i < 2; i++) await pool.scan('t', timedJob([far], 'compile:60:1'));
      expect(retimed()).toEqual([[scannerKey(far)], undefined]);
    });

    it('times again at most COMPILE_RETIME_MAX_MS of compiling in one job, and a scanner whose timing was forgotten', async () => {
      const refs = ['cap-a', 'cap-b', 'cap-c'].map(regex);
      pool = standIn({ ...roomyScan, inlineCompileMs: 5 });
      await pool.scan('t', timedJob(refs, 'compile:20:20'));
      posted.mockClear();
      // 20 ms each: two fit in 50.
      await pool.scan('t', timedJob(refs, 'compile:20:20'));
      expect(retimed()).toEqual([refs.slice(0, 2).map(scannerKey)]);
      // Forgotten (as the oldest of COMPILE_CACHE_SIZE timings are): timed again, not left on the workers untimed.
      (pool as unknown as { compileCosts: Map<string, unknown> }).compileCosts.delete(scannerKey(refs[2]));
      posted.mockClear();
      await pool.scan('t', timedJob([refs[2]], 'compile:20:1'));
      expect(retimed()).toEqual([[scannerKey(refs[2])]]);
      expect(pool.tryInline('t', timedJob([refs[2]], 'x'))).toMatchObject({ scanners: [{ failed: false }] });
    });
  });

  describe('with the real scan worker', () => {
    const scanners = [
      { id: 'words', version: '1', config: { type: 'regex', patterns: ['hunter\\d', 'sword\\w+'] } },
      { id: 'pii', version: '2', config: { type: 'pii' } },
      { id: 'custom', version: '3', config: { type: 'custom', prompt: 'judge' } },
    ];
    const text = 'pw hunter2 or swordfish, mail jane@example.com';
    const scan = (): ScanJob => ({ scanners, text, limitMs: 5000, spentMs: 0 });
    const inline = (j: ScanJob) =>
      runScanJob(j, (ref) => new CompiledScannerCache().get(ref), new ScanBudget(j.limitMs, j.spentMs));
    const outcomes = (r: ScanJobResult) => r.scanners.map(({ startedAt, completedAt, ...o }) => o);
    let posted: jest.SpyInstance;

    beforeEach(() => {
      posted = jest.spyOn(Worker.prototype, 'postMessage');
    });
    afterEach(() => posted.mockRestore());
    const configsSent = () => posted.mock.calls.map(([req]) => (req as ScanRequest).configs.map((c) => c.id));

    it("sends a scanner version's config to a worker once, and scans as an inline scan does", async () => {
      pool = standIn({ script: join(dir, 'from-sources.js') });
      const first = await pool.run('t', scan());
      const second = await pool.run('t', scan());
      expect(outcomes(first)).toEqual(outcomes(inline(scan())));
      expect(outcomes(second)).toEqual(outcomes(first));
      expect(outcomes(first)[0]).toMatchObject({ failed: true });
      expect(outcomes(first)[2]).toMatchObject({ notRun: expect.stringContaining('custom') });
      expect(configsSent()).toEqual([['words', 'pii', 'custom'], []]);
      // The second job named its scanners only.
      expect(JSON.stringify(posted.mock.calls[1][0])).not.toContain('patterns');
      // Another config under the same ids is sent, and scanned with.
      const changed = [{ ...scanners[0], config: { type: 'regex', pattern: 'jane' } }, ...scanners.slice(1)];
      const third = await pool.run('t', { ...scan(), scanners: changed });
      expect(configsSent()[2]).toEqual(['words']);
      expect(outcomes(third)[0]).toEqual(outcomes(inline({ ...scan(), scanners: changed }))[0]);
    });

    describe('on the calling thread', () => {
      // Inline limits no load on a shared machine reaches (a worker compiling from these sources loads
      // modules inside its first compile); INLINE_SCAN_MS and INLINE_COMPILE_MS are the defaults.
      // Never costly by a worker's time: a loaded machine can stretch a quick scan's first run there
      // past the default (50 ms), which would send the tenant's scans to the workers for a minute.
      const roomy = { inlineMaxChars: 1000, inlineScanMs: 1000, inlineCompileMs: 1000, heavyMs: Infinity };
      // A regex and a config that does not compile.
      const quick = (): ScanJob => ({ scanners: [scanners[0], scanners[2]], text, limitMs: 5000, spentMs: 0 });

      it('scans a short text of a tenant whose scanners compiled quickly on a worker, as the worker does', async () => {
        pool = standIn({ script: join(dir, 'from-sources.js'), ...roomy });
        // Never compiled anywhere yet: a worker compiles first.
        expect(pool.tryInline('t', quick())).toBeUndefined();
        const onWorker = await pool.run('t', quick());
        const posts = posted.mock.calls.length;
        const here = pool.tryInline('t', quick()) as ScanJobResult;
        expect(here).toBeDefined();
        expect(here).not.toBe(OVERRAN);
        expect(outcomes(here)).toEqual(outcomes(onWorker));
        expect(outcomes(here)[0]).toMatchObject({ failed: true });
        expect(posted.mock.calls.length).toBe(posts);
      });

      it('leaves to the workers a long text, a job past the inline budget, and a tenant whose scans are costly', async () => {
        // Every scan marks its tenant costly here, even one whose CPU time reads as 0 (thread CPU
        // time advances in steps of a few ms on some machines).
        pool = standIn({ script: join(dir, 'from-sources.js'), ...roomy, heavyMs: -1 });
        await pool.run('costly', quick());
        expect(pool.tryInline('costly', quick())).toBeUndefined();
        expect(pool.tryInline('other', { ...quick(), text: 'x'.repeat(1001) })).toBeUndefined();
        expect(pool.tryInline('other', quick())).toMatchObject({ scanners: expect.any(Array) });
        // No budget left for it here: a worker says what that means.
        expect(pool.tryInline('other', { ...quick(), spentMs: 5000 })).toBeUndefined();
        expect(pool.tryInline('fresh', quick())).toMatchObject({ scanners: expect.any(Array) });
        // Off by default.
        await pool.close();
        pool = standIn({ script: join(dir, 'from-sources.js') });
        await pool.run('t', quick());
        expect(pool.tryInline('t', quick())).toBeUndefined();
      });

      /**
       * A pool whose inline scans may take 2 ms, with a job that takes longer here and on a worker
       * (`slow`) and one that does not (`short`), compiled on this thread beforehand so that compiling
       * is not what the inline scans cost. Never costly (a loaded machine may stretch a worker's scan
       * past 50 ms): only the overruns turn inline scans off. `inlineHere`: the tenant's short job ran here.
       */
      async function overrunPool(options: Partial<ScanPoolOptions> = {}) {
        // One "a" and no "b": the first branch reads the whole text before the second matches, in one
        // step no budget check can interrupt.
        const regex = { version: '1', config: { type: 'regex', patterns: ['a[^#]*b0x0|a'] } };
        const slow: ScanJob = {
          scanners: ['slow1', 'slow2', 'slow3'].map((id) => ({ id, ...regex })),
          text: 'a' + '-'.repeat(999_000),
          limitMs: 5000,
          spentMs: 0,
        };
        const short = { ...slow, text: 'a-' };
        const made = standIn({
          script: join(dir, 'from-sources.js'),
          ...roomy,
          inlineMaxChars: 5_000_000,
          inlineScanMs: 2,
          heavyMs: Infinity,
          ...options,
        });
        await made.run('t', short);
        for (const ref of slow.scanners) sharedScannerCache.get(ref);
        // OVERRAN too: it ran here, and ran over only if this thread was descheduled meanwhile.
        const inlineHere = (tenant: string) => made.tryInline(tenant, short) !== undefined;
        return { made, slow, short, inlineHere };
      }

      it("sends a tenant's scans to the workers for a while once three ran over the inline budget within 10 s, not for a spent request's", async () => {
        const { made, slow, short, inlineHere } = await overrunPool();
        pool = made;
        // A request with less of its budget left than that: a worker says what it means, and this
        // thread goes on scanning the tenant's short texts.
        expect(pool.tryInline('t', { ...short, spentMs: 4999.5 })).toBeUndefined();
        expect(inlineHere('t')).toBe(true);
        // Making 999,001 characters canonical and reading them thrice takes well over 2 ms (9-18 ms
        // measured), here and on the worker that scans it again: once is not enough to tell a slow
        // tenant (a quick scan runs over when its thread is descheduled), three times within 10 s is,
        // and the tenant's next scans go to the workers.
        expect(pool.tryInline('t', slow)).toBe(OVERRAN);
        const tried = jest.spyOn(pool, 'tryInline');
        for (let i = 1; i <= 3; i++) {
          const posts = posted.mock.calls.length;
          const scanned = pool.scan('t', slow);
          // Until the worker has answered, the tenant's scans run there, not here.
          expect(pool.tryInline('t', short)).toBeUndefined();
          await expect(scanned).resolves.toMatchObject({ scanners: [{ failed: true }, {}, {}] });
          expect(tried.mock.results[0].value).toBe(OVERRAN);
          expect(posted.mock.calls.length).toBe(posts + 1);
          expect(inlineHere('t')).toBe(i < 3);
          tried.mockClear();
        }
        expect(inlineHere('other')).toBe(true);
      });

      it("charges an inline scan by the wall clock, at most the inline limit, to the tenant's share", async () => {
        const { made, slow, short, inlineHere } = await overrunPool({
          cpuMsPerSecond: 0.001,
          cpuBurstMs: 2.5,
          inlineScanMs: 1,
          inlineCompileMs: 0,
        });
        pool = made;
        // 9-18 ms each (above), charged 1 (the inline limits of scanning, 1, and compiling, 0): a
        // burst of 2.5 lets three run here and leaves the tenant in debt after the third. By their
        // wall time (over 1.25 ms each) the second or third would not have run here.
        // (Not tenant t, whose share paid for the worker's scan that set the pool up.)
        for (let i = 0; i < 3; i++) expect(pool.tryInline('u', slow)).toBe(OVERRAN);
        expect(pool.tryInline('u', short)).toBeUndefined();
        // Another tenant's runs here (OVERRAN too if this thread was descheduled past the 1 ms).
        expect(inlineHere('other')).toBe(true);
      });

      it('scans here again once a confirmation on a worker failed (the worker died, say)', async () => {
        const { made, slow, inlineHere } = await overrunPool();
        pool = made;
        jest.spyOn(pool, 'run').mockRejectedValueOnce(new Error('scan worker exited (1)'));
        await expect(pool.scan('t', slow)).rejects.toThrow('scan worker exited');
        // Nothing confirmed, and nothing left pending: the tenant's short texts run here.
        expect(inlineHere('t')).toBe(true);
      });

      it('keeps the result of a scan over a limit of size or matches, which a worker would only repeat', async () => {
        pool = standIn({ script: join(dir, 'from-sources.js'), ...roomy, inlineMaxChars: 5_000_000 });
        await pool.run('t', quick());
        const posts = posted.mock.calls.length;
        // Over the engine's text limit (1 MiB): final wherever it runs.
        const big = pool.tryInline('t', { ...quick(), text: 'x'.repeat(1_100_000) });
        expect(big).not.toBe(OVERRAN);
        expect((big as ScanJobResult).scanners[0]).toMatchObject({ limit: 'text-bytes' });
        expect(posted.mock.calls.length).toBe(posts);
      });

      it('keeps scanning here for a tenant whose inline scans ran over only because the thread was descheduled', async () => {
        // The regex and the PII scanner: the first one's scan seems to take 5 s of wall time (the
        // clock jumps as when this thread waits for a core), so the second finds the inline budget
        // (4 s) spent. 4 s leaves the scans with the real clock room on a loaded machine: a worker's
        // confirming scan counts the overrun only if it took half of that, and the last scan here
        // runs over only past all of it. Compiling may take 10 s (the first scan here compiles, its
        // clock jumping too; and the worker's first compile of each is what is known of its cost).
        const two = (): ScanJob => ({ scanners: [scanners[0], scanners[1]], text, limitMs: 5000, spentMs: 0 });
        pool = standIn({
          script: join(dir, 'from-sources.js'),
          ...roomy,
          inlineScanMs: 4000,
          inlineCompileMs: 10_000,
        });
        const onWorker = await pool.run('t', two());
        // The clock jumps only while the scan runs here (the worker's thread has its own clock).
        const descheduled = (tenant: string) => {
          let clock = performance.now();
          const now = jest.spyOn(performance, 'now').mockImplementation(() => (clock += 5000));
          try {
            return pool.scan(tenant, two());
          } finally {
            now.mockRestore();
          }
        };
        for (let i = 0; i < 5; i++) {
          const posts = posted.mock.calls.length;
          // Scanned again on a worker, whole, and quickly there: the overrun does not count.
          const result = await descheduled('t');
          expect(outcomes(result)).toEqual(outcomes(onWorker));
          expect(posted.mock.calls.length).toBe(posts + 1);
        }
        const here = pool.tryInline('t', two());
        expect(here).toBeDefined();
        expect(here).not.toBe(OVERRAN);
      });

      it('makes a tenant over its CPU share wait, then scans its short text here rather than on a worker', async () => {
        // 1 ms of burst, paid back at 20 ms a second: the worker's run, or a few inline scans after
        // it, put the tenant in debt. The debt is what those took, which on a loaded machine can be
        // tens of ms (seconds of waiting at this rate): the wait is let run as long as the test may.
        pool = standIn({
          script: join(dir, 'from-sources.js'),
          ...roomy,
          cpuMsPerSecond: 20,
          cpuBurstMs: 1,
          maxDebtWaitMs: 50_000,
        });
        const onWorker = await pool.run('t', quick());
        let scans = 0;
        while (pool.tryInline('t', quick()) !== undefined && scans < 10_000) scans++;
        expect(pool.tryInline('t', quick())).toBeUndefined();
        const posts = posted.mock.calls.length;
        const here = await pool.scan('t', quick());
        expect(outcomes(here)).toEqual(outcomes(onWorker));
        expect(posted.mock.calls.length).toBe(posts);
      }, 60_000);
    });

    it('times again, compiling anew, a scanner the job names to be timed again', async () => {
      // Every compile is over an allowance of 0 ms: timed again until timed three times, then no more.
      pool = standIn({ script: join(dir, 'from-sources.js'), inlineMaxChars: 1000, inlineCompileMs: 0 });
      const learnt = jest.spyOn(
        pool as unknown as { learnCompileCosts(costs?: Record<string, number>): void },
        'learnCompileCosts',
      );
      // Compiled on no thread yet (this one compiled `words` in the tests before).
      const fresh = { ...scanners[0], id: 'words-timed' };
      const words = (): ScanJob => ({ scanners: [fresh], text, limitMs: 5000, spentMs: 0 });
      const key = scannerKey(fresh);
      // Timed once before, at 1 ms: a first timing here, on a loaded machine, may be over
      // COMPILE_RETIME_MAX_MS (50 ms), which is never timed again, whatever the worker does.
      (pool as unknown as { compileCosts: Map<string, { ms: number; samples: number }> }).compileCosts.set(key, {
        ms: 1,
        samples: 1,
      });
      const results = [];
      for (let i = 0; i < 4; i++) results.push(await pool.run('t', words()));
      // The first job's worker compiles it (it was sent the config) and the second's compiles it
      // anew, only to time it again: three timings, none after.
      expect(learnt.mock.calls.map(([costs]) => Object.keys(costs ?? {}))).toEqual([[key], [key], [], []]);
      expect(learnt.mock.calls[1][0]![key]).toBeGreaterThan(0);
      // The job scanned as always meanwhile.
      for (const r of results) expect(outcomes(r)).toEqual(outcomes(inline(words())));
    });

    it('sends the configs again to a worker that replaced one that died', async () => {
      pool = standIn({ script: join(dir, 'from-sources.js') });
      await pool.run('t', scan());
      await (posted.mock.contexts[0] as Worker).terminate();
      await new Promise((r) => setImmediate(r));
      const again = await pool.run('t', scan());
      expect(configsSent()).toEqual([
        ['words', 'pii', 'custom'],
        ['words', 'pii', 'custom'],
      ]);
      expect(posted.mock.contexts[1]).not.toBe(posted.mock.contexts[0]);
      expect(outcomes(again)).toEqual(outcomes(inline(scan())));
    });
  });
});
