import type { PromptOutcome, PromptRecordedEvent, ScannerResultRecord } from '@bastion/contracts';
import type { PromptDraft, PromptOutcomeParts, PromptRecorder } from '../records/prompt-recorder';

type ProviderResult = NonNullable<PromptOutcomeParts['providerResult']>;

/**
 * The one record of one exchange. The exchange fills it in as it goes (what was sent, what was
 * delivered, the verdicts) and `close` writes it exactly once, whichever way the exchange ends: a
 * block, an upstream failure, a client gone, or an answer.
 */
export class Recording {
  readonly id: string;
  outcome: PromptOutcome = 'cleared';
  /** The request as it was sent upstream (redacted) or, when blocked, with the matched spans masked. */
  input = '';
  memory: string[] = [];
  /** The answer's text as the client received it; null when nothing of it was delivered. */
  response: string | null = null;
  /** What the client received of the provider's answer (the delivered body, never the raw one). */
  providerResult: ProviderResult | null = null;
  results: ScannerResultRecord[] = [];
  /** Time spent making the record durable (ms), for Server-Timing. */
  recordMs = 0;
  private closed?: Promise<PromptRecordedEvent>;
  private readonly started: ReturnType<PromptRecorder['start']>;

  constructor(
    private readonly recorder: PromptRecorder,
    draft: PromptDraft,
  ) {
    this.started = recorder.start(draft);
    this.id = this.started.id;
  }

  close(): Promise<PromptRecordedEvent> {
    const started = performance.now();
    this.closed ??= this.recorder
      .record(
        { ...this.started, draft: { ...this.started.draft, input: this.input, memory: this.memory } },
        {
          outcome: this.outcome,
          response: this.outcome === 'blocked' ? null : this.response,
          providerResult: this.outcome === 'blocked' ? null : this.providerResult,
          scannerResults: this.results,
        },
      )
      .finally(() => (this.recordMs = performance.now() - started));
    return this.closed;
  }
}
