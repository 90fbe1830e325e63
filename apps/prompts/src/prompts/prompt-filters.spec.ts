import { DomainError, ErrorCode } from '@bastion/contracts';
import { parsePromptFilters, parseTimestamp } from './prompt-filters';

function violationsOf(fn: () => unknown): { loc: string[]; type: string }[] {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe(ErrorCode.INVALID_ARGUMENT);
    return (err as DomainError).details;
  }
  throw new Error('expected a 422');
}

describe('parseTimestamp', () => {
  it('reads ISO 8601 dates and date-times, with or without a zone', () => {
    expect(parseTimestamp('2026-03-01')?.toISOString()).toBe('2026-03-01T00:00:00.000Z');
    expect(parseTimestamp('2026-03-01T10:20')?.toISOString()).toBe('2026-03-01T10:20:00.000Z');
    expect(parseTimestamp('2026-03-01T10:20:30Z')?.toISOString()).toBe('2026-03-01T10:20:30.000Z');
    expect(parseTimestamp('2026-03-01T10:20:30.123456Z')?.toISOString()).toBe('2026-03-01T10:20:30.123Z');
    expect(parseTimestamp('2026-03-01T10:20:30+02:00')?.toISOString()).toBe('2026-03-01T08:20:30.000Z');
    expect(parseTimestamp('2026-03-01T10:20:30-0130')?.toISOString()).toBe('2026-03-01T11:50:30.000Z');
  });

  it('reads a space before the offset as the + an unencoded query string lost', () => {
    expect(parseTimestamp('2026-03-01T10:20:30 02:00')?.toISOString()).toBe('2026-03-01T08:20:30.000Z');
  });

  it('refuses what is not a real instant', () => {
    for (const bad of [
      'yesterday',
      '2026-02-30',
      '2026-13-01',
      '2026-03-01T24:00',
      '2026-03-01T10:61',
      '1700000000',
      '2026-03-01T10:20:30+25:00',
      '',
    ]) {
      expect(parseTimestamp(bad)).toBeUndefined();
    }
    expect(parseTimestamp('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
  });
});

describe('parsePromptFilters', () => {
  it('takes outcomes comma-separated, repeated or both, in any case, once each', () => {
    expect(parsePromptFilters({ outcomes: ['flagged,Blocked', 'flagged', ' redacted '] }).outcomes).toEqual([
      'flagged',
      'blocked',
      'redacted',
    ]);
    expect(parsePromptFilters({ outcomes: [''] }).outcomes).toBeUndefined();
    expect(parsePromptFilters({})).toEqual({});
  });

  it('keeps the project and both time bounds', () => {
    expect(parsePromptFilters({ projectId: 'p1', after: '2026-01-01', before: '2026-02-01T00:00:00Z' })).toEqual({
      projectId: 'p1',
      after: new Date('2026-01-01T00:00:00Z'),
      before: new Date('2026-02-01T00:00:00Z'),
    });
  });

  it('names every bad parameter in one 422', () => {
    const details = violationsOf(() =>
      parsePromptFilters({ outcomes: ['flagged,passed'], after: 'soon', before: '2026-02-30' }),
    );
    expect(details.map((d) => d.loc)).toEqual([
      ['query', 'outcomes'],
      ['query', 'after'],
      ['query', 'before'],
    ]);
  });

  it('refuses a window that ends before it starts', () => {
    const details = violationsOf(() => parsePromptFilters({ after: '2026-02-01', before: '2026-01-01' }));
    expect(details).toEqual([expect.objectContaining({ loc: ['query', 'after'], type: 'value_error.range' })]);
  });
});
