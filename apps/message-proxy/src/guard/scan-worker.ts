import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { compileScanner, type ScannerConfig, sharedScannerCache, warmUpScanners } from '@bastion/guardrails';
import { ScanBudget } from './direction-guard';
import { runScanJob, type ScanReply, type ScanRequest, scannerKey, threadCpuMs } from './scan-job';
import { ScannerConfigs } from './scanner-configs';

/**
 * A scan worker (see ScanPool): runs the scan jobs it is sent, one at a time, with its own compile
 * cache. A job names its scanners by key; the worker keeps the configs it was sent and asks for any
 * it no longer has (`need`), which the pool then sends with the job again. On Linux a thread has its own nice value, so `workerData.nice` lowers this thread's CPU
 * priority (by that much from the process's) and no other thread's.
 *
 * The worker times each compile (the pool lets its own thread compile only scanners that compile
 * quickly) once warmed up, and compiles anew to time again the scanners a job names in `retime`.
 */
const nice = Number((workerData as { nice?: number } | undefined)?.nice ?? 0);
if (nice > 0) {
  try {
    // Below the process's own priority (a bulk-lane replica already runs lowered: PROXY_NICE).
    setPriority(0, Math.min(19, getPriority(0) + nice));
  } catch {
    // Not allowed here: the worker runs at the process's priority.
  }
}

warmUpScanners();
const configs = new ScannerConfigs();
const reply = (msg: ScanReply) => parentPort?.postMessage(msg);

parentPort?.on('message', ({ id, job, configs: sent, retime }: ScanRequest) => {
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
    for (const ref of scanners) {
      const key = scannerKey(ref);
      if (!retime?.includes(key) || key in compileMs) continue;
      const started = performance.now();
      try {
        compileScanner(ref.config as ScannerConfig);
      } catch {
        // It failed the same way when first compiled; only its time is wanted here.
      }
      compileMs[key] = performance.now() - started;
    }
    const after = threadCpuMs();
    // What the job cost this thread, not the time it took: on a busy machine a quick scan may wait.
    reply({ id, result, cpuMs: before === undefined || after === undefined ? undefined : after - before, compileMs });
  } catch (err) {
    reply({ id, error: err instanceof Error ? err.message : String(err) });
  }
});
