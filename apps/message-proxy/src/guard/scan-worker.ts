import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { sharedScannerCache } from '@bastion/guardrails';
import { ScanBudget } from './direction-guard';
import { runScanJob, type ScanJob } from './scan-job';

/**
 * A scan worker (see ScanPool): runs the scan jobs it is sent, one at a time, with its own compile
 * cache. On Linux a thread has its own nice value, so `workerData.nice` lowers this thread's CPU
 * priority and no other thread's.
 */
const nice = Number((workerData as { nice?: number } | undefined)?.nice ?? 0);
if (nice > 0) {
  try {
    setPriority(0, nice);
  } catch {
    // Not allowed here: the worker runs at the process's priority.
  }
}

/** CPU time of this thread (ms), where Node can tell (`process.threadCpuUsage`, Node 23.9 on). */
function threadCpuMs(): number | undefined {
  const usage = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage?.();
  return usage ? (usage.user + usage.system) / 1000 : undefined;
}

parentPort?.on('message', ({ id, job }: { id: number; job: ScanJob }) => {
  try {
    const before = threadCpuMs();
    const result = runScanJob(job, (ref) => sharedScannerCache.get(ref), new ScanBudget(job.limitMs, job.spentMs));
    const after = threadCpuMs();
    // What the job cost this thread, not the time it took: on a busy machine a quick scan may wait.
    parentPort?.postMessage({
      id,
      result,
      cpuMs: before === undefined || after === undefined ? undefined : after - before,
    });
  } catch (err) {
    parentPort?.postMessage({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
