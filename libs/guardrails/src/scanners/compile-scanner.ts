import { assertScannerConfig } from '../config/validate-scanner-config';
import type { KeywordScannerConfig, ScannerConfig } from '../config/scanner-config';
import { RuleMatcher } from '../engine/rule-matcher';
import { isWholeWord } from '../engine/text-boundaries';
import { PACKAGE_DETECTORS } from '../packages/built-in-packages';
import { EngineScanner } from './engine-scanner';
import type { CompileOptions, Scanner } from './scanner';
import { UnsupportedScannerError } from './unsupported-scanner.error';

const RE2_SPECIAL = /[\\^$.*+?()[\]{}|]/g;

/**
 * Compiles a scanner config (validated again here: a config saved under older caps must not slip
 * through). Throws ScannerConfigError for an invalid config, UnsupportedScannerError for `custom`.
 */
export function compileScanner(config: ScannerConfig, options: CompileOptions = {}): Scanner {
  assertScannerConfig(config);
  switch (config.type) {
    case 'regex': {
      const patterns = 'patterns' in config ? config.patterns : [config.pattern];
      const matcher = new RuleMatcher(patterns.map((source) => ({ source })));
      return new EngineScanner('regex', matcher, (i) => i, options);
    }
    case 'keyword':
      return keywordScanner(config, options);
    case 'pii':
    case 'secrets': {
      const wanted: readonly string[] | undefined = config.detectors;
      const detectors = PACKAGE_DETECTORS[config.type].filter((d) => !wanted || wanted.includes(d.id));
      const matcher = new RuleMatcher(detectors.map((d) => ({ source: d.pattern, confirm: d.confirm })));
      return new EngineScanner(config.type, matcher, (i) => detectors[i].id, options);
    }
    case 'custom':
      throw new UnsupportedScannerError(config.type);
  }
}

function keywordScanner(config: KeywordScannerConfig, options: CompileOptions): Scanner {
  const caseSensitive = config.caseSensitive ?? false;
  // One rule per distinct word; a match reports the index of the word's first listing.
  const distinct = new Map<string, { source: string; index: number }>();
  config.words.forEach((word, index) => {
    const source = word.trim().split(/\s+/).map((part) => part.replace(RE2_SPECIAL, '\\$&')).join('\\s+');
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
  return new EngineScanner('keyword', matcher, (i) => words[i].index, options);
}
