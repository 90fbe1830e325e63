import type { GuardrailRun } from './run-guardrails';

export type GuardStep = { release: string } | { blocked: GuardrailRun };

/**
 * Scans a model's answer as it streams. Text is released to the client only once it lies more
 * than `holdBack` characters behind the end of what has arrived, so a match shorter than that is
 * seen whole before any of it leaves; redactions are applied to what is released, and a block
 * stops the stream before the blocked text is sent. A match longer than `holdBack` could be
 * released in part before it completes: the window is the trade between latency and that risk.
 */
export class StreamGuard {
  private full = '';
  private sent = 0;
  private last?: GuardrailRun;

  constructor(
    private readonly scan: (text: string) => GuardrailRun,
    private readonly holdBack: number,
    /** Scan only once this much new text could be released, not at every small delta. */
    private readonly minRelease = 32,
  ) {}

  push(delta: string): GuardStep {
    this.full += delta;
    const boundary = this.full.length - this.holdBack;
    if (boundary - this.sent < this.minRelease) return { release: '' };
    return this.releaseUpTo(boundary);
  }

  /** The answer is complete: scan it whole and release the rest. */
  finish(): GuardStep {
    return this.releaseUpTo(this.full.length, true);
  }

  /** The last scan of the answer so far (for the prompt record). */
  get lastRun(): GuardrailRun | undefined {
    return this.last;
  }

  /** Everything received, as it was before redaction. */
  get received(): string {
    return this.full;
  }

  private releaseUpTo(boundary: number, final = false): GuardStep {
    if (boundary <= this.sent && !final) return { release: '' };
    const run = this.scan(this.full);
    this.last = run;
    if (run.outcome === 'blocked') return { blocked: run };
    const release = run.text.slice(this.sent, Math.max(this.sent, boundary));
    this.sent = Math.max(this.sent, boundary);
    return { release };
  }
}
