import type { Scanner } from '@bastion/guardrails';

/**
 * How many characters of a streamed answer must wait for what follows them: the longest match any
 * of the scanners can make, at most `cap`. With no scanner, nothing waits.
 */
export function holdBackFor(scanners: readonly Scanner[], cap: number): number {
  if (scanners.length === 0) return 0;
  return cap;
}
