/** A half-open range `[start, end)` of UTF-16 offsets into a scanned text. */
export type Span = readonly [start: number, end: number];

/**
 * Sorts spans and joins those that overlap or touch, so masking writes each character once and a
 * secret matched by two rules is not half-revealed where their spans differ.
 */
export function mergeSpans(spans: Iterable<Span>): Span[] {
  const sorted = [...spans].filter(([s, e]) => e > s).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const merged: [number, number][] = [];
  for (const [start, end] of sorted) {
    const last = merged[merged.length - 1];
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return merged;
}

/** Replaces every character inside the spans with `*`, keeping the text's length. */
export function maskSpans(text: string, spans: Iterable<Span>): string {
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of mergeSpans(spans)) {
    const s = Math.max(start, at);
    const e = Math.min(end, text.length);
    if (e <= s) continue;
    parts.push(text.slice(at, s), '*'.repeat(e - s));
    at = e;
  }
  parts.push(text.slice(at));
  return parts.join('');
}
