import { compileScanner } from './compile-scanner';

/**
 * Pays once, up front, what a thread's first compile and scan cost besides the scanner's own work
 * (about 2.5 ms on the machine of the benchmarks, against 0.1 to 0.7 ms for each compile after it:
 * code run for the first time, tables built on first use). A regex and a keyword scanner are
 * compiled and run on a short text, and kept by no cache. A thread that times compiles (a scan
 * worker) calls it before its first job, so that job's first scanner is not timed with all that.
 */
export function warmUpScanners(): void {
  compileScanner({ type: 'regex', patterns: ['\\bwarm\\s*[:=]\\s*\\S+'] }).scan('Warm: up, café');
  compileScanner({ type: 'keyword', words: ['warm up'] }).scan('warm  up');
}
