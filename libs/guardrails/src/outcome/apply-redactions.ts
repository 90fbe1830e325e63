import { maskSpans } from '../engine/span';
import { type ScanResultLike, spansOf } from '../scanners/scan-result';

/** The text with the matches of all the given results (from this same text) replaced by `*`. */
export function applyRedactions(text: string, results: readonly ScanResultLike[]): string {
  return maskSpans(text, results.flatMap(spansOf));
}
