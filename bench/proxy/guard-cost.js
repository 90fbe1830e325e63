// The message proxy's answer guard on its own, in this process (a section of `pnpm bench:proxy`):
// a 1 MB streamed answer, as SSE text in deltas of a few sizes, read in upstream reads of a few
// sizes as the proxy reads them (SseParser, readStreamEvents) and fed to the real AnswerStreamGuard
// and DirectionGuard (apps/message-proxy, built to dist), next to scanning the same text once with
// the same scanners. No stack, no NATS: only what reading and guarding cost.
'use strict';
const path = require('node:path');
const v8 = require('node:v8');
const vm = require('node:vm');

const PATTERNS = ['\\bpassword\\s*[:=]\\s*\\S+', '\\b(?:api|secret)[_-]?key\\b', '\\bconfidential\\b'];
const WORDS = 'the quarterly numbers look steady and the board will review the forecast on Thursday morning '.split(
  ' ',
);

/** A project entry as the projects service resolves it for the proxy. */
function entry(i, config, kind = 'scanner') {
  return {
    id: `bench-${i}`,
    kind,
    name: `bench-${i}`,
    type: config.type,
    builtIn: kind === 'package',
    version: 'latest',
    enabled: true,
    blocking: true,
    force: false,
    mode: 'block',
    direction: 'both',
    flagMessage: '',
    resolvedVersion: { id: `bench-${i}-v1`, name: 'v_1', published: true, direction: 'both', config },
  };
}

/** The SSE text cut into reads of `bytes` characters, wherever that cuts (mid-event, mid-line). */
function inReads(sse, bytes) {
  const reads = [];
  for (let at = 0; at < sse.length; at += bytes) reads.push(sse.slice(at, at + bytes));
  return reads;
}

function prose(chars) {
  let s = '';
  for (let i = 0; s.length < chars; i++) s += `${WORDS[i % WORDS.length]} `;
  return s.slice(0, chars);
}

/** The `data:` of each event of one streamed answer, as the upstream sends them. */
function answerEvents(text, deltaChars) {
  const out = [
    {
      type: 'message_start',
      message: {
        id: 'msg_bench',
        type: 'message',
        role: 'assistant',
        model: 'claude-bench',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 12, output_tokens: 1 },
      },
    },
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ];
  for (let at = 0; at < text.length; at += deltaChars)
    out.push({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: text.slice(at, at + deltaChars) },
    });
  out.push(
    { type: 'content_block_stop', index: 0 },
    { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } },
    { type: 'message_stop' },
  );
  return out.map((e) => JSON.stringify(e));
}

/** A full collection before each timed run, so one run's garbage is not charged to the next. */
function collector() {
  if (typeof globalThis.gc === 'function') return globalThis.gc;
  v8.setFlagsFromString('--expose-gc');
  return vm.runInNewContext('gc');
}

/**
 * Prints, per scanner set and delta size: CPU ms of scanning the text once (scanAll: one canonical
 * form, every scanner), of guarding it as a stream, and of the same guard with no scanner (the
 * per-event work every stream pays); the ratios to scanning once. Best of `reps` interleaved runs.
 */
async function guardCost({
  root,
  chars = 1 << 20,
  deltas = [16, 64, 256],
  readSizes = [0, 4096],
  reps = 7,
  log = console.log,
}) {
  const g = require(path.join(root, 'libs', 'guardrails', 'dist', 'index.js'));
  const dist = path.join(root, 'apps', 'message-proxy', 'dist');
  const { AnswerStreamGuard } = require(path.join(dist, 'guard', 'answer-stream-guard.js'));
  const { DirectionGuard, ScanBudget } = require(path.join(dist, 'guard', 'direction-guard.js'));
  const { compiledGuardrail } = require(path.join(dist, 'guard', 'compiled-guardrails.js'));
  const { ProxyConfig } = require(path.join(dist, 'config.js'));
  const { readStreamEvents } = require(path.join(dist, 'anthropic', 'stream-event.js'));
  const { SseParser, formatSse } = require(path.join(dist, 'anthropic', 'sse.js'));
  const config = new ProxyConfig();
  const gc = collector();

  const regex = PATTERNS.map((p, i) => entry(i, { type: 'regex', patterns: [p] }));
  const sets = [
    ['3 regex', regex],
    ['3 regex + PII package', [...regex, entry(3, { type: 'pii' }, 'package')]],
  ];
  const text = prose(chars);

  // The upstream's reads, read as the proxy reads them (SseParser, readStreamEvents): `readAll` is
  // that reading, timed on its own. The guard is timed pushing what was just read (fresh, as young
  // as in the proxy), so its figure is not the difference of two noisy larger ones.
  const readAll = (reads) => {
    const parser = new SseParser();
    return reads.map((read) => readStreamEvents(parser.push(read)).events);
  };
  const guardOnce = (entries, perRead) => {
    const guard = new DirectionGuard(
      entries,
      compiledGuardrail,
      'response',
      true,
      new ScanBudget(config.SCAN_BUDGET_MS),
    );
    const answer = new AnswerStreamGuard(guard, config.STREAM_HOLDBACK_CHARS, false);
    let left = 0;
    for (const events of perRead) {
      for (const event of events) {
        const step = answer.push(event);
        if (step.stop) throw new Error(`the guard stopped a clean answer: ${step.stop.detail}`);
        left += step.events.length;
      }
    }
    const end = answer.finish();
    if (end.stop) throw new Error(`the guard stopped a clean answer: ${end.stop.detail}`);
    left += end.events.length;
    const results = guard.summary().results;
    if (results.some((r) => r.outcome !== 'passed'))
      throw new Error('a scanner did not pass the clean answer (over the scan budget?)');
    return left;
  };
  // A full collection before each run, then a pause so its concurrent sweeping (on other threads,
  // which process.cpuUsage counts too) is over before the clock starts.
  const cpuOf = async (fn) => {
    gc();
    await new Promise((r) => setTimeout(r, 30));
    const t = process.cpuUsage();
    const out = fn();
    const d = process.cpuUsage(t);
    return { ms: (d.user + d.system) / 1000, out };
  };
  // The least CPU of several runs: the work is the same each time, and on a shared machine other
  // processes only ever add to it (cache, frequency, GC helpers), so the minimum is its cost.
  const best = (xs) => Math.min(...xs);
  const f = (x, d = 1) => x.toFixed(d);

  log(
    `\nThe answer guard alone, in-process (apps/message-proxy AnswerStreamGuard + DirectionGuard, hold-back cap ${config.STREAM_HOLDBACK_CHARS}, scan budget ${config.SCAN_BUDGET_MS} ms):`,
  );
  log(
    `${chars >> 10} KB of clean prose; CPU ms, best of ${reps} interleaved runs. once: scanAll over the whole text. guard: the SSE text read as the proxy reads it, in upstream reads of`,
  );
  log(
    '"read" bytes (1 event: each event in a read of its own, an upstream slower than the proxy), then each read\'s events pushed to the guard;',
  );
  log(
    '"guard ms" times the pushes alone, "read ms" the reading alone. no scanner: the same guard with none, the per-event work every stream pays; scanners\' share: guard less that.',
  );
  log(
    "scanners                 delta  events     read   read ms   once ms   guard ms  x once   no scanner ms  scanners' share ms  x once  events out",
  );
  const rows = [];
  for (const [name, entries] of sets) {
    const scanners = entries.map(compiledGuardrail);
    for (const deltaChars of deltas) {
      const sse = answerEvents(text, deltaChars).map((data) => formatSse({ event: JSON.parse(data).type, data }));
      for (const readBytes of readSizes) {
        const reads = readBytes > 0 ? inReads(sse.join(''), readBytes) : sse;
        // Warm, as a running proxy is: compiled scanners and shared stream parts are cached.
        g.scanAll(scanners, text);
        guardOnce(entries, readAll(reads));
        guardOnce([], readAll(reads));
        const once = [];
        const guarded = [];
        const bare = [];
        const parse = [];
        let released = 0;
        for (let i = 0; i < reps; i++) {
          once.push((await cpuOf(() => g.scanAll(scanners, text))).ms);
          parse.push((await cpuOf(() => readAll(reads))).ms);
          const fresh = readAll(reads);
          const run = await cpuOf(() => guardOnce(entries, fresh));
          guarded.push(run.ms);
          released = run.out;
          const again = readAll(reads);
          bare.push((await cpuOf(() => guardOnce([], again))).ms);
        }
        const p = best(parse);
        const r = {
          name,
          deltaChars,
          readBytes,
          events: sse.length,
          once: best(once),
          guard: best(guarded),
          bare: best(bare),
          parse: p,
          released,
        };
        rows.push(r);
        log(
          `${name.padEnd(24)} ${String(deltaChars).padStart(5)} ${String(r.events).padStart(7)} ${(readBytes ? String(readBytes) : '1 event').padStart(8)} ${f(r.parse).padStart(9)} ${f(r.once).padStart(9)} ${f(r.guard).padStart(10)} ${f(r.guard / r.once, 2).padStart(7)} ${f(r.bare).padStart(15)} ${f(Math.max(0, r.guard - r.bare)).padStart(19)} ${f(Math.max(0, r.guard - r.bare) / r.once, 2).padStart(7)} ${String(released).padStart(11)}`,
        );
      }
    }
  }
  const worstOf = (xs) => xs.reduce((a, b) => (b.guard / b.once > a.guard / a.once ? b : a));
  const worstLine = (xs) => {
    const w = worstOf(xs);
    return `${f(w.guard / w.once, 2)}x (${w.name}, ${w.deltaChars}-character deltas)`;
  };
  const byReads = readSizes.filter((b) => b > 0);
  for (const b of byReads)
    log(
      `target: guarding a 1 MB streamed answer costs <= 3x scanning it once; highest ratio here, in reads of ${b} bytes: ${worstLine(rows.filter((r) => r.readBytes === b))}`,
    );
  if (readSizes.includes(0))
    log(
      `with every event in a read of its own (no upstream is that slow at 1 MB): ${worstLine(rows.filter((r) => r.readBytes === 0))}`,
    );
  return rows;
}

module.exports = { guardCost, prose };
