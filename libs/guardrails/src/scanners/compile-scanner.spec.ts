import { cpuStopwatch } from '@bastion/testing';
import { ScannerConfigError } from '../config/config-problem';
import type { ScannerConfig } from '../config/scanner-config';
import { MAX_SCAN_MATCHES, MAX_SCAN_TEXT_BYTES, SCAN_TIME_BUDGET_MS } from '../config/scanner-limits';
import { compileScanner } from './compile-scanner';
import { ScanLimitError } from './scan-limit.error';
import { UnsupportedScannerError } from './unsupported-scanner.error';

const matches = (config: ScannerConfig, text: string) => compileScanner(config).scan(text).data.matches;

describe('compileScanner', () => {
  it('returns a result shaped like the spec: outcome, data {type, matches}, dates', () => {
    const result = compileScanner({ type: 'regex', pattern: 'secret' }).scan('a secret');
    expect(result).toEqual({
      outcome: 'failed',
      data: { type: 'regex', matches: [[2, 8, 0]] },
      startedDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      completedDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      durationMs: expect.any(Number),
    });
    expect(result.completedDate >= result.startedDate).toBe(true);
    expect(compileScanner({ type: 'regex', pattern: 'secret' }).scan('all clear')).toMatchObject({
      outcome: 'passed',
      data: { type: 'regex', matches: [] },
    });
  });

  it('finds the matches scan reports, within the same limits, with no dates', () => {
    const scanner = compileScanner({ type: 'regex', patterns: ['\\bkey-\\d+'] }, { maxTextBytes: 64 });
    const text = 'key-1 and key-22';
    expect(scanner.find(text)).toEqual(scanner.scan(text).data.matches);
    expect(scanner.find(text)).toEqual([
      [0, 5, 0],
      [10, 16, 0],
    ]);
    expect(() => scanner.find('key-1 '.repeat(20))).toThrow(ScanLimitError);
  });

  it('leaves the matched text out unless asked for it', () => {
    expect(
      compileScanner({ type: 'keyword', words: ['falcon'] }, { includeText: true }).scan('Project Falcon').data.matches,
    ).toEqual([[8, 14, 0, 'Falcon']]);
  });

  it('refuses an invalid config with every problem, and custom scanners with a clear error', () => {
    expect(() => compileScanner({ type: 'regex', patterns: ['(?=a)'] })).toThrow(ScannerConfigError);
    expect(() => compileScanner({ type: 'custom', prompt: 'x' })).toThrow(UnsupportedScannerError);
    expect(() => compileScanner({ type: 'custom' })).toThrow(/judged by a model/);
  });

  describe('the text size cap', () => {
    it('fails closed over the cap, counting UTF-8 bytes', () => {
      const scanner = compileScanner({ type: 'keyword', words: ['x'] }, { maxTextBytes: 100 });
      expect(scanner.scan('a'.repeat(100)).outcome).toBe('passed');
      expect(() => scanner.scan('a'.repeat(101))).toThrow(ScanLimitError);
      expect(() => scanner.scan('€'.repeat(34))).toThrow('Text of 102 bytes is over the 100-byte scanning limit');
      expect(() => scanner.redact('x'.repeat(101))).toThrow(ScanLimitError);
    });

    it('says which limit it ran into', () => {
      const scanner = compileScanner({ type: 'keyword', words: ['x'] }, { maxTextBytes: 10 });
      expect(() => scanner.scan('€'.repeat(4))).toThrow(
        expect.objectContaining({ limit: 'text-bytes', max: 10, actual: 12 }),
      );
    });

    it('defaults to MAX_SCAN_TEXT_BYTES', () => {
      const scanner = compileScanner({ type: 'regex', pattern: 'b' });
      expect(scanner.scan('a'.repeat(MAX_SCAN_TEXT_BYTES)).outcome).toBe('passed');
      expect(() => scanner.scan('a'.repeat(MAX_SCAN_TEXT_BYTES + 1))).toThrow(ScanLimitError);
    });
  });

  describe('the match cap', () => {
    it('fails closed past it rather than report (and redact) only some matches', () => {
      const scanner = compileScanner({ type: 'regex', patterns: ['a', 'b'] }, { maxMatches: 4 });
      expect(scanner.scan('aabb').data.matches).toHaveLength(4);
      expect(() => scanner.scan('aabbb')).toThrow(expect.objectContaining({ limit: 'matches', max: 4 }));
      expect(() => scanner.scan('aaaaa')).toThrow('More than 4 matches: the scan stopped');
    });

    it('defaults to MAX_SCAN_MATCHES', () => {
      // A generous time budget: this test is about the match cap, not about how busy the machine is.
      const scanner = compileScanner({ type: 'regex', pattern: 'a' }, { timeBudgetMs: 60_000 });
      expect(scanner.scan('a'.repeat(MAX_SCAN_MATCHES)).data.matches).toHaveLength(MAX_SCAN_MATCHES);
      expect(() => scanner.scan('a'.repeat(MAX_SCAN_MATCHES + 1))).toThrow(
        expect.objectContaining({ limit: 'matches' }),
      );
    });
  });

  describe('the time budget', () => {
    it('stops a scan whose every match searches to the end of the text (quadratic overall)', () => {
      const scanner = compileScanner({ type: 'regex', pattern: 'a.*b|a' }, { timeBudgetMs: 500 });
      const cpuMs = cpuStopwatch();
      expect(() => scanner.scan('a'.repeat(200_000))).toThrow(expect.objectContaining({ limit: 'time', max: 500 }));
      // Unchecked, this scan takes over half a minute of CPU.
      expect(cpuMs()).toBeLessThan(5_000);
    });

    it('leaves ordinary scans alone', () => {
      // An ordinary scan needs well under the default 500 ms budget. The budget is wall-clock, which a
      // busy machine stretches, so the scan gets a roomy one and the work is bounded in CPU time.
      const scanner = compileScanner({ type: 'pii' }, { timeBudgetMs: 60_000 });
      const cpuMs = cpuStopwatch();
      expect(scanner.scan('mail jane@example.com '.repeat(1_000)).data.matches).toHaveLength(1_000);
      expect(cpuMs()).toBeLessThan(SCAN_TIME_BUDGET_MS);
    });
  });

  describe('regex scanners', () => {
    it('accepts the single-pattern form of the API', () => {
      expect(matches({ type: 'regex', pattern: '\\d+' }, 'a 12 b 345')).toEqual([
        [2, 4, 0],
        [7, 10, 0],
      ]);
    });

    it('reports which pattern found each match, and every match of every pattern, overlaps included', () => {
      expect(matches({ type: 'regex', patterns: ['\\d{3}', 'foo', '\\d{3}-\\d{4}'] }, 'call 555-1234 or foo')).toEqual([
        [5, 8, 0],
        [5, 13, 2],
        [9, 12, 0],
        [17, 20, 1],
      ]);
    });

    it('is case-sensitive unless the pattern says (?i), and reads RE2 syntax', () => {
      expect(matches({ type: 'regex', pattern: 'secret' }, 'SECRET')).toEqual([]);
      expect(matches({ type: 'regex', pattern: '(?i)secret' }, 'SECRET')).toEqual([[0, 6, 0]]);
      expect(matches({ type: 'regex', pattern: '\\p{Greek}+' }, 'abc αβγ')).toEqual([[4, 7, 0]]);
      expect(matches({ type: 'regex', pattern: '(?<year>\\d{4})' }, 'in 2024')).toEqual([[3, 7, 0]]);
    });

    it('redacts the union of all matches', () => {
      const scanner = compileScanner({ type: 'regex', patterns: ['\\d{3}', '\\d{3}-\\d{4}'] });
      expect(scanner.redact('call 555-1234 now')).toBe('call ******** now');
      const result = scanner.scan('call 555-1234 now');
      expect(scanner.redact('call 555-1234 now', result)).toBe('call ******** now');
    });

    it('stays linear on the classic catastrophic pattern (a+)+$', () => {
      const scanner = compileScanner({ type: 'regex', pattern: '(a+)+$' });
      const cpuMs = cpuStopwatch();
      expect(scanner.scan(`${'a'.repeat(100_000)}!`).outcome).toBe('passed');
      expect(cpuMs()).toBeLessThan(1_000);
    });
  });

  describe('keyword scanners', () => {
    it('ignores case by default and honours caseSensitive', () => {
      expect(matches({ type: 'keyword', words: ['Falcon'] }, 'FALCON falcon')).toEqual([
        [0, 6, 0],
        [7, 13, 0],
      ]);
      expect(matches({ type: 'keyword', words: ['Falcon'], caseSensitive: true }, 'FALCON Falcon')).toEqual([
        [7, 13, 0],
      ]);
    });

    it('matches inside words unless wholeWord is set', () => {
      expect(matches({ type: 'keyword', words: ['cat'] }, 'concat cat')).toEqual([
        [3, 6, 0],
        [7, 10, 0],
      ]);
      expect(matches({ type: 'keyword', words: ['cat'], wholeWord: true }, 'concat cat, cats')).toEqual([[7, 10, 0]]);
    });

    it('knows Unicode word boundaries', () => {
      const config = { type: 'keyword', words: ['привет'], wholeWord: true } as const;
      expect(matches(config, 'Привет, мир')).toEqual([[0, 6, 0]]);
      expect(matches(config, 'Приветствие')).toEqual([]);
      expect(matches({ type: 'keyword', words: ['café'], wholeWord: true }, 'un CAFÉ noir')).toEqual([[3, 7, 0]]);
    });

    it('takes words literally: regex characters mean themselves', () => {
      expect(matches({ type: 'keyword', words: ['a.b', 'C++', '(x)'] }, 'axb a.b c++ (x) x')).toEqual([
        [4, 7, 0],
        [8, 11, 1],
        [12, 15, 2],
      ]);
    });

    it('lets the whitespace of a phrase match any run of whitespace', () => {
      expect(matches({ type: 'keyword', words: [' top  secret '] }, 'TOP\n  SECRET plans')).toEqual([[0, 12, 0]]);
    });

    it('matches a phrase whose words a separating control character parts (RE2 reads none of them as \\s)', () => {
      for (const c of ['\u000b', '\u001c', '\u001d', '\u001e', '\u001f', '\u0085'])
        expect(matches({ type: 'keyword', words: ['launch codes'] }, `the launch${c}codes`)).toEqual([[4, 16, 0]]);
    });

    it('reports every listed word that matches, also words inside or overlapping others', () => {
      expect(
        matches({ type: 'keyword', words: ['new', 'new york', 'york'], wholeWord: true }, 'new yorker, new york'),
      ).toEqual([
        [0, 3, 0],
        [12, 15, 0],
        [12, 20, 1],
        [16, 20, 2],
      ]);
    });

    it('finds a whole word inside a refused, overlapping candidate', () => {
      expect(matches({ type: 'keyword', words: ['a-a'], wholeWord: true }, 'xa-a-a')).toEqual([[3, 6, 0]]);
    });

    it('reports a repeated word by its first index', () => {
      expect(matches({ type: 'keyword', words: ['Foo', 'bar', 'foo'] }, 'foo')).toEqual([[0, 3, 0]]);
      expect(matches({ type: 'keyword', words: ['Foo', 'bar', 'foo'], caseSensitive: true }, 'foo')).toEqual([
        [0, 3, 2],
      ]);
    });

    it('needs a non-word edge only where the word itself has a word character', () => {
      expect(matches({ type: 'keyword', words: ['#launch'], wholeWord: true }, 'go#launch #launches')).toEqual([
        [2, 9, 0],
      ]);
    });

    it('redacts', () => {
      expect(compileScanner({ type: 'keyword', words: ['falcon', 'merger'] }).redact('The Falcon merger is on')).toBe(
        'The ****** ****** is on',
      );
    });
  });
});
