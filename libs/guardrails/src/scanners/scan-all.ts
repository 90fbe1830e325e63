import type { ScanDeadline } from '../budget/scan-deadline';
import { canonicalize } from '../canonical/canonicalize';
import type { ScanResult } from './scan-result';
import type { Scanner } from './scanner';

/**
 * The scan entry: scans one text with several scanners, putting it in canonical form once. Every
 * caller (/scans, /prompts, the proxy, dataset evaluation) scans through here or through
 * `Scanner.scan`, so they all read the same canonical text. Throws the first ScanLimitError (a
 * cap, or the request's `deadline`); the caller's fail-closed setting decides what follows.
 */
export function scanAll(
  scanners: readonly Scanner[],
  text: string,
  options: { deadline?: ScanDeadline } = {},
): ScanResult[] {
  if (scanners.length === 0) return [];
  const canonical = canonicalize(text);
  return scanners.map((s) => s.scan(text, { canonical, deadline: options.deadline }));
}
