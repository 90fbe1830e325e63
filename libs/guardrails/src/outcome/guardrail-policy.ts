/**
 * What a project config entry (`{id, version, enabled, blocking, force, mode, flagMessage,
 * direction}`) says about enforcement. `audit` only flags.
 */
export type GuardrailMode = 'block' | 'redact' | 'audit';
export type GuardrailDirection = 'request' | 'response' | 'both';
/** Which way the scanned text travels: the prompt going to the model, or its response. */
export type ScanDirection = 'request' | 'response';
export type PromptOutcome = 'cleared' | 'flagged' | 'redacted' | 'blocked';

/** The fields of a guardrail entry that decide an outcome; a whole entry fits. */
export interface GuardrailPolicy {
  readonly enabled: boolean;
  readonly blocking: boolean;
  readonly mode: GuardrailMode;
  readonly direction: GuardrailDirection;
}
