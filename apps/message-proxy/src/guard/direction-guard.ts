import type { PromptOutcome, RuntimeGuardrail, ScannerResultRecord } from '@bastion/contracts';
import { runScanJob, type ScanJob, type ScanJobResult } from './scan-job';
import {
  aggregateOutcome,
  createStreamScanner,
  ScanDeadline,
  SCANNER_TYPES,
  ScanLimitError,
  type ScanMatch,
  type Scanner,
  type ScanResultLike,
  type Span,
  type StreamFinding,
  type StreamScanner,
} from '@bastion/guardrails';

export type ScanDirection = 'request' | 'response';

/** What one scan of one text (or one step of a stream) asks the caller to do. */
export interface WindowVerdict {
  /** Stop: a blocking entry matched, or a scan ran over a limit in an enforcing project. */
  blocked: boolean;
  /** Spans to mask, in the caller's offsets (the window's base added). */
  redactions: Span[];
}

/** The verdict on everything scanned so far: what the prompt record keeps. */
export interface GuardSummary {
  outcome: PromptOutcome;
  results: ScannerResultRecord[];
  /** Flag messages of the entries that acted. */
  messages: string[];
  /** Every matched span of an entry that acted (for masking what a record keeps of blocked text). */
  actedSpans: Span[];
  /** The spans redacting entries matched, merged, whether or not another entry blocked (in an enforcing guard). */
  redactions: Span[];
}

/**
 * The scan budget of one exchange: CPU time spent scanning, in both directions and across a whole
 * stream, however long the stream waits on its upstream. Its deadline is a clock that runs only
 * while a scan runs, so the engines' own budget checks see scanning time, not waiting time.
 */
export class ScanBudget {
  private runningSince?: number;
  readonly deadline: ScanDeadline;

  /** `spentMs`: what was spent before (a scan worker continues an exchange's budget). */
  constructor(
    readonly limitMs: number,
    private spentMs = 0,
  ) {
    this.deadline = new ScanDeadline(
      limitMs,
      () => this.spentMs + (this.runningSince === undefined ? 0 : performance.now() - this.runningSince),
    );
  }

  get exhausted(): boolean {
    return this.spentMs >= this.limitMs;
  }

  /** CPU time spent scanning so far (ms). */
  get spent(): number {
    return this.spentMs;
  }

  /** Counts scanning done elsewhere (on a scan worker). */
  charge(ms: number): void {
    this.spentMs += ms;
  }

  run<T>(scan: () => T): T {
    this.runningSince = performance.now();
    try {
      return scan();
    } finally {
      this.spentMs += performance.now() - this.runningSince;
      this.runningSince = undefined;
    }
  }
}

/** Runs a scan job elsewhere (ScanPool) and resolves with its result. */
export type ScanRunner = (job: ScanJob) => Promise<ScanJobResult>;

/** Config types the engines run; any other (`custom`) fails to compile at once, before any RE2 program. */
const ENGINE_TYPES: readonly unknown[] = SCANNER_TYPES.filter((t) => t !== 'custom');

function jobOf(live: readonly EntryState[], text: string, budget: ScanBudget): ScanJob {
  const scanners = live.map(({ entry }) => ({
    id: entry.id,
    version: entry.resolvedVersion.id,
    config: entry.resolvedVersion.config,
  }));
  return { scanners, text, limitMs: budget.limitMs, spentMs: budget.spent };
}

/** One direction's guard over a streamed text: push each piece in order, release what is safe. */
export interface GuardStream {
  push(text: string): WindowVerdict & { safeUpTo: number };
  /** Characters a push may bring and only wait for the next scan (no finding, nothing new safe): a caller may gather them first. */
  readonly untilScan: number;
  finish(): WindowVerdict & { safeUpTo: number };
}

interface EntryState {
  entry: RuntimeGuardrail;
  /**
   * The scanner compiled in this thread, or why the entry cannot run (a `custom` type, a config that
   * does not compile); `'runner'` once it ran on the scan runner, which compiles on its own thread.
   * Unset until a scan needs it.
   */
  scanner?: Scanner | Error | 'runner';
  matches: Map<string, ScanMatch>;
  failed: boolean;
  overLimit?: string;
  /** When the entry's first and latest scans ran (ms since the epoch; ISO strings only in the summary). */
  startedAt?: number;
  completedAt?: number;
}

/**
 * True when the meeting of two parts' last and first characters is an edge in the join as well:
 * either is an ASCII space or punctuation, which canonical text keeps. Anything else (a letter, a
 * digit, `_`, a control or format character, any non-ASCII one) may join a word or number across.
 */
export function edgeHolds(last: string | undefined, first: string | undefined): boolean {
  return isAsciiEdge(last) || isAsciiEdge(first);
}

function isAsciiEdge(c: string | undefined): boolean {
  return c !== undefined && /^[ \t\n\r!-/:-@[-^`{-~]$/.test(c);
}

/**
 * A project's guardrails for one direction of one exchange. Text is scanned whole, or window by
 * window (a streamed answer): findings are kept in the text's absolute offsets and merged, so a
 * match seen by two overlapping windows counts once, and the summary reads as if the whole text had
 * been scanned at once. A project that does not enforce (a draft) records but never blocks or redacts;
 * a scan over a limit (text size, time, the exchange's budget) fails closed in an enforcing project.
 */
export class DirectionGuard {
  private readonly states: EntryState[];

  constructor(
    guardrails: readonly RuntimeGuardrail[],
    private readonly compiled: (g: RuntimeGuardrail) => Scanner | Error,
    readonly direction: ScanDirection,
    readonly enforcing: boolean,
    private readonly budget: ScanBudget,
    private readonly runner?: ScanRunner,
  ) {
    this.states = guardrails
      .filter((g) => g.enabled && (g.direction === 'both' || g.direction === direction))
      .map((entry) => ({ entry, matches: new Map(), failed: false }));
  }

  /**
   * True when at least one entry applies to this direction and can run: otherwise nothing needs
   * scanning or holding back. Compiles the entries in this thread (for `scan` or `stream`).
   */
  get active(): boolean {
    return this.states.some((s) => !(this.known(s) instanceof Error));
  }

  /**
   * Scans `text`, which starts at offset `base` of the whole, in this thread. `place`: where each
   * match (in the whole's offsets) counts, or undefined when it does not; a scanner with none left
   * passed.
   */
  scan(text: string, base = 0, place?: Placement): WindowVerdict {
    const live = this.live();
    return this.apply(
      live,
      runScanJob(jobOf(live, text, this.budget), (_, i) => live[i].scanner, this.budget),
      base,
      place,
    );
  }

  /**
   * Scans `text` as `scan` does, on the scan runner when there is one (ScanPool: other threads,
   * each tenant taking its turn), so a costly scan holds up neither this event loop nor other
   * tenants' scans. On a runner, the entries compile on its thread, not this one.
   */
  async check(text: string, base = 0, place?: Placement): Promise<WindowVerdict> {
    if (!this.runner) return this.scan(text, base, place);
    // An engine type is compiled by the runner only; one that fails there comes back as not run.
    const sent = this.states.filter(
      (s) =>
        (s.scanner === undefined && ENGINE_TYPES.includes(s.entry.resolvedVersion.config.type)) ||
        !(this.known(s) instanceof Error),
    );
    if (sent.length === 0) return this.scan(text, base, place);
    const result = await this.runner(jobOf(sent, text, this.budget));
    this.budget.charge(result.spentMs);
    return this.apply(sent, result, base, place);
  }

  /**
   * Scans texts that reach the reader as separate parts (a request's system prompt and messages, an
   * answer's blocks), in the offsets of their join: the join as one text, so that a match split
   * across parts is seen whole, and also each part on its own that meets a neighbour letter to
   * letter (or digit), where the join would hide its edge: a card number right after the system
   * prompt's last word stands alone for the model, but not in the join ("helpful4111...").
   * `joined`: the parts' join, when the caller has it already.
   */
  async checkParts(parts: readonly string[], joined = parts.join('')): Promise<WindowVerdict> {
    const whole = await this.check(joined);
    if (parts.length < 2) return whole;
    let blocked = whole.blocked;
    const redactions = [...whole.redactions];
    let at = 0;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      const joinsBefore = i > 0 && !edgeHolds(parts[i - 1].at(-1), part[0]);
      const joinsAfter = i < parts.length - 1 && !edgeHolds(part.at(-1), parts[i + 1][0]);
      if (part && (joinsBefore || joinsAfter)) {
        const alone = await this.check(part, at);
        blocked ||= alone.blocked;
        redactions.push(...alone.redactions);
      }
      at += part.length;
    }
    return { blocked, redactions };
  }

  /** Whatever is known of the entry's scanner, compiling it in this thread if nothing is. */
  private known(s: EntryState): Scanner | Error | 'runner' {
    return (s.scanner ??= this.compiled(s.entry));
  }

  /** The entries that can run, compiled in this thread. */
  private live(): (EntryState & { scanner: Scanner })[] {
    for (const s of this.states)
      if (s.scanner === undefined || s.scanner === 'runner') s.scanner = this.compiled(s.entry);
    return this.states.filter((s): s is EntryState & { scanner: Scanner } => !(s.scanner instanceof Error));
  }

  /** `place`: see `scan`. */
  private apply(live: EntryState[], result: ScanJobResult, base: number, place?: Placement): WindowVerdict {
    const window: { result: ScanResultLike; entry: RuntimeGuardrail }[] = [];
    let overLimit = false;
    result.scanners.forEach((o, i) => {
      const s = live[i];
      if ('notRun' in o) {
        // As if it had failed to compile here: not run, recorded so, no effect on the verdict.
        s.scanner = new Error(o.notRun);
        return;
      }
      s.scanner ??= 'runner';
      s.startedAt ??= o.startedAt;
      s.completedAt = o.completedAt;
      if ('overLimit' in o) {
        s.overLimit ??= o.overLimit;
        overLimit = true;
        return;
      }
      let shifted = o.matches.map((m) => shift(m, base));
      let failed = o.failed;
      if (place) {
        shifted = shifted.flatMap((m) => {
          const placed = place(m);
          return placed ? [placed] : [];
        });
        failed = shifted.length > 0;
      }
      for (const m of shifted) s.matches.set(`${m[0]}:${m[1]}:${m[2]}`, m);
      if (failed) s.failed = true;
      window.push({ result: { outcome: failed ? 'failed' : 'passed', data: { matches: shifted } }, entry: s.entry });
    });
    if (!this.enforcing) return { blocked: false, redactions: [] };
    const verdict = aggregateOutcome(window, this.direction);
    return {
      blocked: overLimit || verdict.outcome === 'blocked',
      redactions: verdict.outcome === 'redacted' ? [...verdict.redactions] : [],
    };
  }

  /**
   * Guards a text that arrives in pieces (a streamed answer): the engines' stream scanner holds back
   * only from where a match could still be in progress, and reports each finding once, in offsets
   * of everything pushed plus `base` (where the first piece stands in a longer text), placed by
   * `place` as `scan`'s are. Findings are merged here as a whole-text scan's would be.
   */
  stream(cap: number, base = 0, place?: Placement): GuardStream {
    const live = this.live();
    const started = Date.now();
    for (const s of live) s.startedAt ??= started;
    let scanner: StreamScanner | undefined = createStreamScanner(
      live.map((s) => s.scanner),
      { cap, deadline: this.budget.deadline },
    );
    let length = 0;
    // Most scans of a stream find nothing: one verdict object until `safeUpTo` moves.
    let clean: WindowVerdict & { safeUpTo: number } = { blocked: false, redactions: [], safeUpTo: base };
    const cleanAt = (safeUpTo: number) => {
      if (clean.safeUpTo !== safeUpTo) clean = { blocked: false, redactions: [], safeUpTo };
      return clean;
    };
    const step = (final: boolean, text = '') => {
      if (!scanner) return { blocked: this.enforcing, redactions: [], safeUpTo: base + (final ? length : 0) };
      const current = scanner;
      const passes = current.scannedChars;
      try {
        const { safeUpTo, findings } = this.budget.run(() => (final ? current.finish() : current.push(text)));
        if (findings.length === 0) return cleanAt(base + safeUpTo);
        let placed = base ? findings.map((f) => ({ ...f, match: shift(f.match, base) })) : findings;
        if (place)
          placed = placed.flatMap((f) => {
            const match = place(f.match);
            return match ? [{ ...f, match }] : [];
          });
        if (placed.length === 0) return cleanAt(base + safeUpTo);
        return { ...this.verdictOf(live, placed), safeUpTo: base + safeUpTo };
      } catch (err) {
        if (!(err instanceof ScanLimitError)) throw err;
        for (const s of live) s.overLimit ??= err.message;
        scanner = undefined;
        return { blocked: this.enforcing, redactions: [], safeUpTo: base };
      } finally {
        if (final || current.scannedChars !== passes || !scanner) {
          const done = Date.now();
          for (const s of live) s.completedAt = done;
        }
      }
    };
    return {
      push: (text) => {
        length += text.length;
        return step(false, text);
      },
      get untilScan() {
        return scanner ? scanner.untilScan : 0;
      },
      finish: () => step(true),
    };
  }

  private verdictOf(live: EntryState[], findings: readonly StreamFinding[]): WindowVerdict {
    const window = findings.map((f) => {
      const s = live[f.scanner];
      s.matches.set(`${f.match[0]}:${f.match[1]}:${f.match[2]}`, f.match);
      s.failed = true;
      return { result: { outcome: 'failed', data: { matches: [f.match] } } as ScanResultLike, entry: s.entry };
    });
    if (!this.enforcing || window.length === 0) return { blocked: false, redactions: [] };
    const verdict = aggregateOutcome(window, this.direction);
    // A redaction of a match whose end was not yet known would leave the rest of it unmasked: blocked instead.
    const cutShort = findings.some((f, i) => f.cutShort && verdict.effects[i] === 'redact');
    return {
      blocked: verdict.outcome === 'blocked' || cutShort,
      redactions: verdict.outcome === 'redacted' && !cutShort ? [...verdict.redactions] : [],
    };
  }

  summary(): GuardSummary {
    const now = new Date().toISOString();
    const scans = this.states.flatMap((s) =>
      this.known(s) instanceof Error || s.overLimit
        ? []
        : [
            {
              result: {
                outcome: s.failed ? 'failed' : 'passed',
                data: { matches: [...s.matches.values()] },
              } as ScanResultLike,
              entry: s.entry,
            },
          ],
    );
    const verdict = aggregateOutcome(scans, this.direction);
    const overLimit = this.states.find((s) => s.overLimit)?.overLimit;
    const messages: string[] = [];
    const actedSpans: Span[] = [];
    scans.forEach((scan, i) => {
      if (verdict.effects[i] === 'none') return;
      if (scan.entry.flagMessage) messages.push(scan.entry.flagMessage);
      for (const m of scan.result.data.matches) actedSpans.push([m[0], m[1]]);
    });
    if (overLimit) messages.push(`scan limit exceeded: ${overLimit}`);
    let outcome: PromptOutcome = verdict.outcome;
    if (!this.enforcing)
      outcome = scans.some((s) => s.result.outcome === 'failed') || overLimit ? 'flagged' : 'cleared';
    else if (overLimit) outcome = 'blocked';
    const results = this.states.map((s): ScannerResultRecord => {
      const scanner = this.known(s);
      if (scanner instanceof Error)
        return record(s.entry, this.direction, 'passed', s.entry.type, [], `not run: ${scanner.message}`, now, now);
      // A scanner's type is its config's (what compileScanner builds for it).
      const type = scanner === 'runner' ? String(s.entry.resolvedVersion.config.type) : scanner.type;
      if (s.overLimit)
        return record(
          s.entry,
          this.direction,
          'failed',
          type,
          [],
          `scan limit exceeded: ${s.overLimit}`,
          iso(s.startedAt) ?? now,
          iso(s.completedAt) ?? now,
        );
      const matches = [...s.matches.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const msg = s.failed ? s.entry.flagMessage || `${s.entry.name} matched` : '';
      return record(
        s.entry,
        this.direction,
        s.failed ? 'failed' : 'passed',
        type,
        matches,
        msg,
        iso(s.startedAt) ?? now,
        iso(s.completedAt) ?? now,
      );
    });
    const redactions = this.enforcing ? [...verdict.redactions] : [];
    return { outcome, results, messages, actedSpans, redactions };
  }
}

/** Where a match counts (see `DirectionGuard.scan`), or undefined when it does not. */
export type Placement = (match: ScanMatch) => ScanMatch | undefined;

/** Combines the request and response outcomes of one prompt: the worse one wins. */
export function worstOutcome(a: PromptOutcome, b: PromptOutcome): PromptOutcome {
  const rank: Record<PromptOutcome, number> = { cleared: 0, flagged: 1, redacted: 2, blocked: 3 };
  return rank[a] >= rank[b] ? a : b;
}

function shift(m: ScanMatch, by: number): ScanMatch {
  return [m[0] + by, m[1] + by, m[2]];
}

/** The last instant iso() formatted: a summary's scans mostly start and end within the same millisecond. */
let lastIso = { ms: NaN, text: '' };

function iso(ms: number | undefined): string | undefined {
  if (ms === undefined) return undefined;
  if (ms !== lastIso.ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

function record(
  g: RuntimeGuardrail,
  direction: ScanDirection,
  outcome: 'passed' | 'failed',
  type: string,
  matches: readonly ScanMatch[],
  message: string,
  startedDate: string,
  completedDate: string,
): ScannerResultRecord {
  return {
    scannerId: g.id,
    outcome,
    scanDirection: direction,
    data: { type, matches: [...matches] },
    message,
    customConfig: !g.builtIn,
    startedDate,
    completedDate,
    // What the record keeps of the version (ScannerVersionRef); views show the rest of the spec's meta empty.
    scannerVersionMeta: {
      id: g.resolvedVersion.id,
      name: g.resolvedVersion.name,
      published: g.resolvedVersion.published,
      direction: g.resolvedVersion.direction,
    },
  };
}
