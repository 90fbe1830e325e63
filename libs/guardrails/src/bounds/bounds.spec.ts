import { cpuStopwatch } from '@bastion/testing';
import { ScanDeadline } from '../budget/scan-deadline';
import { validateScannerConfig } from '../config/validate-scanner-config';
import { CompiledScannerCache } from '../scanners/compile-cache';
import { compileScanner } from '../scanners/compile-scanner';
import { ScanLimitError } from '../scanners/scan-limit.error';
import { scanAll } from '../scanners/scan-all';
import { MATCH_LENGTH_CAP, maxMatchLength, scannerConfigWarnings } from './match-length';
import { analysePattern, PATTERN_PROGRAM_LIMIT } from './pattern-analysis';

describe('analysePattern', () => {
  it.each([
    ['\\d{3}-\\d{2}-\\d{4}', 11],
    ['ab{1,4}c', 6],
    ['(?:AKIA|ASIA)[A-Z0-9]{16}', 20],
    ['colou?r', 6],
    ['x|yyy|zz', 3],
    ['\\bcat\\b', 3],
    ['(?i)secret', 6],
    ['\\Qa.b\\E{2}', 4],
    ['[α-ω]{2}', 2],
    ['\\p{Greek}', 2],
    ['.', 2],
    ['[^a]', 2],
    ['😀', 2],
  ])('gives %s a longest match of %i UTF-16 units', (pattern, max) => {
    expect(analysePattern(pattern).maxLength).toBe(max);
  });

  it.each(['a+', 'a*b', 'x{2,}', '(?:ab)+c', 'BEGIN.*END'])('knows %s is unbounded', (pattern) => {
    expect(analysePattern(pattern).maxLength).toBe(Infinity);
  });

  it('prices classes of many ranges times their repetition', () => {
    expect(analysePattern('[\\p{L}\\p{N}]{1,400}z0').programCost).toBeGreaterThan(PATTERN_PROGRAM_LIMIT);
    expect(analysePattern('\\p{L}{1,400}').programCost).toBeGreaterThan(PATTERN_PROGRAM_LIMIT);
    expect(analysePattern('[a-z]{1,1000}').programCost).toBeLessThan(PATTERN_PROGRAM_LIMIT);
    expect(analysePattern('\\w+@\\w+\\.com').programCost).toBeLessThan(100);
  });
});

describe('program-size limits on save', () => {
  it('refuses a costly pattern quickly, naming it, before RE2 compiles it', () => {
    const costly = '[\\p{L}\\p{N}]{1,400}z0';
    const cpuMs = cpuStopwatch();
    const problems = validateScannerConfig({ type: 'regex', patterns: ['ok', costly, costly, costly, costly, costly] });
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatchObject({
      loc: ['patterns', '1'],
      msg: expect.stringContaining(JSON.stringify(costly)),
      type: 'value_error',
    });
    // Compiling them used to take about 0.3 s each; pricing them is one pass over Unicode per property, cached.
    // CPU time, not wall time: a busy machine stretches the wall time, not the work done.
    expect(cpuMs()).toBeLessThan(2_000);
  });
});

describe('maxMatchLength and warnings', () => {
  it('is the longest match of a set, capped, and 0 for no scanners', () => {
    const ssn = compileScanner({ type: 'regex', pattern: '\\d{3}-\\d{2}-\\d{4}' });
    const words = compileScanner({ type: 'keyword', words: ['secret', 'password'] });
    const open = compileScanner({ type: 'regex', pattern: 'BEGIN.*END' });
    expect(maxMatchLength([])).toBe(0);
    expect(maxMatchLength([ssn, words])).toBe(11);
    expect(maxMatchLength([ssn, open])).toBe(MATCH_LENGTH_CAP);
  });

  it('warns of patterns and phrases that allow matches longer than the cap', () => {
    expect(scannerConfigWarnings({ type: 'regex', patterns: ['\\d{3}', 'BEGIN.*END'] })).toEqual([
      { loc: ['patterns', '1'], msg: expect.stringContaining('unbounded'), type: 'match_length_warning' },
    ]);
    expect(scannerConfigWarnings({ type: 'regex', pattern: 'a{1,2000}' })[0].msg).toContain('up to 2000 characters');
    expect(scannerConfigWarnings({ type: 'keyword', words: ['one', 'two words'] })).toHaveLength(1);
    expect(scannerConfigWarnings({ type: 'pii' })).toEqual([]);
  });
});

describe('CompiledScannerCache', () => {
  it('compiles each scanner version once and drops the least recently used', () => {
    const cache = new CompiledScannerCache(2);
    const v1 = { id: 's', version: '1', config: { type: 'regex', pattern: 'a' } };
    const first = cache.get(v1);
    expect(cache.get(v1)).toBe(first);
    cache.get({ id: 's', version: '2', config: { type: 'regex', pattern: 'b' } });
    cache.get(v1);
    cache.get({ id: 't', version: '1', config: { type: 'regex', pattern: 'c' } });
    expect(cache.compileCount).toBe(3);
    expect(cache.get(v1)).toBe(first);
    expect(cache.compileCount).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('keeps the reason a config cannot run', () => {
    const cache = new CompiledScannerCache();
    expect(cache.get({ id: 'c', version: '1', config: { type: 'custom' } })).toBeInstanceOf(Error);
    expect(cache.get({ id: 'c', version: '1', config: { type: 'custom' } })).toBeInstanceOf(Error);
    expect(cache.compileCount).toBe(1);
  });
});

describe('ScanDeadline', () => {
  it('stops scans once the request budget is spent, whichever scanner is running', () => {
    let now = 0;
    const deadline = new ScanDeadline(100, () => now);
    const scanners = [compileScanner({ type: 'pii' }), compileScanner({ type: 'secrets' })];
    expect(scanAll(scanners, 'mail jane@example.com', { deadline }).map((r) => r.outcome)).toEqual([
      'failed',
      'passed',
    ]);
    now = 101;
    expect(() => scanAll(scanners, 'mail jane@example.com', { deadline })).toThrow(
      expect.objectContaining({ limit: 'budget', max: 100 }),
    );
    expect(() => scanAll(scanners, 'x', { deadline })).toThrow(ScanLimitError);
  });
});
