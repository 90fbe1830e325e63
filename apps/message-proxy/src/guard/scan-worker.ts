import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { sharedScannerCache } from '@bastion/guardrails';
import { ScanBudget } from './direction-guard';
import { runScanJob, type ScanReply, type ScanRequest, scannerKey } from './scan-job';
import { ScannerConfigs } from './scanner-configs';

/**
 * A scan worker (see ScanPool): runs the scan jobs it is sent, one at a time, with its own compile
 * cache. A job names its scanners by key; the worker keeps the configs it was sent and asks for any
 * it no longer has (`need`), which the pool then sends with the job again. On Linux a thread has its own nice value, so `workerData.nice` lowers this thread's CPU
 * priority and no other thread's.
 */
const { nice = 0, idle = false } = (workerData ?? {}) as { nice?: number; idle?: boolean };
if (nice > 0) {
  try {
    setPriority(0, nice);
  } catch {
    // Not allowed here: the worker runs at the process's priority.
  }
}
if (idle) runWhenIdle();

/**
 * Puts this thread under SCHED_IDLE (Linux, through util-linux's chrt, which may lower any thread's
 * policy without privileges): it then runs only on CPU time nothing else wants, and a thread of
 * any other policy that wakes preempts it at once, where a nice value only weighs its share.
 * Where that fails the thread keeps its nice value.
 */
function runWhenIdle(): void {
  try {
    // "/proc/thread-self" names this thread: "<pid>/task/<tid>".
    const tid = readlinkSync('/proc/thread-self').split('/').pop();
    if (tid) execFileSync('chrt', ['--idle', '--pid', '0', tid], { stdio: 'ignore', timeout: 2000 });
  } catch {
    // No chrt, or not Linux.
  }
}

/** CPU time of this thread (ms), where Node can tell (`process.threadCpuUsage`, Node 23.9 on). */
function threadCpuMs(): number | undefined {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  return usage ? (usage.user + usage.system) / 1000 : undefined;
}

const configs = new ScannerConfigs();
const reply = (msg: ScanReply) => parentPort?.postMessage(msg);

parentPort?.on('message', ({ id, job, configs: sent }: ScanRequest) => {
  try {
    const before = threadCpuMs();
    const scanners = configs.resolve(job, sent);
    if (!Array.isArray(scanners)) return reply({ id, need: scanners.missing });
    const compileMs: Record<string, number> = {};
    const result = runScanJob(
      { ...job, scanners },
      (ref) => {
        const compiles = sharedScannerCache.compileCount;
        const started = performance.now();
        const scanner = sharedScannerCache.get(ref);
        if (sharedScannerCache.compileCount !== compiles) compileMs[scannerKey(ref)] = performance.now() - started;
        return scanner;
      },
      new ScanBudget(job.limitMs, job.spentMs),
    );
    const after = threadCpuMs();
    // What the job cost this thread, not the time it took: on a busy machine a quick scan may wait.
    reply({ id, result, cpuMs: before === undefined || after === undefined ? undefined : after - before, compileMs });
  } catch (err) {
    reply({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
