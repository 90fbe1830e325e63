import RE2 from 're2';
import { MATCH_CONTEXT, MATCH_LENGTH_CAP, maxMatchLength } from '../bounds/match-length';
import { isHighSurrogate, isLowSurrogate } from '../engine/text-boundaries';
import type { ScanDeadline } from '../budget/scan-deadline';
import { StreamCanonicalizer } from '../canonical/canonicalize';
import { MAX_SCAN_MATCHES } from '../config/scanner-limits';
import type { RuleMatch } from '../engine/rule-matcher';
import { EngineScanner } from '../scanners/engine-scanner';
import { ScanLimitError } from '../scanners/scan-limit.error';
import type { ScanMatch, ScanResult } from '../scanners/scan-result';
import type { Scanner } from '../scanners/scanner';
import { LiveStarts } from './live-starts';

type RE2Set = ReturnType<typeof RE2.Set>;

const NO_FINDINGS: readonly StreamFinding[] = Object.freeze([]);

/** Memory budget of the combined set (as RuleMatcher's). */
const SET_MAX_MEM = 64 * 1024 * 1024;

/** What streams over the same scanners share: built once, kept for the most recent 256 sets. */
const STREAM_PARTS_CACHE = 256;
const streamParts = new Map<string, { set: RE2Set | undefined; live: LiveStarts }>();

function sharedParts(engines: readonly EngineScanner[], cap: number): { set: RE2Set | undefined; live: LiveStarts } {
  const key = `${cap}:${engines.map((e) => e.serial).join(',')}`;
  let parts = streamParts.get(key);
  if (parts) {
    streamParts.delete(key);
    streamParts.set(key, parts);
    return parts;
  }
  parts = { set: combinedSet(engines), live: new LiveStarts(engines, maxMatchLength(engines, cap)) };
  if (streamParts.size >= STREAM_PARTS_CACHE) streamParts.delete(streamParts.keys().next().value as string);
  streamParts.set(key, parts);
  return parts;
}

/** Rules above which scanners keep their own sets rather than compile another combined one. */
const COMBINED_SET_RULES = 200;

function combinedSet(engines: readonly EngineScanner[]): RE2Set | undefined {
  const rules = engines.reduce((n, e) => n + e.matcher.rules.length, 0);
  if (engines.length < 2 || rules > COMBINED_SET_RULES) return undefined;
  const sources = engines.flatMap((engine) => {
    const caseless = engine.matcher.flags.includes('i');
    return engine.matcher.rules.map((rule) => (caseless ? `(?i:${rule.source})` : rule.source));
  });
  if (sources.length === 0) return undefined;
  try {
    return new RE2.Set(sources, 'u', { maxMem: SET_MAX_MEM });
  } catch {
    return undefined;
  }
}

export interface StreamScannerOptions {
  /** Longest match held back for (canonical units); longer matches may be released in part. Default MATCH_LENGTH_CAP. */
  readonly cap?: number;
  /**
   * Scan again only once this many new canonical characters have arrived (default 32): a stream
   * of 4-character deltas is not rescanned 4 characters at a time. Chunks wait, as they came,
   * until that many characters have been pushed, so a stream of small deltas is canonicalized in
   * few large pieces, not one per delta. `finish` always scans.
   */
  readonly minStep?: number;
  /**
   * Also wait for this fraction of what has arrived before scanning again (default 1/64): a long
   * answer is scanned in steps that grow with it, so the fixed cost of a pass stays a small part
   * of the work (1 MB in about 500 passes), at the price of releasing a long answer in bursts of
   * about 1.5% of its length. 0 scans every `minStep` characters.
   */
  readonly stepFraction?: number;
  /** The request's total scan budget; past it `push`/`finish` throw ScanLimitError('budget'). */
  readonly deadline?: ScanDeadline;
  /** Findings per scanner before ScanLimitError('matches'). Default MAX_SCAN_MATCHES. */
  readonly maxMatches?: number;
}

/** One finding: which scanner (index into the scanners given) and the match, in stream offsets. */
export interface StreamFinding {
  readonly scanner: number;
  /** `[start, end, rule]`: UTF-16 offsets into the original stream (everything pushed so far). */
  readonly match: ScanMatch;
  /**
   * Reported before it was known where it ends: it reached the end of the text so far (its right
   * context unseen) when it already ran past `cap`, so what follows may belong to it too (the
   * body of a private key longer than the hold-back). A mask over `match` would not cover it all.
   */
  readonly cutShort?: true;
}

export interface StreamStep {
  /**
   * Original offset (into everything pushed) before which no finding can still appear: the text
   * before it may be released, once masked or refused according to the findings so far.
   */
  readonly safeUpTo: number;
  /** Findings first known at this step (each finding is reported once, in no particular order). */
  readonly findings: readonly StreamFinding[];
}

export interface StreamScanner {
  /** Adds a chunk of the answer. */
  push(chunk: string): StreamStep;
  /** The answer is complete: scans what is left; `safeUpTo` is then the whole length. */
  finish(): StreamStep;
  readonly safeUpTo: number;
  /** Every finding so far, per scanner, in the `scan` result shape (for records and outcome aggregation). */
  results(): ScanResult[];
  /**
   * Characters a push may bring and only wait (no scan, nothing new safe, no findings): a caller
   * that times or counts scans can skip that for them. 0 once finished or when nothing is scanned.
   */
  readonly untilScan: number;
  /** Canonical characters handed to RE2 so far (each scan pass counted), to show scanning is linear. */
  readonly scannedChars: number;
  /** Canonical characters so far (chunks still waiting for the next scan step not yet counted). */
  readonly canonicalLength: number;
}

interface RuleState {
  /** Index into the stream's list of every rule of every scanner. */
  readonly index: number;
  readonly scanner: number;
  readonly rule: number;
  /** Absolute canonical offset where this rule's search continues. */
  resume: number;
}

/**
 * Scans a growing text (a streamed answer) with several compiled scanners so that:
 *
 * - every finding of scanning the whole text at once is reported, with the same offsets, by the
 *   time `safeUpTo` passes its start (matches no longer than `cap`, context no wider than
 *   MATCH_CONTEXT); nothing is reported twice;
 * - each character is scanned a bounded number of times: a pass covers the new text, the part of
 *   a match that may still be in progress, and MATCH_CONTEXT characters around it.
 *
 * How: each rule keeps the offset where its search continues, exactly as a whole-text scan would
 * continue after its previous match. A candidate is final once no match could start at or before
 * it that is still in progress (LiveStarts: the earliest position from which the text so far is
 * the beginning of a possible match) and MATCH_CONTEXT characters follow it; until then the scan
 * stops there and `safeUpTo` stays before it. A candidate whose confirmed span reaches the end of
 * the text (a private key whose END line has not come) is likewise held.
 *
 * With no scanners, nothing is held back: `safeUpTo` follows the input (less an unfinished
 * character, see unstableTail).
 */
export function createStreamScanner(scanners: readonly Scanner[], options: StreamScannerOptions = {}): StreamScanner {
  return new GuardedStream(scanners, options);
}

class GuardedStream implements StreamScanner {
  private readonly engines: EngineScanner[];
  private readonly canon = new StreamCanonicalizer();
  private readonly rules: RuleState[] = [];
  /** Index in `rules` of each scanner's first rule. */
  private readonly firstRule: number[] = [];
  /** One automaton for every rule of every scanner, to tell which rules a window holds. */
  private readonly anySet: RE2Set | undefined;
  /**
   * Rules whose search continues somewhere other than `floor`. Every other rule continues at
   * `floor`: a clean window moves them all on at once, not one by one.
   */
  private readonly special = new Set<RuleState>();
  private floor = 0;
  private readonly live: LiveStarts;
  private readonly cap: number;
  private readonly minStep: number;
  private readonly stepFraction: number;
  private readonly maxMatches: number;
  /** Characters of context the scanners read beyond a match (see MATCH_CONTEXT). */
  private readonly context: number;
  private readonly found: ScanMatch[][];
  private readonly seen = new Set<string>();
  /** Canonical text from `bufStart` on. */
  private buffer = '';
  private bufStart = 0;
  private lastScanEnd = 0;
  private safeCanonical = 0;
  private safeOriginal = 0;
  private scanned = 0;
  private done = false;
  private received = 0;
  private idle: StreamStep = { safeUpTo: 0, findings: NO_FINDINGS };
  private lastHigh = false;
  /** Where the last search for a match in progress found the first (see LiveStarts.earliest). */
  private searchedLive = 0;
  /** Chunks pushed but not yet canonicalized, and their length. */
  private waiting: string[] = [];
  private waitingLength = 0;

  constructor(
    scanners: readonly Scanner[],
    private readonly options: StreamScannerOptions,
  ) {
    this.engines = scanners.map((s) => {
      if (!(s instanceof EngineScanner))
        throw new TypeError(`stream scanning needs compiled engine scanners, got ${s.type}`);
      return s;
    });
    this.cap = options.cap ?? MATCH_LENGTH_CAP;
    this.minStep = Math.max(1, options.minStep ?? 32);
    this.stepFraction = options.stepFraction ?? 1 / 64;
    this.maxMatches = options.maxMatches ?? MAX_SCAN_MATCHES;
    this.found = this.engines.map(() => []);
    // Regex and keyword rules read one code point beyond a match (\b, $, whole words); the
    // detectors' confirmations up to MATCH_CONTEXT.
    this.context = this.engines.some((e) => e.type === 'pii' || e.type === 'secrets') ? MATCH_CONTEXT : 2;
    this.engines.forEach((engine, scanner) => {
      this.firstRule.push(this.rules.length);
      engine.matcher.rules.forEach((_, rule) =>
        this.rules.push({ index: this.rules.length, scanner, rule, resume: 0 }),
      );
    });
    const shared = sharedParts(this.engines, this.cap);
    this.anySet = shared.set;
    this.live = shared.live;
  }

  get safeUpTo(): number {
    return this.safeOriginal;
  }

  get untilScan(): number {
    if (this.done || this.rules.length === 0) return 0;
    return Math.max(0, this.due() - (this.canon.length - this.lastScanEnd) - this.waitingLength - 1);
  }

  /** Characters after the last scan that make the next one due. */
  private due(): number {
    return Math.max(this.minStep, Math.floor(this.lastScanEnd * this.stepFraction));
  }

  get scannedChars(): number {
    return this.scanned;
  }

  get canonicalLength(): number {
    return this.canon.length;
  }

  push(chunk: string): StreamStep {
    if (this.done) throw new Error('push after finish');
    if (this.rules.length === 0) return this.passThrough(chunk);
    this.waiting.push(chunk);
    this.waitingLength += chunk.length;
    const due = this.due();
    // Until `due` characters have come (canonical ones since the last scan, and those waiting),
    // nothing can be due in canonical characters either (but for rare expanding forms such as
    // ligatures, which then wait a little longer: held, not lost).
    if (this.canon.length - this.lastScanEnd + this.waitingLength < due) return this.unchanged();
    this.canonicalizeWaiting();
    if (this.canon.length - this.lastScanEnd < due) return this.unchanged();
    return this.step(false);
  }

  finish(): StreamStep {
    if (this.done) return { safeUpTo: this.safeOriginal, findings: [] };
    this.done = true;
    if (this.rules.length === 0) {
      this.safeOriginal = this.received;
      return { safeUpTo: this.safeOriginal, findings: [] };
    }
    this.canonicalizeWaiting();
    this.append(this.canon.finish());
    return this.step(true);
  }

  private canonicalizeWaiting(): void {
    if (this.waitingLength === 0) return;
    const text = this.waiting.length === 1 ? this.waiting[0] : this.waiting.join('');
    this.waiting = [];
    this.waitingLength = 0;
    this.append(this.canon.push(text));
  }

  /** No new scan: what is safe stays as it was (one object, reused until it changes). */
  private unchanged(): StreamStep {
    if (this.idle.safeUpTo !== this.safeOriginal) this.idle = { safeUpTo: this.safeOriginal, findings: NO_FINDINGS };
    return this.idle;
  }

  /** No scanner: nothing is held but half of a surrogate pair. */
  private passThrough(chunk: string): StreamStep {
    this.received += chunk.length;
    const last = chunk.charCodeAt(chunk.length - 1);
    this.lastHigh = chunk.length > 0 ? last >= 0xd800 && last <= 0xdbff : this.lastHigh;
    this.safeOriginal = this.received - (this.lastHigh ? 1 : 0);
    return { safeUpTo: this.safeOriginal, findings: [] };
  }

  results(): ScanResult[] {
    const now = new Date().toISOString();
    return this.engines.map((engine, i) => {
      const matches = [...this.found[i]].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      return {
        outcome: matches.length ? 'failed' : 'passed',
        data: { type: engine.type, matches },
        startedDate: now,
        completedDate: now,
        durationMs: 0,
      };
    });
  }

  private append(added: string): void {
    if (added) this.buffer += added;
  }

  private step(final: boolean): StreamStep {
    this.options.deadline?.check();
    const end = this.canon.length;
    this.lastScanEnd = end;
    const findings: StreamFinding[] = [];
    // Starts at or before `finalBefore` can no longer begin a different match.
    let liveFrom = Infinity;
    if (!final) {
      const starts = this.live.earliest(this.buffer, this.bufStart, end, this.searchedLive);
      liveFrom = starts.live;
      this.searchedLive = starts.searched;
    }
    const finalBefore = final ? Infinity : Math.min(liveFrom, end - this.context) - 1;
    let held = Infinity;
    const winStart = Math.max(this.bufStart, this.minResume() - this.context);
    const window = this.buffer.slice(winStart - this.bufStart);
    this.scanned += window.length;
    const t0 = performance.now();
    const hits = this.rulesHitIn(window);
    for (const index of hits) {
      const state = this.rules[index];
      if (!this.special.has(state)) state.resume = this.floor;
      held = Math.min(
        held,
        this.runRule(this.engines[state.scanner], state, window, winStart, end, finalBefore, final, findings),
      );
      this.special.add(state);
    }
    if (!final) {
      // A rule with no match anywhere in the window has nothing starting at or before finalBefore.
      const floor = Math.max(this.floor, finalBefore + 1);
      const hit = new Set(hits);
      for (const state of this.special) {
        if (!hit.has(state.index)) state.resume = Math.max(state.resume, floor);
        if (state.resume === floor) this.special.delete(state);
      }
      this.floor = floor;
    }
    this.options.deadline?.spend(performance.now() - t0);
    // Keep only what the next pass reads.
    const keepFrom = Math.max(this.bufStart, this.minResume() - this.context);
    this.buffer = this.buffer.slice(keepFrom - this.bufStart);
    this.bufStart = keepFrom;
    const safe = final ? end : Math.min(finalBefore + 1, held);
    return this.advance(safe, findings);
  }

  /** Where the earliest rule's search continues: the floor, unless every rule is past it. */
  private minResume(): number {
    let min = this.special.size < this.rules.length ? this.floor : Infinity;
    for (const state of this.special) min = Math.min(min, state.resume);
    return min;
  }

  /** Indexes (into `rules`) of the rules that match somewhere in `window`: one RE2.Set pass for all. */
  private rulesHitIn(window: string): readonly number[] {
    if (this.anySet) {
      try {
        // `test` first: most windows hold nothing, and it is much cheaper than `match`.
        return this.anySet.test(window) ? this.anySet.match(window) : [];
      } catch {
        // Out of memory on this window: ask each engine's own set.
      }
    }
    const hits: number[] = [];
    this.engines.forEach((engine, scanner) => {
      for (const rule of engine.matcher.rulesThatMatch(window)) hits.push(this.firstRule[scanner] + rule);
    });
    return hits;
  }

  /** Runs one rule from where it stopped; returns the start of a held candidate, or Infinity. */
  private runRule(
    engine: EngineScanner,
    state: RuleState,
    window: string,
    base: number,
    end: number,
    finalBefore: number,
    final: boolean,
    findings: StreamFinding[],
  ): number {
    const re = engine.matcher.regexes[state.rule];
    const confirm = engine.matcher.rules[state.rule].confirm;
    let searchFrom = state.resume;
    re.lastIndex = searchFrom - base;
    for (let m = re.exec(window); m !== null; m = re.exec(window)) {
      this.options.deadline?.check();
      const start = base + m.index;
      const value = m[0];
      if (start > finalBefore) break;
      if (value.length === 0) {
        if (m.index >= window.length) break;
        re.lastIndex = nextIndex(window, m.index);
        searchFrom = base + re.lastIndex;
        continue;
      }
      const verdict = confirm ? confirm(value, window, m.index) : true;
      const spans: (readonly [number, number])[] =
        verdict === true
          ? [[start, start + value.length]]
          : verdict === false
            ? []
            : verdict.map(([s, e]) => [s + base, e + base] as const);
      const reach = Math.max(start + value.length, ...spans.map(([, e]) => e));
      const open = !final && reach > end - this.context;
      if (open && end - start <= this.cap) {
        // Its confirmed span may still grow (or its right context is unseen): hold it.
        state.resume = searchFrom;
        return start;
      }
      if (verdict === true || spans.length > 0) {
        for (const [s, e] of spans) this.report(engine, state, s, e, findings, open);
      } else if (engine.matcher.retryInsideRefused) {
        re.lastIndex = nextIndex(window, m.index);
      }
      searchFrom = base + re.lastIndex;
    }
    state.resume = final ? end : Math.max(searchFrom, finalBefore + 1);
    if (state.resume > base && state.resume - base < window.length && isLowSurrogateAt(window, state.resume - base))
      state.resume--;
    return Infinity;
  }

  private report(
    engine: EngineScanner,
    state: RuleState,
    start: number,
    end: number,
    findings: StreamFinding[],
    cutShort = false,
  ): void {
    const key = `${state.scanner}:${state.rule}:${start}:${end}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const rm: RuleMatch = { start, end, rule: state.rule };
    const [match] = engine.toMatches([rm], { original: '', toOriginal: (s, e) => this.canon.toOriginal(s, e) });
    const list = this.found[state.scanner];
    list.push(match.slice(0, 3) as unknown as ScanMatch);
    if (list.length > this.maxMatches) throw new ScanLimitError('matches', this.maxMatches);
    const found = match.slice(0, 3) as unknown as ScanMatch;
    findings.push(
      cutShort ? { scanner: state.scanner, match: found, cutShort } : { scanner: state.scanner, match: found },
    );
  }

  private advance(safeCanonical: number, findings: StreamFinding[]): StreamStep {
    const safe = Math.max(this.safeCanonical, Math.min(safeCanonical, this.canon.length));
    this.safeCanonical = safe;
    const original = safe >= this.canon.length ? this.canon.consumed : this.canon.toOriginal(safe, safe)[0];
    this.safeOriginal = Math.max(this.safeOriginal, original);
    return { safeUpTo: this.safeOriginal, findings };
  }
}

function nextIndex(text: string, index: number): number {
  const c = text.charCodeAt(index);
  return index + (isHighSurrogate(c) && isLowSurrogateAt(text, index + 1) ? 2 : 1);
}

function isLowSurrogateAt(text: string, index: number): boolean {
  return isLowSurrogate(text.charCodeAt(index));
}
