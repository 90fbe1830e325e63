import type { ScanMatch, ScanResultLike } from '../scanners/scan-result';
import { aggregateOutcome, type EntryScan } from './aggregate-outcome';
import { applyRedactions } from './apply-redactions';
import type { GuardrailDirection, GuardrailMode, GuardrailPolicy, ScanDirection } from './guardrail-policy';

const triggered = (...matches: ScanMatch[]): ScanResultLike => ({
  outcome: 'failed',
  data: { matches: matches.length > 0 ? matches : [[0, 1, 0]] },
});
const passed: ScanResultLike = { outcome: 'passed', data: { matches: [] } };
const policy = (overrides: Partial<GuardrailPolicy> = {}): GuardrailPolicy => ({
  enabled: true,
  blocking: true,
  mode: 'block',
  direction: 'both',
  ...overrides,
});
const scan = (entry: Partial<GuardrailPolicy>, result: ScanResultLike = triggered()): EntryScan => ({
  result,
  entry: policy(entry),
});

describe('aggregateOutcome', () => {
  it('is cleared with no entries, or when no scanner triggered', () => {
    expect(aggregateOutcome([], 'request')).toEqual({ outcome: 'cleared', effects: [], redactions: [] });
    expect(aggregateOutcome([scan({}, passed), scan({ mode: 'audit' }, passed)], 'request').outcome).toBe('cleared');
  });

  // A triggered, enabled entry covering the direction, by mode and blocking.
  it.each<[GuardrailMode, boolean, string]>([
    ['block', true, 'blocked'],
    ['block', false, 'flagged'],
    ['redact', true, 'redacted'],
    ['redact', false, 'redacted'],
    ['audit', true, 'flagged'],
    ['audit', false, 'flagged'],
  ])('mode %s with blocking %s makes the prompt %s', (mode, blocking, outcome) => {
    for (const direction of ['request', 'response'] as const) {
      expect(aggregateOutcome([scan({ mode, blocking })], direction).outcome).toBe(outcome);
    }
  });

  it.each<[GuardrailMode, boolean]>([
    ['block', true],
    ['block', false],
    ['redact', true],
    ['redact', false],
    ['audit', true],
    ['audit', false],
  ])('a disabled %s entry (blocking %s) does nothing', (mode, blocking) => {
    for (const direction of ['request', 'response'] as const) {
      expect(aggregateOutcome([scan({ mode, blocking, enabled: false })], direction)).toEqual({
        outcome: 'cleared',
        effects: ['none'],
        redactions: [],
      });
    }
  });

  it.each<[GuardrailDirection, ScanDirection, string]>([
    ['request', 'request', 'blocked'],
    ['request', 'response', 'cleared'],
    ['response', 'request', 'cleared'],
    ['response', 'response', 'blocked'],
    ['both', 'request', 'blocked'],
    ['both', 'response', 'blocked'],
  ])('an entry for %s text scanning %s text: %s', (entryDirection, direction, outcome) => {
    expect(aggregateOutcome([scan({ direction: entryDirection })], direction).outcome).toBe(outcome);
    const redacting = aggregateOutcome([scan({ direction: entryDirection, mode: 'redact' })], direction).outcome;
    expect(redacting).toBe(outcome === 'blocked' ? 'redacted' : 'cleared');
  });

  it('ranks blocked > redacted > flagged > cleared', () => {
    const audit = scan({ mode: 'audit' });
    const redact = scan({ mode: 'redact' });
    const block = scan({ mode: 'block' });
    const clear = scan({}, passed);
    expect(aggregateOutcome([clear, audit], 'request').outcome).toBe('flagged');
    expect(aggregateOutcome([audit, redact, clear], 'request').outcome).toBe('redacted');
    expect(aggregateOutcome([redact, block, audit], 'request').outcome).toBe('blocked');
    expect(aggregateOutcome([block, redact], 'request').outcome).toBe('blocked');
  });

  it('says what each entry did', () => {
    const verdict = aggregateOutcome(
      [
        scan({ mode: 'audit' }),
        scan({ mode: 'block', blocking: false }),
        scan({ mode: 'redact' }),
        scan({ mode: 'block' }),
        scan({ mode: 'block', enabled: false }),
        scan({ mode: 'block', direction: 'response' }),
        scan({ mode: 'block' }, passed),
      ],
      'request',
    );
    expect(verdict.effects).toEqual(['flag', 'flag', 'redact', 'block', 'none', 'none', 'none']);
  });

  it('collects the spans of every redacting entry that acted, merged, and only theirs', () => {
    const verdict = aggregateOutcome(
      [
        scan({ mode: 'redact' }, triggered([5, 9, 0], [20, 24, 0])),
        scan({ mode: 'redact' }, triggered([7, 12, 'email'])),
        scan({ mode: 'audit' }, triggered([30, 35, 0])),
        scan({ mode: 'redact', direction: 'response' }, triggered([40, 45, 0])),
      ],
      'request',
    );
    expect(verdict.outcome).toBe('redacted');
    expect(verdict.redactions).toEqual([
      [5, 12],
      [20, 24],
    ]);
  });

  it('fails closed when a redacting entry triggered without spans to redact', () => {
    const spanless: ScanResultLike = { outcome: 'failed', data: { matches: [] } };
    expect(aggregateOutcome([scan({ mode: 'redact' }, spanless)], 'request').outcome).toBe('blocked');
    expect(aggregateOutcome([scan({ mode: 'redact', blocking: false }, spanless)], 'request').outcome).toBe('flagged');
  });
});

describe('applyRedactions', () => {
  it('masks the matches of several results, overlapping or not', () => {
    const text = 'card 4111 1111 1111 1111, mail jane@example.com';
    const cards = triggered([5, 24, 'payment-card']);
    const emails = triggered([31, 47, 'email']);
    const digits = triggered([10, 14, 0]);
    expect(applyRedactions(text, [cards, emails, digits, passed])).toBe(
      'card *******************, mail ****************',
    );
  });
});
