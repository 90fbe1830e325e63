// One tenant's heavy work next to another tenant's ordinary requests (a section of
// `pnpm bench:proxy`): tenant B sends guarded requests at a fixed, moderate rate (open loop: each
// request leaves at its scheduled time whatever the others do, and its latency counts from that
// time), measured alone and then while tenant A runs the worst configuration the API accepts,
// sending prompts near the body limit from many connections at once.
'use strict';
const http = require('node:http');
const { isMainThread, parentPort, Worker, workerData } = require('node:worker_threads');
const os = require('node:os');

/**
 * Tenant A's worst allowed configuration: MAX_PROJECT_ENTRIES regex scanners of MAX_PATTERNS
 * patterns each, every pattern one the validator accepts (small RE2 program) whose every match
 * makes RE2 read to the end of the text: `a[^#]*b|a` on a text with an "a" every few dozen
 * characters and no "b" collects its matches in quadratic time, so each scanner runs into its own
 * SCAN_TIME_BUDGET_MS and the request into the proxy's SCAN_BUDGET_MS. The prompt is just under
 * the gateway's BODY_LIMIT_BYTES.
 */
function hostilePatterns(scanner, count) {
  return Array.from({ length: count }, (_, i) => `a[^#]*b${scanner}x${i}|a`);
}

function hostilePrompt(bytes) {
  const unit = `${'lorem ipsum dolor sit amet consectetur '.slice(0, 39)}a`;
  return unit.repeat(Math.floor(bytes / unit.length));
}

const { quantile } = require('../support/stats');
const f = (x, d = 1) => (x === undefined || !Number.isFinite(x) ? '-' : x.toFixed(d));

/** One POST; resolves with its status and the ms from `scheduled` (a performance.now time) to its end. */
function post(agent, url, headers, body, scheduled) {
  return new Promise((resolve) => {
    const req = http.request(
      url,
      { method: 'POST', agent, headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        const timing = res.headers['server-timing'];
        res.on('end', () => resolve({ status: res.statusCode, ms: performance.now() - scheduled, timing }));
        res.on('error', () => resolve({ status: 0, ms: performance.now() - scheduled }));
      },
    );
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, ms: performance.now() - scheduled }));
    req.end(body);
  });
}

/** Tenant B's open loop: `rps` requests a second for `seconds`; latency from each scheduled start. */
async function openLoop(agent, target, body, rps, seconds) {
  const n = Math.round(rps * seconds);
  const interval = 1000 / rps;
  const t0 = performance.now() + 20;
  const pending = [];
  for (let i = 0; i < n; i++) {
    const at = t0 + i * interval;
    const wait = at - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(post(agent, target.url, target.headers, body, at));
  }
  const results = await Promise.all(pending);
  return {
    ms: results.map((r) => r.ms),
    timings: results.map((r) => ({ ms: r.ms, phases: phasesOf(r.timing) })),
    failed: results.filter((r) => r.status !== 200).length,
    load: os.loadavg()[0],
  };
}

/**
 * The proxy's event-loop delay since the last call, in ms (max and p99), from its /metrics:
 * prom-client's histogram is reset at each scrape, so a call before a phase starts it afresh.
 */
async function loopDelay(url) {
  try {
    const text = await (await fetch(`${url}/metrics`)).text();
    const gauge = (name) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text)?.[1]) * 1000;
    return { max: gauge('nodejs_eventloop_lag_max_seconds'), p99: gauge('nodejs_eventloop_lag_p99_seconds') };
  } catch {
    return { max: NaN, p99: NaN };
  }
}

/** The event-loop delay of the apps B's requests go through (gateway, message proxy), since the last call. */
async function loopDelays(ours) {
  return { gateway: await loopDelay(ours.ops.gateway), proxy: await loopDelay(ours.ops['message-proxy']) };
}

/** `auth;dur=0.4, rpc;dur=1.2` as { auth: 0.4, rpc: 1.2 }. */
function phasesOf(header) {
  const out = {};
  for (const part of String(header ?? '').split(',')) {
    const m = /^\s*([a-z]+);dur=([0-9.]+)/.exec(part);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/**
 * Where the slowest 2% of requests spent their time: the mean of each Server-Timing phase, and
 * `outside` = what the client measured less the phases (waiting to be sent, read and answered).
 */
function slowestPhases(runs) {
  const all = runs.flatMap((r) => r.timings).sort((a, b) => b.ms - a.ms);
  const slow = all.slice(0, Math.max(1, Math.ceil(all.length * 0.02)));
  const sums = {};
  for (const t of slow) {
    let inside = 0;
    for (const [k, v] of Object.entries(t.phases)) {
      sums[k] = (sums[k] ?? 0) + v;
      inside += v;
    }
    sums.outside = (sums.outside ?? 0) + Math.max(0, t.ms - inside);
  }
  return Object.entries(sums)
    .map(([k, v]) => `${k} ${f(v / slow.length)}`)
    .join(', ');
}

/** Latency figures of several open-loop runs pooled, and each run's p99. */
function pooled(runs) {
  const ms = runs.flatMap((r) => r.ms).sort((a, b) => a - b);
  const p99s = runs.map((r) =>
    quantile(
      [...r.ms].sort((a, b) => a - b),
      0.99,
    ),
  );
  return {
    n: ms.length,
    failed: runs.reduce((n, r) => n + r.failed, 0),
    p50: quantile(ms, 0.5),
    p99: quantile(ms, 0.99),
    max: ms[ms.length - 1],
    p99s,
    loads: runs.map((r) => r.load),
  };
}

/**
 * Tenant A's closed loop, `connections` requests at a time, in a worker thread of its own: A is
 * another client, and writing its megabyte bodies on this thread would delay B's requests here,
 * before they reach the stack. `stop()` resolves with what A was answered.
 */
function closedLoop(target, body, connections) {
  const worker = new Worker(__filename, { workerData: { closedLoop: { target, body, connections } } });
  const started = performance.now();
  const done = new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    async stop() {
      worker.postMessage('stop');
      const { answered, statuses } = await done;
      await worker.terminate();
      return { answered, seconds: (performance.now() - started) / 1000, statuses };
    },
  };
}

/** In the worker: A's requests, each connection sending its next as soon as it has an answer. */
function runClosedLoop({ target, body, connections }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const bytes = Buffer.from(body);
  let running = true;
  let answered = 0;
  const statuses = {};
  const loops = Array.from({ length: connections }, async () => {
    while (running) {
      const r = await post(agent, target.url, target.headers, bytes, performance.now());
      answered++;
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
  });
  parentPort.once('message', async () => {
    running = false;
    await Promise.all(loops);
    agent.destroy();
    parentPort.postMessage({ answered, statuses });
  });
}

if (!isMainThread && workerData?.closedLoop) runClosedLoop(workerData.closedLoop);

/**
 * Sets up both tenants on a running stack and measures. `api(method, route, auth, payload)` calls
 * the gateway; `provider(admin)` creates the tenant's mock provider `bench-claude`;
 * `guardedProject(tenant, name)` makes the ordinary guarded project (3 regex scanners both ways)
 * and resolves with a token scoped to it.
 */
async function noisyNeighbour({
  ours,
  api,
  signDevToken,
  provider,
  guardedProject,
  ordinaryBody,
  cfg,
  log = console.log,
}) {
  // Here, not at the top: the worker thread of tenant A's loop loads this file too, and needs no stack.
  const { snapshot, settle, cpuBetween } = require('../support/stack');
  const stamp = Date.now().toString(36);
  // Tenant B: the ordinary guarded project.
  const tenantB = `quiet-${stamp}`;
  await provider(`Bearer ${signDevToken({ tenant: tenantB, roles: ['admin'] })}`);
  const tokenB = await guardedProject(tenantB, 'quiet-guarded');

  // Tenant A: its worst allowed project.
  const tenantA = `noisy-${stamp}`;
  const adminA = `Bearer ${signDevToken({ tenant: tenantA, roles: ['admin'] })}`;
  await provider(adminA);
  const project = await api('POST', '/backend/v1/projects', adminA, { name: 'noisy-worst' });
  const projectId = project.id ?? project.project.id;
  // `scans`: the costliest scanners the API accepts. `bodies`: one cheap scanner that blocks each
  // prompt at its first word, so A sends 1 MB prompts as fast as the stack takes them.
  const bodies = cfg.tenantA === 'bodies';
  const patternsOf = (s) => (bodies ? ['^lorem'] : hostilePatterns(s, cfg.patterns));
  for (let s = 0; s < (bodies ? 1 : cfg.scanners); s++) {
    const scanner = await api('POST', '/backend/v1/scanners', adminA, {
      name: `noisy-${s}`,
      config: { type: 'regex', patterns: patternsOf(s) },
      direction: 'both',
    });
    await api('POST', `/backend/v1/projects/${projectId}/scanners`, adminA, {
      id: scanner.id,
      mode: 'block',
      blocking: true,
      enabled: true,
      direction: 'both',
    });
  }
  await api('PATCH', `/backend/v1/projects/${projectId}`, adminA, { deploymentStatus: 'live' });
  const tokenA = signDevToken({ tenant: tenantA, roles: ['member'], project: projectId });

  const anthropic = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  const url = `${ours.url}/vendor/bench-claude/v1/messages`;
  const targetB = { url, headers: { ...anthropic, 'x-api-key': tokenB } };
  const targetA = { url, headers: { ...anthropic, 'x-api-key': tokenA } };
  // JSON framing and the model name take a few hundred bytes of the body limit.
  const bodyA = JSON.stringify({
    model: 'claude-bench',
    max_tokens: 64,
    messages: [{ role: 'user', content: hostilePrompt(cfg.promptBytes) }],
  });

  const agentB = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const agentA = new http.Agent({ keepAlive: true, maxSockets: cfg.connections });
  try {
    // A's first request compiles its scanners; B warms its path.
    const first = await post(agentA, targetA.url, targetA.headers, bodyA, performance.now());
    await openLoop(agentB, targetB, ordinaryBody, cfg.rps, 3);
    await settle('ours');

    // Rounds of B alone, then B while A runs; after each, A's backlog drains before B runs alone again.
    const aloneRuns = [];
    const togetherRuns = [];
    const aloneLoop = [];
    const togetherLoop = [];
    const answeredA = { answered: 0, seconds: 0, statuses: {} };
    let cpuAlone;
    let cpuTogether;
    for (let round = 0; round < cfg.rounds; round++) {
      const before = await snapshot(ours.admin, ours.dbName);
      await loopDelays(ours);
      aloneRuns.push(await openLoop(agentB, targetB, ordinaryBody, cfg.rps, cfg.seconds));
      aloneLoop.push(await loopDelays(ours));
      cpuAlone ??= cpuBetween(before, await snapshot(ours.admin, ours.dbName));
      const heavy = closedLoop(targetA, bodyA, cfg.connections);
      await new Promise((r) => setTimeout(r, 3000));
      const during = await snapshot(ours.admin, ours.dbName);
      await loopDelays(ours);
      togetherRuns.push(await openLoop(agentB, targetB, ordinaryBody, cfg.rps, cfg.seconds));
      togetherLoop.push(await loopDelays(ours));
      cpuTogether ??= cpuBetween(during, await snapshot(ours.admin, ours.dbName));
      const a = await heavy.stop();
      answeredA.answered += a.answered;
      answeredA.seconds += a.seconds;
      for (const [status, n] of Object.entries(a.statuses))
        answeredA.statuses[status] = (answeredA.statuses[status] ?? 0) + n;
      await settle('ours', 120_000);
    }
    const alone = pooled(aloneRuns);
    const together = pooled(togetherRuns);
    const rise = (together.p99 / alone.p99 - 1) * 100;
    // The median round: one round the shared machine stalled in (either phase) moves the pooled p99 a lot, the median little.
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
    const medianRise = (median(together.p99s) / median(alone.p99s) - 1) * 100;
    log(
      `\nNoisy neighbour: tenant B sends guarded requests (3 regex both ways, ${ordinaryBody.length}-byte body) at ${cfg.rps}/s, open loop (latency from each request's scheduled start);`,
    );
    log(
      `tenant A (${cfg.tenantA}) runs ${bodies ? 1 : cfg.scanners} regex scanner(s) x ${bodies ? 1 : cfg.patterns} pattern(s) like ${JSON.stringify(patternsOf(0)[0])} and sends ${(Buffer.byteLength(bodyA) / 1024).toFixed(0)} KB prompts from ${cfg.connections} connections (closed loop).`,
    );
    log(
      `${cfg.rounds} rounds of ${cfg.seconds} s of B alone, then ${cfg.seconds} s of B while A runs (after 3 s of A alone); A's backlog drains between rounds.`,
    );
    log(`A's first request (compiles its scanners): ${first.status} in ${f(first.ms, 0)} ms`);
    log(
      'phase                requests  failed   p50 ms   p99 ms   max ms   p99 per round ms        load average per round',
    );
    for (const [name, r] of [
      ['B alone', alone],
      ['B while A runs', together],
    ]) {
      log(
        `${name.padEnd(20)} ${String(r.n).padStart(8)} ${String(r.failed).padStart(7)} ${f(r.p50).padStart(8)} ${f(r.p99).padStart(8)} ${f(r.max).padStart(8)}   ${r.p99s
          .map((x) => f(x, 0))
          .join(' ')
          .padEnd(22)} ${r.loads.map((x) => f(x)).join(' ')}`,
      );
    }
    log(
      `slowest 2% of B, mean ms per phase (Server-Timing; outside = the rest of what the client saw): alone: ${slowestPhases(aloneRuns)}; while A runs: ${slowestPhases(togetherRuns)}`,
    );
    const delays = (xs, app) => xs.map((d) => `${f(d[app].max, 0)}/${f(d[app].p99, 0)}`).join(' ');
    for (const app of ['gateway', 'proxy']) {
      log(
        `${app} event-loop delay per round, max/p99 ms: B alone ${delays(aloneLoop, app)}; B while A runs ${delays(togetherLoop, app)}`,
      );
    }
    log(
      `A: ${answeredA.answered} requests answered in ${f(answeredA.seconds)} s (${f(answeredA.answered / answeredA.seconds, 2)}/s), statuses ${JSON.stringify(answeredA.statuses)}`,
    );
    const cores = (cpu, seconds) =>
      Object.entries(cpu.perProcess)
        .filter(([, ms]) => ms / seconds > 20)
        .sort((x, y) => y[1] - x[1])
        .map(([name, ms]) => `${name} ${f(ms / seconds / 10, 0)}%`)
        .join(', ');
    log(
      `CPU of our processes in the first round (% of one core): B alone: ${cores(cpuAlone, cfg.seconds)}; B while A runs: ${cores(cpuTogether, cfg.seconds)}`,
    );
    log(
      `target: B's p99 rises < 20% while A runs; it rose ${f(rise)}% pooled (p99 ${f(alone.p99)} -> ${f(together.p99)} ms, p50 ${f(alone.p50)} -> ${f(together.p50)} ms), ${f(medianRise)}% in the median round (p99 ${f(median(alone.p99s))} -> ${f(median(together.p99s))} ms)`,
    );
    return { alone, together, a: answeredA, rise, medianRise };
  } finally {
    agentA.destroy();
    agentB.destroy();
  }
}

module.exports = { noisyNeighbour, hostilePatterns, hostilePrompt };
