import { COMPILE_CACHE_SIZE } from '@bastion/guardrails';
import { scannerKey, type ScanJob, type ScannerKey, type ScannerRef } from './scan-job';

/**
 * The scanner configs a scan worker was sent (ScanPool sends each version's config to a worker once),
 * least recently used dropped first, as many as a compile cache keeps. A job's own configs are used
 * for it whatever was dropped, so a job resent with all its configs always runs.
 */
export class ScannerConfigs {
  private readonly refs = new Map<string, ScannerRef>();

  constructor(readonly maxEntries = COMPILE_CACHE_SIZE) {}

  /** The job's scanners with their configs, or the keys of those this worker does not have. */
  resolve(job: ScanJob<ScannerKey>, sent: readonly ScannerRef[]): ScannerRef[] | { missing: string[] } {
    const given = new Map(sent.map((ref) => [scannerKey(ref), ref]));
    for (const [key, ref] of given) this.keep(key, ref);
    const refs: ScannerRef[] = [];
    const missing: string[] = [];
    for (const s of job.scanners) {
      const key = scannerKey(s);
      const ref = given.get(key) ?? this.refs.get(key);
      if (!ref) missing.push(key);
      else {
        if (!given.has(key)) this.keep(key, ref);
        refs.push(ref);
      }
    }
    return missing.length > 0 ? { missing } : refs;
  }

  get size(): number {
    return this.refs.size;
  }

  private keep(key: string, ref: ScannerRef): void {
    // Re-insert: a Map iterates in insertion order, so the first key is the least recently used.
    this.refs.delete(key);
    if (this.refs.size >= this.maxEntries) this.refs.delete(this.refs.keys().next().value as string);
    this.refs.set(key, ref);
  }
}
