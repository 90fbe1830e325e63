import type { PiiDetectorId } from '../detectors/pii/pii-detectors';
import type { SecretsDetectorId } from '../detectors/secrets/secrets-detectors';

export const SCANNER_TYPES = ['regex', 'keyword', 'pii', 'secrets', 'custom'] as const;

export type ScannerType = (typeof SCANNER_TYPES)[number];

/** The types this library runs; `custom` scanners are judged by a model, elsewhere. */
export type EngineType = Exclude<ScannerType, 'custom'>;

/**
 * Patterns in RE2 syntax (https://github.com/google/re2/wiki/Syntax), case-sensitive unless a
 * pattern says `(?i)`. The text triggers the scanner when any pattern matches it.
 */
export interface RegexScannerConfig {
  readonly type: 'regex';
  readonly patterns: readonly string[];
}

/** The public API's single-pattern form, `{type: "regex", pattern}`. */
export interface SinglePatternRegexScannerConfig {
  readonly type: 'regex';
  readonly pattern: string;
}

/**
 * Words or phrases matched literally; whitespace inside a phrase matches any run of whitespace.
 * `caseSensitive` defaults to false; `wholeWord` (default false) refuses a match inside a longer
 * word, with Unicode letters and digits counting as word characters.
 */
export interface KeywordScannerConfig {
  readonly type: 'keyword';
  readonly words: readonly string[];
  readonly caseSensitive?: boolean;
  readonly wholeWord?: boolean;
}

/** The built-in personal-data package; all its detectors unless some are named. */
export interface PiiScannerConfig {
  readonly type: 'pii';
  readonly detectors?: readonly PiiDetectorId[];
}

/** The built-in secrets package; all its detectors unless some are named. */
export interface SecretsScannerConfig {
  readonly type: 'secrets';
  readonly detectors?: readonly SecretsDetectorId[];
}

/** A model-judged scanner. Its fields belong to the model-calling service; no engine runs it here. */
export interface CustomScannerConfig {
  readonly type: 'custom';
  readonly [field: string]: unknown;
}

export type ScannerConfig =
  | RegexScannerConfig
  | SinglePatternRegexScannerConfig
  | KeywordScannerConfig
  | PiiScannerConfig
  | SecretsScannerConfig
  | CustomScannerConfig;
