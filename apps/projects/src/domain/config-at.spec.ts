import { DomainError, ErrorCode } from '@bastion/contracts';
import { nextValidFrom, parseConfigAt, revisionAt } from './config-at';

describe('parseConfigAt', () => {
  it.each([
    ['2026-03-01T10:20:30Z', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T10:20:30.123456Z', '2026-03-01T10:20:30.123Z'],
    ['2026-03-01T10:20:30.5Z', '2026-03-01T10:20:30.500Z'],
    ['2026-03-01T12:20:30+02:00', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01T07:50-0230', '2026-03-01T10:20:00.000Z'],
    ['2026-03-01 12:20:30 02:00', '2026-03-01T10:20:30.000Z'],
    ['2026-03-01', '2026-03-01T00:00:00.000Z'],
    ['2024-02-29T00:00:00z', '2024-02-29T00:00:00.000Z'],
  ])('reads %s', (input, iso) => {
    expect(parseConfigAt(input).toISOString()).toBe(iso);
  });

  it.each([
    'yesterday',
    '',
    '2026-03-01T10:20:30',
    '2026-02-30',
    '2025-02-29T00:00:00Z',
    '2026-13-01',
    '2026-03-01T24:00:00Z',
    '1700000000',
    '2026-03-01T10:20:30+25:00',
  ])('refuses %p with a bare INVALID_ARGUMENT (a 400, not a field list)', (input) => {
    try {
      parseConfigAt(input);
      throw new Error('accepted');
    } catch (e) {
      expect(e).toBeInstanceOf(DomainError);
      expect((e as DomainError).code).toBe(ErrorCode.INVALID_ARGUMENT);
      expect((e as DomainError).details).toEqual([]);
      expect((e as DomainError).message).toMatch(/^configAt must be an ISO 8601 date-time/);
    }
  });
});

describe('revisionAt', () => {
  const r = (revision: number, at: string) => ({ revision, validFrom: new Date(at) });
  const history = [
    r(1, '2026-01-01T00:00:00Z'),
    r(2, '2026-01-02T00:00:00Z'),
    r(3, '2026-01-02T00:00:00Z'),
    r(4, '2026-01-05T00:00:00Z'),
  ];

  it('finds the latest revision in force at the time', () => {
    expect(revisionAt(history, new Date('2026-01-01T00:00:00Z'))?.revision).toBe(1);
    expect(revisionAt(history, new Date('2026-01-01T23:59:59.999Z'))?.revision).toBe(1);
    expect(revisionAt(history, new Date('2026-01-03T00:00:00Z'))?.revision).toBe(3);
    expect(revisionAt(history, new Date('2030-01-01T00:00:00Z'))?.revision).toBe(4);
  });

  it('finds nothing before the first revision', () => {
    expect(revisionAt(history, new Date('2025-12-31T23:59:59.999Z'))).toBeUndefined();
    expect(revisionAt([], new Date())).toBeUndefined();
  });
});

describe('nextValidFrom', () => {
  it('never goes back in time', () => {
    const t = new Date('2026-01-01T00:00:00.000Z');
    expect(nextValidFrom(t, null)).toBe(t);
    expect(nextValidFrom(t, new Date('2025-12-31T00:00:00Z'))).toBe(t);
    expect(nextValidFrom(t, t).toISOString()).toBe('2026-01-01T00:00:00.001Z');
    expect(nextValidFrom(t, new Date('2026-01-01T00:00:05Z')).toISOString()).toBe('2026-01-01T00:00:05.001Z');
  });
});
