// Scanner engines of the guardrails backend: pure functions, no I/O. Validate a config when a
// scanner is saved, compile it once when it is loaded (sharedScannerCache), scan many texts in
// their canonical form (scanAll, Scanner.scan, or createStreamScanner for a streamed answer),
// then aggregate the results of a project's entries into the prompt's outcome.
export * from './bounds/match-length';
export * from './bounds/pattern-analysis';
export * from './budget/scan-deadline';
export {
  attaches,
  CONFUSABLES,
  canonicalize,
  canonicalLiteral,
  MAX_ATTACHED,
  foldConfusables,
  StreamCanonicalizer,
  unstableTail,
  type CanonicalText,
} from './canonical/canonicalize';
export * from './canonical/canonicalize-pattern';
export * from './config/config-problem';
export * from './config/scanner-config';
export * from './config/scanner-limits';
export * from './config/validate-scanner-config';
export type { PiiDetectorId } from './detectors/pii/pii-detectors';
export type { SecretsDetectorId } from './detectors/secrets/secrets-detectors';
export { mergeSpans, maskSpans, type Span } from './engine/span';
export { isHighSurrogate, isLowSurrogate } from './engine/text-boundaries';
export * from './outcome/aggregate-outcome';
export * from './outcome/apply-redactions';
export * from './outcome/guardrail-policy';
export {
  BUILT_IN_PACKAGES,
  type DetectorInfo,
  type PackageId,
  type ScannerPackage,
} from './packages/built-in-packages';
export * from './scanners/compile-cache';
export { compileScanner, keywordSource } from './scanners/compile-scanner';
export { warmUpScanners } from './scanners/warm-up';
export * from './scanners/scan-all';
export * from './scanners/scan-result';
export * from './scanners/scan-limit.error';
export * from './scanners/scanner';
export * from './scanners/unsupported-scanner.error';
export * from './stream/live-starts';
export * from './stream/prefix-pattern';
export * from './stream/stream-scanner';
