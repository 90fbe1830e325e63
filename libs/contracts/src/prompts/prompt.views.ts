import type { PromptOutcome, ScannerVersionMeta } from './prompt-record.event';

/** The spec's Scanner result, as the API shows it. */
export interface ScannerResultView {
  scannerId: string;
  outcome: 'passed' | 'failed';
  scanDirection: 'request' | 'response';
  data: { type: string; matches: unknown[] };
  message: string;
  customConfig: boolean;
  startedDate: string;
  completedDate: string;
  scannerVersionMeta: ScannerVersionMeta | null;
}

export interface PromptFileView {
  contentType: string;
  data: string;
  id: string;
  isBase64: boolean;
  name: string;
}

/** The spec's Prompt result. `response` and `providerResult` are null for a blocked prompt. */
export interface PromptResultView {
  outcome: PromptOutcome;
  response: string | null;
  files: PromptFileView[];
  providerResult: { data: string; receivedDate: string; sentDate: string; statusCode: number } | null;
  scannerResults: ScannerResultView[];
}

/** The spec's Prompt, every field and nothing else (no tenant, no template id). */
export interface PromptView {
  id: string;
  parentId: string | null;
  projectId: string | null;
  userId: string;
  provider: string;
  input: string;
  memory: string[];
  extraInputs: Record<string, string>;
  externalMetadata: Record<string, unknown>;
  fromTemplate: boolean;
  preserve: boolean;
  receivedAt: string;
  type: string;
  result: PromptResultView;
}

/**
 * The answer of `POST /backend/v1/scans`: the stored scan, plus the text as it may go on
 * (`redactedInput`: masked where redacted, else the input) and, when flagged or blocked, why.
 */
export interface ScanView extends PromptView {
  redactedInput: string;
  message?: string;
  result: PromptResultView & { reason?: string };
}

/** A stored scan (`GET /backend/v1/scans/{id}` answers `{scan}`): a prompt record of type `scan`. */
export interface StoredScanView {
  id: string;
  input: string;
  /** The input with matches masked when the outcome is `redacted`; the input itself otherwise. */
  redactedInput: string;
  projectId: string | null;
  userId: string;
  receivedAt: string;
  preserve: boolean;
  externalMetadata: Record<string, unknown>;
  extraInputs: Record<string, string>;
  type: 'scan';
  result: { outcome: PromptOutcome; scannerResults: ScannerResultView[] };
}

/** The spec's Prompt template record. */
export interface PromptTemplateView {
  id: string;
  name: string;
  projectId: string | null;
  promptId: string;
  userId: string;
  createdAt: string;
}

/** What the message proxy needs to send a prompt from a template. */
export interface TemplateInput {
  input: string;
  projectId: string | null;
}
