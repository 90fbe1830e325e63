/** Which cap a scan ran into. */
export type ScanLimit = 'text-bytes' | 'matches' | 'time' | 'budget';

const DESCRIBE: Record<ScanLimit, (max: number, actual?: number) => string> = {
  'text-bytes': (max, actual) => `Text of ${actual} bytes is over the ${max}-byte scanning limit`,
  matches: (max) => `More than ${max} matches: the scan stopped`,
  time: (max) => `The scan took longer than ${max} ms and stopped`,
  budget: (max) => `The request's scan budget of ${max} ms is spent: the scan stopped`,
};

/**
 * Thrown by `scan` and `redact` when a scan is over a cap: a text too large, more matches than a
 * result may hold, or a scan running past its time budget. A partial scan is never passed off as
 * a whole one, so the scan fails closed: the caller refuses the text (a 413 or 422 to the client),
 * and nothing is forwarded half-scanned or half-redacted.
 */
export class ScanLimitError extends Error {
  constructor(
    readonly limit: ScanLimit,
    readonly max: number,
    readonly actual?: number,
  ) {
    super(DESCRIBE[limit](max, actual));
    this.name = 'ScanLimitError';
  }
}
