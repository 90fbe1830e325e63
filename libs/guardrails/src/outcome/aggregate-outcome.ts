import { mergeSpans, type Span } from '../engine/span';
import { type ScanResultLike, spansOf } from '../scanners/scan-result';
import type { GuardrailPolicy, PromptOutcome, ScanDirection } from './guardrail-policy';

export interface EntryScan {
  readonly result: ScanResultLike;
  readonly entry: GuardrailPolicy;
}

/** What one entry did to the text. */
export type EntryEffect = 'none' | 'flag' | 'redact' | 'block';

export interface Verdict {
  readonly outcome: PromptOutcome;
  /** One per input, in order: which entries acted (for their `flagMessage`, for records). */
  readonly effects: readonly EntryEffect[];
  /** Merged spans of every redacting entry; mask them (`maskSpans`) when the outcome is `redacted`. */
  readonly redactions: readonly Span[];
}

const OUTCOME_OF: Record<EntryEffect, PromptOutcome> = {
  none: 'cleared',
  flag: 'flagged',
  redact: 'redacted',
  block: 'blocked',
};
const RANK: Record<PromptOutcome, number> = { cleared: 0, flagged: 1, redacted: 2, blocked: 3 };

/**
 * The effect of one entry's scan on text travelling in `direction`. Only a triggered (`failed`),
 * enabled entry that covers the direction acts. A non-blocking `block` entry only flags. A `redact`
 * entry whose result carries no spans cannot redact anything, so it acts as a block would (fails
 * closed) rather than let the text through as if redacted.
 */
export function entryEffect({ result, entry }: EntryScan, direction: ScanDirection): EntryEffect {
  if (!entry.enabled || result.outcome !== 'failed') return 'none';
  if (entry.direction !== 'both' && entry.direction !== direction) return 'none';
  switch (entry.mode) {
    case 'audit':
      return 'flag';
    case 'block':
      return entry.blocking ? 'block' : 'flag';
    case 'redact':
      if (result.data.matches.length > 0) return 'redact';
      return entry.blocking ? 'block' : 'flag';
  }
}

/**
 * The prompt (or scan) outcome from every entry's scanner result: the strongest effect wins,
 * blocked > redacted > flagged > cleared.
 */
export function aggregateOutcome(scans: readonly EntryScan[], direction: ScanDirection): Verdict {
  const effects = scans.map((scan) => entryEffect(scan, direction));
  let outcome: PromptOutcome = 'cleared';
  for (const effect of effects) {
    if (RANK[OUTCOME_OF[effect]] > RANK[outcome]) outcome = OUTCOME_OF[effect];
  }
  const redactions = mergeSpans(scans.flatMap((scan, i) => (effects[i] === 'redact' ? spansOf(scan.result) : [])));
  return { outcome, effects, redactions };
}
