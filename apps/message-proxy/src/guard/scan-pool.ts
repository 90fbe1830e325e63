import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DomainError, ErrorCode } from '@bastion/contracts';
import { COMPILE_CACHE_SIZE, type Scanner, sharedScannerCache } from '@bastion/guardrails';
import { ScanBudget } from './direction-guard';
import { FairQueue } from './fair-queue';
import {
  runScanJob,
  scannerKey,
  type ScanJob,
  type ScanJobResult,
  type ScannerRef,
  type ScanReply,
  type ScanRequest,
} from './scan-job';

/** Scan time (ms) a job run on the caller's thread may take; past it the job goes to a worker. */
export const INLINE_SCAN_MS = 5;
/**
 * How long a tenant's scans stay on the workers (ms) after INLINE_OVERRUNS of its inline scans ran
 * over INLINE_SCAN_MS within INLINE_OVERRUN_WINDOW_MS and took at least half of it again on a worker:
 * a slow tenant's scans all do, while a quick scan runs over only when its thread is descheduled,
 * which on a loaded machine happens several times a second, and is then quick on the worker. (The
 * thread's CPU time cannot tell the two apart: Linux updates it at clock ticks and context switches,
 * so a quick scan that was descheduled may read as several milliseconds.)
 */
export const INLINE_OFF_MS = 10_000;
export const INLINE_OVERRUNS = 3;
export const INLINE_OVERRUN_WINDOW_MS = INLINE_OFF_MS;
/** Compiling (ms, as measured on a worker) the caller's thread may take on for one inline job. */
export const INLINE_COMPILE_MS = 5;
/**
 * A scanner version's compile cost is the least of this many timings on the workers. A worker's
 * wall clock runs on while its thread waits for the CPU (a lowered worker on a loaded machine waits
 * long), so one timing of a quick compile may read as many milliseconds; the thread's CPU time
 * cannot tell, being updated only at clock ticks. A compile over INLINE_COMPILE_MS is timed again,
 * up to this many times in all, on the next jobs that name it. A timing may still be lower than
 * what the same compile costs this thread (a worker keeps what earlier compiles worked out), so a
 * compile here is timed too: past INLINE_COMPILE_MS, that is the scanner's cost from then on, and
 * its tenant's scans leave this thread for INLINE_OFF_MS.
 */
export const COMPILE_SAMPLES = 3;
/**
 * A compile timed over this (ms) is not timed again (no wait for the CPU is that long but rarely),
 * and a job has at most this much compiling timed again (a scanner whose cost is not known counts as
 * this much).
 */
export const COMPILE_RETIME_MAX_MS = 50;
/** What `tryInline` answers for a job that ran over its inline limit: a worker scans it again. */
export const OVERRAN = Symbol('OVERRAN');

/** Nest token of the process's ScanPool (null when scans run on the event loop). */
export const SCAN_POOL = Symbol('SCAN_POOL');

export interface ScanPoolOptions {
  /** Worker threads (0: no pool, callers scan in their own thread). */
  workers: number;
  /** Workers one tenant may hold at once; the rest stay free for other tenants. */
  perTenant: number;
  /**
   * Scans a costly tenant (see `heavyMs`) may have waiting; past it a scan is refused
   * (RESOURCE_EXHAUSTED) rather than queued. Quick scans are never refused (but wait while their
   * tenant is over its CPU share, see `cpuMsPerSecond`).
   */
  maxWaiting: number;
  /**
   * Nice value (0 to 19) of every worker's thread but the first: their scanning yields the CPU to
   * answering requests. The first runs at the process's priority and takes only tenants whose
   * scans are quick, so a tenant with costly scans cannot slow another's down to its priority.
   */
  nice: number;
  /**
   * A scan that cost its worker's thread more CPU than this (ms; its time where Node cannot tell)
   * makes its tenant's scans run on the lower-priority workers for `heavyForMs`. Default 50, 60 s.
   */
  heavyMs?: number;
  heavyForMs?: number;
  /**
   * A tenant's share of the workers' CPU: its scans may cost on average this many ms of CPU per
   * second (0: no cap), with `cpuBurstMs` saved up at most. A tenant in debt waits, its scans
   * queued, until the debt is paid back at that rate. A worker's scan costs the CPU time it
   * measured; an inline one its wall time, capped (tryInline).
   */
  cpuMsPerSecond?: number;
  /**
   * The share of a tenant while its scans are costly (see `heavyMs`), in the same terms; default
   * `cpuMsPerSecond`. Quick scans, however many, are not what takes other tenants' CPU in bursts.
   */
  costlyCpuMsPerSecond?: number;
  cpuBurstMs?: number;
  /**
   * A scan whose tenant would have to wait longer than this for its CPU debt to be paid (ms,
   * default 3000) is refused (RESOURCE_EXHAUSTED, retry after that wait) rather than queued past
   * what its caller waits.
   */
  maxDebtWaitMs?: number;
  /**
   * A job whose text is at most this many characters may run on the caller's thread (`tryInline`),
   * 0: never. Handing a short text to a worker and back costs more than scanning it.
   */
  inlineMaxChars?: number;
  /** Scan time and worker-measured compile time (ms) an inline job may take (default INLINE_SCAN_MS, INLINE_COMPILE_MS). */
  inlineScanMs?: number;
  inlineCompileMs?: number;
  /** The worker script (default: scan-worker.js beside this file). */
  script?: string;
  /**
   * Called for each job `scan` places (for a metric): `inline` on the caller's thread, `worker` on a
   * worker, `overran` inline and then again on a worker.
   */
  onScan?: (where: ScanPlace) => void;
}

export type ScanPlace = 'inline' | 'worker' | 'overran';

interface Task {
  tenant: string;
  job: ScanJob;
  resolve(result: ScanJobResult): void;
  reject(err: Error): void;
  /** Sent again with all its configs (the worker had dropped some). */
  resent?: boolean;
}

interface Slot {
  worker: Worker;
  task?: Task;
  id: number;
  /** Runs at the process's priority: kept for tenants whose scans are quick. */
  prompt: boolean;
  /** The config this worker was sent per scanner version (by scannerKey). */
  sent: Map<string, object>;
}

/**
 * Scans on worker threads, fairly across tenants. A costly scan (a project's many scanners over a
 * large text take up to its scan budget) then holds up neither the proxy's event loop, which goes
 * on answering other requests, nor other tenants' scans: jobs wait per tenant and take turns
 * (FairQueue), and one tenant holds at most `perTenant` workers, so with two or more workers one is
 * always left for others; a costly tenant with `maxWaiting` scans waiting has the next refused. Workers
 * but the first run at a lower CPU priority, and a tenant whose scans were costly lately runs only
 * there: its scanning then takes the CPU that answering requests leaves. A worker that dies fails its job (which fails closed) and is replaced.
 *
 * A job names its scanners by key and carries only the configs its worker was not sent before:
 * copying a project's every config to another thread per scan costs the event loop milliseconds.
 * A worker that dropped a config asks for it, and gets the job again with all its configs.
 */
export class ScanPool {
  private readonly slots: Slot[] = [];
  private readonly queue = new FairQueue<Task>();
  private readonly busy = new Map<string, number>();
  /** Tenants whose recent scans were costly, until when (ms since the epoch). */
  private readonly heavyUntil = new Map<string, number>();
  /** Each tenant's CPU balance (ms; negative: in debt), as of `at` (ms since the epoch). */
  private readonly credit = new Map<string, { balance: number; at: number }>();
  private wakeUp?: { timer: NodeJS.Timeout; at: number };
  /** Tenants whose scans run only on the workers until when (ms since the epoch): INLINE_OVERRUNS of them ran over inline. */
  private readonly inlineOffUntil = new Map<string, number>();
  /** Tenants with an inline scan over its limit that a worker is scanning again (see `scan`), and how many. */
  private readonly confirming = new Map<string, number>();
  /** Each tenant's inline scans over the limit since `since` (ms since the epoch). */
  private readonly overruns = new Map<string, { since: number; count: number }>();
  /** What compiling each scanner version takes on a worker (ms, by scannerKey): the least of `samples` timings the workers reported. */
  private readonly compileCosts = new Map<string, { ms: number; samples: number }>();
  private readonly script: string;
  private nextId = 0;
  private closed = false;

  constructor(private readonly options: ScanPoolOptions) {
    this.script = options.script ?? join(__dirname, 'scan-worker.js');
    for (let i = 0; i < options.workers; i++) this.slots.push(this.spawn(i === 0));
  }

  /** The worker script exists (it does not when the app runs from its TypeScript sources). */
  static available(script = join(__dirname, 'scan-worker.js')): boolean {
    return existsSync(script);
  }

  get size(): number {
    return this.slots.length;
  }

  run(tenant: string, job: ScanJob): Promise<ScanJobResult> {
    if (this.closed) return Promise.reject(new Error('the scan pool is closed'));
    if (this.heavy(tenant) && this.queue.count(tenant) >= this.options.maxWaiting) {
      return Promise.reject(
        new DomainError(
          ErrorCode.RESOURCE_EXHAUSTED,
          `${this.options.maxWaiting} scans of this tenant are already waiting; retry shortly`,
          [],
          1,
        ),
      );
    }
    const debtWait = this.debtWaitMs(tenant);
    if (debtWait > (this.options.maxDebtWaitMs ?? 3000)) {
      return Promise.reject(
        new DomainError(
          ErrorCode.RESOURCE_EXHAUSTED,
          `this tenant's scans are over their share of CPU; retry in ${Math.ceil(debtWait / 1000)} s`,
          [],
          Math.ceil(debtWait / 1000),
        ),
      );
    }
    return new Promise((resolve, reject) => {
      this.queue.push(tenant, { tenant, job, resolve, reject });
      this.dispatch();
    });
  }

  /**
   * Scans a job where it costs least: on the caller's thread when `tryInline` may, else on a worker.
   * A tenant over its CPU share whose job could otherwise run here first waits until its debt is
   * paid, as a queued job would (and is refused past the same limit), then scans here: a worker's
   * round trip costs more than a short scan.
   */
  async scan(tenant: string, job: ScanJob): Promise<ScanJobResult> {
    const maxWait = this.options.maxDebtWaitMs ?? 3000;
    const until = Date.now() + maxWait;
    // Other scans of the tenant may take the credit first: wait again, within the same limit in all.
    for (;;) {
      const wait = this.debtWaitMs(tenant);
      if (wait <= 0 || Date.now() + wait > until || !this.inlineCandidate(tenant, job)) break;
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait) + 1).unref());
    }
    const here = this.tryInline(tenant, job);
    this.options.onScan?.(here === undefined ? 'worker' : here === OVERRAN ? 'overran' : 'inline');
    if (here === undefined) {
      this.compileAhead(tenant, job);
      return this.run(tenant, job);
    }
    if (here !== OVERRAN) return here;
    // Over the inline limit: the scanners are slow, or this thread was only descheduled (a loaded
    // machine does that to a quick scan now and then, so a wall clock cannot tell). A worker scans
    // the job again with its whole budget, and its time says which it was; until it has, the
    // tenant's scans run on the workers, so a slow tenant's concurrent requests cannot each take
    // their inline limit of this thread meanwhile.
    countUp(this.confirming, tenant);
    try {
      const result = await this.run(tenant, job);
      if (result.spentMs >= (this.options.inlineScanMs ?? INLINE_SCAN_MS) / 2) this.overran(tenant);
      return result;
    } finally {
      countDown(this.confirming, tenant);
    }
  }

  /**
   * Runs a short job on the caller's thread when that is cheap and safe, else answers undefined
   * (run it on a worker). Only for a tenant that is not costly lately and within its CPU share, a
   * text of at most `inlineMaxChars`, and scanners this thread has compiled or that compiled on a
   * worker in at most INLINE_COMPILE_MS together (a job that was refused only for that compiles
   * some of them here, `compileAhead`, so the next gets closer). The scan gets INLINE_SCAN_MS: past it the job goes
   * to a worker with the budget it had (OVERRAN), so the caller's thread is held up that long at
   * most; after INLINE_OVERRUNS such within INLINE_OVERRUN_WINDOW_MS that the worker's scan confirmed
   * (`scan`), the tenant's scans go to the workers for INLINE_OFF_MS. Inline scans count toward the
   * tenant's CPU share; being capped at a few ms, never toward its being costly (a worker's
   * confirming run of an overrun does).
   */
  tryInline(tenant: string, job: ScanJob): ScanJobResult | typeof OVERRAN | undefined {
    if (!this.inlineCandidate(tenant, job) || this.balance(tenant) <= 0) return undefined;
    const inlineMs = this.options.inlineScanMs ?? INLINE_SCAN_MS;
    const budget = new ScanBudget(job.spentMs + inlineMs, job.spentMs);
    const started = performance.now();
    let slowCompile = false;
    const result = runScanJob(job, (ref) => this.compileHere(tenant, ref, () => (slowCompile = true)), budget);
    // Charged by the wall clock (a thread's CPU time, read before and after, cost more than the
    // quick scans it measured), at most the inline limits of compiling and scanning: a scan past
    // them goes to a worker, whose run is charged in full, and a descheduled quick scan is
    // overcharged by at most that much. Never costly for it: a worker's run confirms that. A compile
    // here that ran over its limit is charged in full.
    const cap = inlineMs + this.inlineCompileMs;
    const elapsed = performance.now() - started;
    this.charge(tenant, slowCompile ? elapsed : Math.min(elapsed, cap));
    // Over a limit here (a slow scanner, or this thread was descheduled): a worker decides, with the
    // full budget.
    // Only a limit of time says the job ran over here; one of size or matches is its result anywhere.
    return result.scanners.some((o) => 'overLimit' in o && (o.limit === 'time' || o.limit === 'budget'))
      ? OVERRAN
      : result;
  }

  /** Counts an inline scan of the tenant that ran over its limit; enough of them close together turn its inline scans off. */
  private overran(tenant: string): void {
    const now = Date.now();
    const recent = this.overruns.get(tenant);
    if (!recent || now - recent.since > INLINE_OVERRUN_WINDOW_MS) {
      // Tenants with one old overrun each are all this map holds: start over rather than grow.
      if (this.overruns.size >= 10_000) this.overruns.clear();
      this.overruns.set(tenant, { since: now, count: 1 });
    } else if (++recent.count >= INLINE_OVERRUNS) {
      this.overruns.delete(tenant);
      this.inlineOffUntil.set(tenant, now + INLINE_OFF_MS);
    }
  }

  /** Everything tryInline asks of a job but the tenant's CPU balance. */
  private inlineCandidate(tenant: string, job: ScanJob): boolean {
    return this.inlineTenantAndJob(tenant, job) && this.compileHereMs(job) <= this.inlineCompileMs;
  }

  /** What tryInline asks of the tenant and the job but compiling and the tenant's CPU balance. */
  private inlineTenantAndJob(tenant: string, job: ScanJob): boolean {
    const max = this.options.inlineMaxChars ?? 0;
    if (this.closed || max <= 0 || job.text.length > max || this.heavy(tenant) || this.confirming.has(tenant))
      return false;
    const off = this.inlineOffUntil.get(tenant);
    if (off !== undefined) {
      if (off > Date.now()) return false;
      this.inlineOffUntil.delete(tenant);
    }
    // Less left of the request's budget than an inline scan may take: a worker says what that
    // means, and running over it here would not say the tenant's scanners are slow.
    return job.limitMs - job.spentMs >= (this.options.inlineScanMs ?? INLINE_SCAN_MS);
  }

  /**
   * What compiling the job's scanners this thread has not compiled would take (ms, as the workers
   * timed them); Infinity when one was never compiled where this pool saw it (a worker compiles it first).
   */
  private compileHereMs(job: ScanJob): number {
    let ms = 0;
    for (const ref of job.scanners) {
      if (sharedScannerCache.peek(ref) !== undefined) continue;
      ms += this.compileCost(scannerKey(ref))?.ms ?? Infinity;
    }
    return ms;
  }

  /**
   * For a job that may not run here only because compiling all its scanners here would take longer
   * than an inline job may, when each of them would fit: compiles here now as many as fit in that
   * allowance (as the workers timed them), charged to the tenant as inline scans are, so that the
   * next job gets closer. A project whose scanners compile quickly one by one, but not all in one
   * job, then scans here after a few jobs rather than never. A job with a scanner that would not fit
   * alone, or one never timed, compiles nothing here: it could never run here anyway.
   */
  private compileAhead(tenant: string, job: ScanJob): void {
    if (!this.inlineTenantAndJob(tenant, job) || this.balance(tenant) <= 0) return;
    const allowance = this.inlineCompileMs;
    const missing = job.scanners.filter((ref) => sharedScannerCache.peek(ref) === undefined);
    const costs = missing.map((ref) => this.compileCost(scannerKey(ref))?.ms ?? Infinity);
    if (costs.some((ms) => ms > allowance)) return;
    let left = allowance;
    let slowCompile = false;
    const started = performance.now();
    for (const [i, ref] of missing.entries()) {
      if (costs[i] > left) continue;
      this.compileHere(tenant, ref, () => (slowCompile = true));
      left -= costs[i];
      if (slowCompile || performance.now() - started >= allowance) break;
    }
    const elapsed = performance.now() - started;
    if (left < allowance) this.charge(tenant, slowCompile ? elapsed : Math.min(elapsed, allowance));
  }

  /**
   * The scanner from this thread's compile cache. A compile it ran that took longer than an inline
   * job may compile (on this thread it may cost more than a worker timed, see COMPILE_SAMPLES)
   * becomes the scanner's cost for good, sends the tenant's scans to the workers for INLINE_OFF_MS,
   * and is reported (`slow`), to be charged in full.
   */
  private compileHere(tenant: string, ref: ScannerRef, slow: () => void): Scanner | Error {
    const compiles = sharedScannerCache.compileCount;
    const started = performance.now();
    const scanner = sharedScannerCache.get(ref);
    const ms = performance.now() - started;
    if (sharedScannerCache.compileCount !== compiles && ms > this.inlineCompileMs) {
      this.setCompileCost(scannerKey(ref), { ms, samples: COMPILE_SAMPLES });
      this.inlineOffUntil.set(tenant, Date.now() + INLINE_OFF_MS);
      slow();
    }
    return scanner;
  }

  private get inlineCompileMs(): number {
    return this.options.inlineCompileMs ?? INLINE_COMPILE_MS;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.wakeUp?.timer);
    for (const task of this.queue.drain()) task.reject(new Error('the scan pool is closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
  }

  private spawn(prompt: boolean): Slot {
    const worker = new Worker(this.script, { workerData: { nice: prompt ? 0 : this.options.nice } });
    const slot: Slot = { worker, id: -1, prompt, sent: new Map() };
    worker.on('message', (msg: ScanReply) => {
      const task = slot.task;
      if (!task || msg.id !== slot.id) return;
      if ('need' in msg && !task.resent) {
        task.resent = true;
        this.post(slot, task);
        return;
      }
      const result = 'result' in msg ? msg.result : undefined;
      if ('compileMs' in msg) this.learnCompileCosts(msg.compileMs);
      this.account(task.tenant, ('cpuMs' in msg ? msg.cpuMs : undefined) ?? result?.spentMs ?? 0);
      this.free(slot);
      if (result) task.resolve(result);
      else task.reject(new Error(`scan worker: ${'error' in msg ? msg.error : 'configs missing after a resend'}`));
    });
    worker.on('error', (err) => this.lost(slot, err));
    worker.on('exit', (code) => this.lost(slot, new Error(`scan worker exited (${code})`)));
    return slot;
  }

  private lost(slot: Slot, err: Error): void {
    const at = this.slots.indexOf(slot);
    if (at < 0) return;
    // The dead worker leaves the pool before anything is dispatched again, so no job goes to it.
    if (this.closed) this.slots.splice(at, 1);
    else this.slots[at] = this.spawn(slot.prompt);
    const task = slot.task;
    this.unbusy(slot);
    task?.reject(err);
    if (!this.closed) this.dispatch();
  }

  private free(slot: Slot): void {
    this.unbusy(slot);
    this.dispatch();
  }

  private unbusy(slot: Slot): void {
    const tenant = slot.task?.tenant;
    if (tenant !== undefined) countDown(this.busy, tenant);
    slot.task = undefined;
  }

  private heavy(tenant: string): boolean {
    const until = this.heavyUntil.get(tenant);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.heavyUntil.delete(tenant);
    return false;
  }

  /** The tenant's share of CPU (ms a second; 0: no cap): lower while its scans are costly. */
  private rate(tenant: string): number {
    const rate = this.options.cpuMsPerSecond ?? 0;
    return this.heavy(tenant) ? (this.options.costlyCpuMsPerSecond ?? rate) : rate;
  }

  /** The tenant's CPU balance now: what it had, plus what the rate gave back since, up to the burst. */
  private balance(tenant: string, now = Date.now()): number {
    const rate = this.rate(tenant);
    const c = this.credit.get(tenant);
    if (!c) return Infinity;
    const balance = Math.min(this.options.cpuBurstMs ?? rate, c.balance + ((now - c.at) * rate) / 1000);
    if (balance >= (this.options.cpuBurstMs ?? rate)) {
      this.credit.delete(tenant);
      return Infinity;
    }
    return balance;
  }

  /** How long the tenant must wait before its balance is positive again (ms; 0 when it is). */
  private debtWaitMs(tenant: string): number {
    const rate = this.rate(tenant);
    const balance = this.balance(tenant);
    return rate > 0 && balance <= 0 ? (-balance * 1000) / rate : 0;
  }

  /** Charges a scan's CPU cost to its tenant's share; a costly one makes the tenant costly for a while. */
  private account(tenant: string, costMs: number): void {
    if (costMs > (this.options.heavyMs ?? 50))
      this.heavyUntil.set(tenant, Date.now() + (this.options.heavyForMs ?? 60_000));
    this.charge(tenant, costMs);
  }

  /** Keeps the least of the compile timings the workers reported for each scanner version, and how many there were. */
  private learnCompileCosts(costs: Record<string, number> | undefined): void {
    for (const [key, ms] of Object.entries(costs ?? {})) {
      const known = this.compileCosts.get(key);
      // Timed over its limit on this thread: that stands.
      if (known && known.samples >= COMPILE_SAMPLES && known.ms > this.inlineCompileMs) continue;
      this.setCompileCost(key, { ms: Math.min(ms, known?.ms ?? Infinity), samples: (known?.samples ?? 0) + 1 });
    }
  }

  /** A scanner version's compile cost, now the most recently used (the least recently used is dropped first). */
  private compileCost(key: string): { ms: number; samples: number } | undefined {
    const cost = this.compileCosts.get(key);
    if (cost) this.setCompileCost(key, cost);
    return cost;
  }

  private setCompileCost(key: string, cost: { ms: number; samples: number }): void {
    this.compileCosts.delete(key);
    if (this.compileCosts.size >= COMPILE_CACHE_SIZE)
      this.compileCosts.delete(this.compileCosts.keys().next().value as string);
    this.compileCosts.set(key, cost);
  }

  /**
   * The job's scanners whose compile a worker should time again (their keys): those this thread has
   * not compiled, timed over what an inline job may compile but not far over, fewer than
   * COMPILE_SAMPLES times (see there), or never timed where this pool saw it (a worker that kept it
   * compiled while its timing was forgotten would not time it again); at most COMPILE_RETIME_MAX_MS
   * of them by what they were timed at (one never timed counts as that much).
   */
  private retime(job: ScanJob): string[] | undefined {
    const keys: string[] = [];
    let ms = 0;
    for (const ref of job.scanners) {
      if (sharedScannerCache.peek(ref) !== undefined) continue;
      const key = scannerKey(ref);
      const cost = this.compileCosts.get(key);
      const again =
        cost === undefined ||
        (cost.samples < COMPILE_SAMPLES && cost.ms > this.inlineCompileMs && cost.ms <= COMPILE_RETIME_MAX_MS);
      if (!again) continue;
      ms += cost?.ms ?? COMPILE_RETIME_MAX_MS;
      if (ms > COMPILE_RETIME_MAX_MS && keys.length > 0) break;
      keys.push(key);
    }
    return keys.length > 0 ? keys : undefined;
  }

  private charge(tenant: string, costMs: number): void {
    const rate = this.rate(tenant);
    if (rate <= 0) return;
    const now = Date.now();
    const balance = this.balance(tenant, now);
    const start = Number.isFinite(balance) ? balance : (this.options.cpuBurstMs ?? rate);
    this.credit.set(tenant, { balance: start - costMs, at: now });
  }

  /** When scans wait only for tenants in debt, dispatch again once the first of them is out of it. */
  private wakeWhenPaid(): void {
    if (this.queue.size === 0) return;
    let soonest = Infinity;
    const now = Date.now();
    for (const tenant of this.credit.keys()) {
      const rate = this.rate(tenant);
      if (rate <= 0) continue;
      const b = this.balance(tenant, now);
      if (b <= 0 && this.queue.count(tenant) > 0) soonest = Math.min(soonest, (-b * 1000) / rate);
    }
    if (!Number.isFinite(soonest)) return;
    const at = now + Math.max(1, Math.ceil(soonest));
    // A wake-up already due sooner stands; a later one gives way to this.
    if (this.wakeUp && this.wakeUp.at <= at) return;
    clearTimeout(this.wakeUp?.timer);
    const timer = setTimeout(() => {
      this.wakeUp = undefined;
      this.dispatch();
    }, at - now);
    timer.unref();
    this.wakeUp = { timer, at };
  }

  private dispatch(): void {
    const lowered = this.slots.some((s) => !s.prompt) && this.options.nice > 0;
    for (const slot of this.slots) {
      if (slot.task) continue;
      const next = this.queue.next(
        (tenant) =>
          (this.busy.get(tenant) ?? 0) < Math.max(1, this.options.perTenant) &&
          !(slot.prompt && lowered && this.heavy(tenant)) &&
          this.balance(tenant) > 0,
      );
      if (!next) continue;
      const task = next.item;
      countUp(this.busy, task.tenant);
      slot.task = task;
      slot.id = this.nextId++;
      this.post(slot, task);
    }
    this.wakeWhenPaid();
  }

  /** Posts the task's job with the configs its worker was not sent (all of them on a resend). */
  private post(slot: Slot, task: Task): void {
    const { scanners, ...rest } = task.job;
    const configs = scanners.filter((ref) => {
      const key = scannerKey(ref);
      if (!task.resent && slot.sent.get(key) === ref.config) return false;
      // Past what a worker keeps, start over: the worker asks for what it dropped anyway.
      if (slot.sent.size >= COMPILE_CACHE_SIZE) slot.sent.clear();
      slot.sent.set(key, ref.config);
      return true;
    });
    const request: ScanRequest = {
      id: slot.id,
      job: { ...rest, scanners: scanners.map(({ id, version }) => ({ id, version })) },
      configs,
      retime: this.retime(task.job),
    };
    slot.worker.postMessage(request);
  }
}

/** One more of `key` in a map of counts. */
function countUp(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/** One fewer of `key`; a count that reaches 0 leaves the map (so `has` says whether any are left). */
function countDown(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
