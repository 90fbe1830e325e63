import { analysePattern } from '../bounds/pattern-analysis';
import { canonicalLiteral } from '../canonical/canonicalize';
import { canonicalizePattern } from '../canonical/canonicalize-pattern';
import { ScannerConfigError } from '../config/config-problem';
import { assertScannerConfig, validateScannerConfig } from '../config/validate-scanner-config';
import type { KeywordScannerConfig, ScannerConfig } from '../config/scanner-config';
import { type Rule, RuleMatcher, type RuleMatcherOptions } from '../engine/rule-matcher';
import { isWholeWord } from '../engine/text-boundaries';
import { PACKAGE_DETECTORS } from '../packages/built-in-packages';
import { EngineScanner } from './engine-scanner';
import type { CompileOptions, Scanner } from './scanner';
import { UnsupportedScannerError } from './unsupported-scanner.error';

const RE2_SPECIAL = /[\\^$.*+?()[\]{}|]/g;

/**
 * Compiles a scanner config (validated again here: a config saved under older caps must not slip
 * through). Throws ScannerConfigError for an invalid config, UnsupportedScannerError for `custom`.
 * Each pattern is compiled by RE2 once here (validation only analyses it), plus once in the
 * combined set that finds which patterns match. Patterns and keywords are put in canonical form
 * (see canonicalizePattern), as the text they scan is.
 */
export function compileScanner(config: ScannerConfig, options: CompileOptions = {}): Scanner {
  const problems = validateScannerConfig(config, { compile: false });
  if (problems.length > 0) throw new ScannerConfigError(problems);
  switch (config.type) {
    case 'regex': {
      const patterns = 'patterns' in config ? config.patterns : [config.pattern];
      const sources = patterns.map(canonicalizePattern);
      const matcher = compileMatcher(
        config,
        sources.map((source) => ({ source })),
      );
      const empty = matcher.emptyMatchRule();
      if (empty >= 0) {
        const loc = 'patterns' in config ? ['patterns', String(empty)] : ['pattern'];
        throw new ScannerConfigError([
          { loc, msg: 'The pattern matches the empty string, so it would flag every text', type: 'value_error' },
        ]);
      }
      const max = Math.max(...sources.map((source) => analysePattern(source).maxLength));
      return new EngineScanner('regex', matcher, (i) => i, max, options);
    }
    case 'keyword':
      return keywordScanner(config, options);
    case 'pii':
    case 'secrets': {
      const wanted: readonly string[] | undefined = config.detectors;
      const detectors = PACKAGE_DETECTORS[config.type].filter((d) => !wanted || wanted.includes(d.id));
      const matcher = new RuleMatcher(detectors.map((d) => ({ source: d.pattern, confirm: d.confirm })));
      const max = Math.max(...detectors.map((d) => d.maxLength ?? analysePattern(d.pattern).maxLength));
      return new EngineScanner(config.type, matcher, (i) => detectors[i].id, max, options);
    }
    case 'custom':
      throw new UnsupportedScannerError(config.type);
  }
}

/** The matcher, or the config's problems as RE2 states them (the validator compiles only on failure). */
function compileMatcher(config: ScannerConfig, rules: Rule[], options?: RuleMatcherOptions): RuleMatcher {
  try {
    return new RuleMatcher(rules, options);
  } catch (err) {
    assertScannerConfig(config);
    throw err;
  }
}

/**
 * One RE2 source per keyword: the keyword in canonical form, its words joined by a run of
 * whitespace. Exported for the bounds (a phrase's whitespace run is unbounded).
 */
export function keywordSource(word: string): string {
  return canonicalLiteral(word)
    .trim()
    .split(/\s+/)
    .map((part) => part.replace(RE2_SPECIAL, '\\$&'))
    .join('\\s+');
}

function keywordScanner(config: KeywordScannerConfig, options: CompileOptions): Scanner {
  assertScannerConfig(config);
  const caseSensitive = config.caseSensitive ?? false;
  // One rule per distinct word; a match reports the index of the word's first listing.
  const distinct = new Map<string, { source: string; index: number }>();
  config.words.forEach((word, index) => {
    const source = keywordSource(word);
    if (source === '') return;
    const key = caseSensitive ? source : source.toLowerCase();
    if (!distinct.has(key)) distinct.set(key, { source, index });
  });
  const words = [...distinct.values()];
  const confirm = config.wholeWord
    ? (value: string, text: string, start: number) => isWholeWord(text, start, start + value.length)
    : undefined;
  const matcher = new RuleMatcher(
    words.map(({ source }) => ({ source, confirm })),
    { flags: caseSensitive ? '' : 'i', retryInsideRefused: true },
  );
  const max = Math.max(0, ...words.map(({ source }) => analysePattern(source).maxLength));
  return new EngineScanner('keyword', matcher, (i) => words[i].index, max, options);
}
