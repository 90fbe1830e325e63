import { ScannerConfigError } from './config-problem';
import { MAX_KEYWORD_LENGTH, MAX_KEYWORDS, MAX_PATTERN_LENGTH, MAX_PATTERNS } from './scanner-limits';
import { compileScanner } from '../scanners/compile-scanner';
import type { ScannerConfig } from './scanner-config';
import { assertScannerConfig, validateScannerConfig } from './validate-scanner-config';

describe('validateScannerConfig', () => {
  it.each([
    [{ type: 'regex', pattern: '\\d{3}-\\d{2}-\\d{4}' }],
    [{ type: 'regex', patterns: ['(?i)secret', 'foo|bar'] }],
    [{ type: 'keyword', words: ['classified', 'top secret'], caseSensitive: true, wholeWord: true }],
    [{ type: 'pii' }],
    [{ type: 'pii', detectors: ['email', 'iban'] }],
    [{ type: 'secrets', detectors: ['jwt'] }],
    [{ type: 'custom', prompt: 'Is this about the merger?' }],
  ])('accepts %j', (config) => {
    expect(validateScannerConfig(config)).toEqual([]);
  });

  it('refuses what is not a config object or has no known type', () => {
    expect(validateScannerConfig('regex')).toEqual([{ loc: [], msg: 'Input should be an object', type: 'dict_type' }]);
    expect(validateScannerConfig({})).toEqual([{ loc: ['type'], msg: 'Field required', type: 'missing' }]);
    expect(validateScannerConfig({ type: 'yara' })).toEqual([
      { loc: ['type'], msg: "Input should be 'regex', 'keyword', 'pii', 'secrets', 'custom'", type: 'literal_error' },
    ]);
  });

  it('refuses lookaround and backreferences with the reason, at the pattern that has them', () => {
    expect(validateScannerConfig({ type: 'regex', patterns: ['ok', 'foo(?=bar)', '(a)\\1'] })).toEqual([
      {
        loc: ['patterns', '1'],
        msg: 'lookahead (?=...) is not supported: patterns run on RE2, a linear-time engine',
        type: 'value_error',
      },
      {
        loc: ['patterns', '2'],
        msg: 'a backreference \\1 is not supported: patterns run on RE2, a linear-time engine',
        type: 'value_error',
      },
    ]);
    expect(validateScannerConfig({ type: 'regex', pattern: '(?<!\\d)\\d{4}' })).toEqual([
      expect.objectContaining({ loc: ['pattern'], msg: expect.stringContaining('negative lookbehind') }),
    ]);
  });

  it("reports RE2's own compile errors", () => {
    expect(validateScannerConfig({ type: 'regex', pattern: '(unclosed' })).toEqual([
      { loc: ['pattern'], msg: 'Not a valid RE2 pattern: missing ): (unclosed', type: 'value_error' },
    ]);
    expect(validateScannerConfig({ type: 'regex', pattern: 'a{1001}' })[0].msg).toMatch(/^Not a valid RE2 pattern: /);
  });

  it('refuses a pattern that matches the empty string, which would flag every text', () => {
    expect(validateScannerConfig({ type: 'regex', patterns: ['a*', '^', ''] }).map((p) => p.msg)).toEqual([
      'The pattern matches the empty string, so it would flag every text',
      'The pattern matches the empty string, so it would flag every text',
      'A pattern cannot be empty',
    ]);
  });

  it('refuses a pattern that needs a control character scanners never see, and keeps classes that hold more', () => {
    const refused = (pattern: string) => validateScannerConfig({ type: 'regex', pattern }).map((p) => p.msg);
    for (const [pattern, code] of [
      ['\\x1b\\[[0-9;]*m', 'U+001B'],
      ['nul\\x00', 'U+0000'],
      ['a\u0007b', 'U+0007'],
      ['\\x{7f}', 'U+007F'],
      ['\\a', 'U+0007'],
      ['\\Qa\u0001b\\E', 'U+0001'],
      ['[\\x00-\\x08]+', 'U+0000'],
      ['\\x{9b}\\d', 'U+009B'],
      ['\\33\\[', 'U+001B'],
      ['\\0', 'U+0000'],
      ['\\cA', 'U+0001'],
      ['\\x{00000001}', 'U+0001'],
    ])
      expect(refused(pattern)).toEqual([expect.stringContaining(`needs the control character ${code}`)]);
    for (const pattern of ['[\\x00-\\x7f]+x', '[^\\x00-\\x1f]+', '\\p{Cc}x', '[[:cntrl:]]x', 'a\\tb\\x1fc', '\\\\x00'])
      expect(refused(pattern)).toEqual([]);
  });

  it('compiles a stored scanner whose pattern needs such a character: its other patterns still find', () => {
    const stored = { type: 'regex', patterns: ['AKIA[0-9A-Z]{16}', '\\x1b\\[[0-9;]*m'] };
    expect(validateScannerConfig(stored)).toHaveLength(1);
    expect(validateScannerConfig(stored, { compile: false })).toEqual([]);
    expect(compileScanner(stored as ScannerConfig).scan('key AKIAIOSFODNN7EXAMPLE').outcome).toBe('failed');
  });

  it('caps the number and length of patterns', () => {
    expect(validateScannerConfig({ type: 'regex', patterns: Array(MAX_PATTERNS).fill('x') })).toEqual([]);
    expect(validateScannerConfig({ type: 'regex', patterns: Array(MAX_PATTERNS + 1).fill('x') })).toEqual([
      { loc: ['patterns'], msg: `List should have at most ${MAX_PATTERNS} items`, type: 'too_long' },
    ]);
    expect(validateScannerConfig({ type: 'regex', pattern: 'x'.repeat(MAX_PATTERN_LENGTH) })).toEqual([]);
    expect(validateScannerConfig({ type: 'regex', pattern: 'x'.repeat(MAX_PATTERN_LENGTH + 1) })).toEqual([
      {
        loc: ['pattern'],
        msg: `A pattern can be at most ${MAX_PATTERN_LENGTH} characters long`,
        type: 'string_too_long',
      },
    ]);
  });

  it('wants exactly one of pattern and patterns, with strings in them', () => {
    expect(validateScannerConfig({ type: 'regex' })[0]).toMatchObject({ loc: ['patterns'], type: 'missing' });
    expect(validateScannerConfig({ type: 'regex', pattern: 'a', patterns: ['b'] })[0]).toMatchObject({
      type: 'value_error',
    });
    expect(validateScannerConfig({ type: 'regex', patterns: [] })[0]).toMatchObject({ type: 'too_short' });
    expect(validateScannerConfig({ type: 'regex', patterns: 'a' })[0]).toMatchObject({ type: 'list_type' });
    expect(validateScannerConfig({ type: 'regex', patterns: ['a', 7] })).toEqual([
      { loc: ['patterns', '1'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
    expect(validateScannerConfig({ type: 'regex', pattern: 7 })[0]).toMatchObject({
      loc: ['pattern'],
      type: 'string_type',
    });
  });

  it('caps the number and length of keywords and refuses blank ones', () => {
    expect(validateScannerConfig({ type: 'keyword', words: Array(MAX_KEYWORDS).fill('w') })).toEqual([]);
    expect(validateScannerConfig({ type: 'keyword', words: Array(MAX_KEYWORDS + 1).fill('w') })[0]).toMatchObject({
      loc: ['words'],
      type: 'too_long',
    });
    expect(validateScannerConfig({ type: 'keyword', words: ['ok', 'w'.repeat(MAX_KEYWORD_LENGTH + 1), '  '] })).toEqual(
      [
        {
          loc: ['words', '1'],
          msg: `A word can be at most ${MAX_KEYWORD_LENGTH} characters long`,
          type: 'string_too_long',
        },
        { loc: ['words', '2'], msg: 'A word cannot be empty or only whitespace', type: 'string_too_short' },
      ],
    );
    expect(validateScannerConfig({ type: 'keyword' })[0]).toMatchObject({ loc: ['words'], type: 'missing' });
  });

  it('wants booleans for the keyword options', () => {
    expect(validateScannerConfig({ type: 'keyword', words: ['a'], caseSensitive: 'yes', wholeWord: 1 })).toEqual([
      { loc: ['caseSensitive'], msg: 'Input should be a valid boolean', type: 'bool_type' },
      { loc: ['wholeWord'], msg: 'Input should be a valid boolean', type: 'bool_type' },
    ]);
  });

  it('refuses detectors that are not in the package', () => {
    expect(validateScannerConfig({ type: 'pii', detectors: ['email', 'jwt'] })).toEqual([
      {
        loc: ['detectors', '1'],
        msg: "Unknown detector 'jwt'; the pii package has email, phone, payment-card, iban, us-ssn, ip-address",
        type: 'literal_error',
      },
    ]);
    expect(validateScannerConfig({ type: 'secrets', detectors: [] })[0]).toMatchObject({ type: 'too_short' });
  });
});

describe('assertScannerConfig', () => {
  it('throws a ScannerConfigError carrying every problem', () => {
    const attempt = () => assertScannerConfig({ type: 'regex', patterns: ['(?=x)', '('] });
    expect(attempt).toThrow(ScannerConfigError);
    try {
      attempt();
    } catch (e) {
      expect((e as ScannerConfigError).problems).toHaveLength(2);
      expect((e as ScannerConfigError).message).toMatch(/^Invalid scanner config: patterns\.0: lookahead/);
    }
  });
});
