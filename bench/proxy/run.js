#!/usr/bin/env node
// The guarded path next to a peer gateway, in one run on one machine: `pnpm bench:proxy`
// (build first: `pnpm db:generate && pnpm build`). See README.md beside this file.
//
// Starts, each as its own process: a mock Anthropic upstream, Portkey OSS (no guardrails, no
// logging) and our whole stack (its own nats-server, a fresh database, every app's dist/main.js).
// For each path it measures CPU ms per request summed over every process involved (from
// /proc/<pid>/stat, after a warm-up), req/s at 32 connections and sequential p50/p99, for JSON and
// streaming requests; then time to first text of a slow stream and CPU per MB of streamed answer.
'use strict';
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const autocannon = require('autocannon');
const { guardCost } = require('./guard-cost');
const { hopCost } = require('./hops');
const { noisyNeighbour } = require('./noisy-neighbour');
const { quantile } = require('../support/stats');
const {
  root,
  start,
  startOurs,
  stopEverything,
  snapshot,
  settle,
  cpuBetween,
  freePort,
  waitFor,
  statusOf,
  processes,
} = require('../support/stack');

const int = (name, fallback) => (process.env[name] === undefined ? fallback : Number(process.env[name]));
const cfg = {
  // Requests per path before its rounds. Our apps' per-request code reaches V8's optimizing tier only
  // after several thousand requests: after 3,000 the guarded JSON path cost 0.72-0.79 ms per request
  // in its first two rounds of 6,000 and 0.47-0.55 in the next three (the same with the apps'
  // TurboFan threshold lowered to 300 invocations: 0.58-0.60, then 0.53).
  warmup: int('BENCH_WARMUP', 15000),
  requests: int('BENCH_REQUESTS', 6000),
  // Measured rounds per path, interleaved across the paths; each path's median round is its figure.
  loadRounds: Math.max(1, int('BENCH_LOAD_ROUNDS', 3) || 1),
  loadConnections: int('BENCH_LOAD_CONNECTIONS', 16),
  rpsConnections: int('BENCH_RPS_CONNECTIONS', 32),
  rpsSeconds: int('BENCH_RPS_SECONDS', 5),
  sequential: int('BENCH_SEQUENTIAL', 500),
  ttftSamples: int('BENCH_TTFT_SAMPLES', 12),
  ttftChars: int('BENCH_TTFT_CHARS', 600),
  mbRequests: int('BENCH_MB_REQUESTS', 2),
  // Several sizes show whether the cost per MB grows with the length of the answer.
  mbSizes: (process.env.BENCH_MB_CHARS ?? '65536,262144').split(',').map(Number),
  mbDeltaChars: int('BENCH_MB_DELTA_CHARS', 16),
  // '|'-separated. Section names (SECTIONS) run only those sections; anything else keeps only the
  // load rows whose `<path> <mode>` contains it, e.g. 'Portkey|no scanners JSON' (all sections run).
  only: (process.env.BENCH_ONLY ?? '').split('|').filter(Boolean),
  guardChars: int('BENCH_GUARD_CHARS', 1 << 20),
  guardDeltas: (process.env.BENCH_GUARD_DELTAS ?? '16,64,256').split(',').map(Number),
  // Upstream read sizes in bytes (0: each event in a read of its own).
  guardReads: (process.env.BENCH_GUARD_READS ?? '0,4096').split(',').map(Number),
  guardReps: int('BENCH_GUARD_REPS', 9),
  noisy: {
    rps: int('BENCH_NOISY_RPS', 25),
    seconds: int('BENCH_NOISY_SECONDS', 10),
    rounds: int('BENCH_NOISY_ROUNDS', 5),
    connections: int('BENCH_NOISY_CONNECTIONS', 8),
    // `scans`: A's project has the costliest scanners allowed; `bodies`: one cheap one, A floods 1 MB prompts.
    tenantA: process.env.BENCH_NOISY_A ?? 'scans',
    scanners: int('BENCH_NOISY_SCANNERS', 100),
    patterns: int('BENCH_NOISY_PATTERNS', 100),
    promptBytes: int('BENCH_NOISY_PROMPT_BYTES', 1_040_000),
  },
};
const SECTIONS = ['load', 'service-call', 'first-text', 'per-mb', 'guard', 'hops', 'noisy'];
const STACK_SECTIONS = ['load', 'service-call', 'first-text', 'per-mb', 'noisy'];
const sectionsAsked = cfg.only.filter((o) => SECTIONS.includes(o));
const rowFilters = cfg.only.filter((o) => !SECTIONS.includes(o));
const runs = (section) => sectionsAsked.length === 0 || sectionsAsked.includes(section);
const PROMPT = 'Please summarise the quarterly numbers for the board meeting on Thursday; my phone is +1 415 555 0100.';
const bodyFor = (model, stream) =>
  JSON.stringify({
    model,
    max_tokens: 64,
    ...(stream ? { stream: true } : {}),
    messages: [{ role: 'user', content: PROMPT }],
  });

// ---------------------------------------------------------------------------------------------
// The three paths

async function startMock() {
  const child = start(
    'mock',
    'mock',
    [process.execPath, path.join(__dirname, 'mock-anthropic.js')],
    {},
    { pipe: true },
  );
  const url = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  return url;
}

async function startPortkey() {
  const pkg = path.dirname(require.resolve('@portkey-ai/gateway/package.json', { paths: [root] }));
  const port = await freePort();
  start('portkey', 'portkey', [
    process.execPath,
    '--require',
    path.join(__dirname, 'portkey-node24-shim.js'),
    path.join(pkg, 'build', 'start-server.js'),
    `--port=${port}`,
    '--headless',
  ]);
  const url = `http://127.0.0.1:${port}`;
  await waitFor('Portkey', async () => (await statusOf(url)) > 0);
  return url;
}

async function api(gateway, method, route, auth, payload) {
  const res = await fetch(`${gateway}${route}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** The mock as the tenant's Anthropic provider `bench-claude`, with limits no benchmark reaches. */
async function createProvider(gateway, admin, mockUrl) {
  await api(gateway, 'POST', '/backend/v1/providers', admin, {
    name: 'bench-claude',
    systemProvider: 'anthropic',
    inputs: { baseUrl: mockUrl },
    secrets: { apiKey: 'sk-bench' },
    maxRequestsPerSecond: 100000,
    requestConcurrencyLimit: { requests: 100000, decayPerSecond: 100000 },
  });
}

/** A live project, with no scanners or with 3 blocking regex scanners both ways; resolves with a member token scoped to it. */
async function createProject(gateway, tenant, name, guarded) {
  const { signDevToken } = require(path.join(root, 'libs', 'auth', 'dist', 'index.js'));
  const admin = `Bearer ${signDevToken({ tenant, roles: ['admin'] })}`;
  const project = await api(gateway, 'POST', '/backend/v1/projects', admin, { name });
  const id = project.id ?? project.project.id;
  if (guarded) {
    const patterns = ['\\bpassword\\s*[:=]\\s*\\S+', '\\b(?:api|secret)[_-]?key\\b', '\\bconfidential\\b'];
    for (const [i, p] of patterns.entries()) {
      const scanner = await api(gateway, 'POST', '/backend/v1/scanners', admin, {
        name: `${name}-regex-${i}`,
        config: { type: 'regex', patterns: [p] },
        direction: 'both',
      });
      await api(gateway, 'POST', `/backend/v1/projects/${id}/scanners`, admin, {
        id: scanner.id,
        mode: 'block',
        blocking: true,
        enabled: true,
        direction: 'both',
      });
    }
  }
  await api(gateway, 'PATCH', `/backend/v1/projects/${id}`, admin, { deploymentStatus: 'live' });
  return signDevToken({ tenant, roles: ['member'], project: id });
}

/** A tenant with the mock as an Anthropic provider, a project with no scanners and one with 3 blocking regex scanners both ways. */
async function setupTenant(gateway, mockUrl) {
  const { signDevToken } = require(path.join(root, 'libs', 'auth', 'dist', 'index.js'));
  const tenant = `bench-${Date.now().toString(36)}`;
  const admin = `Bearer ${signDevToken({ tenant, roles: ['admin'] })}`;
  await createProvider(gateway, admin, mockUrl);
  return {
    plain: await createProject(gateway, tenant, 'bench-plain', false),
    guarded: await createProject(gateway, tenant, 'bench-guarded', true),
  };
}

// ---------------------------------------------------------------------------------------------
// Load and latency

/** The middle element of a sorted list (the lower middle one of an even count). */
const middle = (sorted) => sorted[Math.floor((sorted.length - 1) / 2)];

function loadFixed(target, stream, connections, amount) {
  return autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: bodyFor('claude-bench', stream),
    connections,
    amount,
    timeout: 30,
  });
}

function loadFor(target, stream, connections, duration) {
  return autocannon({
    url: target.url,
    method: 'POST',
    headers: target.headers,
    body: bodyFor('claude-bench', stream),
    connections,
    duration,
    timeout: 30,
  });
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** One request; resolves with the total ms, the ms until the first text delta, the status and the body size. */
function timedRequest(target, body) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let firstText = null;
    let bytes = 0;
    const req = http.request(
      target.url,
      { method: 'POST', agent, headers: { ...target.headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.on('data', (chunk) => {
          bytes += chunk.length;
          if (firstText === null && chunk.includes('"text_delta"')) firstText = performance.now() - started;
        });
        const timing = res.headers['server-timing'];
        res.on('end', () =>
          resolve({ ms: performance.now() - started, firstText, status: res.statusCode, bytes, timing }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function sequential(target, stream, n) {
  const body = bodyFor('claude-bench', stream);
  for (let i = 0; i < Math.min(50, n); i++) await timedRequest(target, body);
  const ms = [];
  const phases = {};
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const r = await timedRequest(target, body);
    if (r.status !== 200) failed++;
    ms.push(r.ms);
    for (const [name, dur] of serverTiming(r.timing)) (phases[name] ??= []).push(dur);
  }
  ms.sort((a, b) => a - b);
  const phaseP50 = Object.entries(phases).map(([name, d]) => [
    name,
    quantile(
      d.sort((a, b) => a - b),
      0.5,
    ),
  ]);
  return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), failed, phaseP50 };
}

/** `Server-Timing` as [name, ms] pairs (ours sends auth, rpc, guard, upstream and record). */
function serverTiming(header) {
  if (!header) return [];
  return String(header)
    .split(',')
    .map((part) => /^\s*([\w-]+)\s*;\s*dur=([\d.]+)/.exec(part))
    .filter(Boolean)
    .map((m) => [m[1], Number(m[2])]);
}

/** Time to first text of a slow stream (4 characters every 15 ms), a few at a time. */
async function firstText(target, samples) {
  const body = bodyFor(`bench-stream-15-${cfg.ttftChars}-4`, true);
  const firsts = [];
  const totals = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < samples) {
        next++;
        const r = await timedRequest(target, body);
        if (r.status !== 200 || r.firstText === null)
          throw new Error(`${target.name}: slow stream failed (${r.status})`);
        firsts.push(r.firstText);
        totals.push(r.ms);
      }
    }),
  );
  firsts.sort((a, b) => a - b);
  totals.sort((a, b) => a - b);
  return { p50: quantile(firsts, 0.5), max: firsts[firsts.length - 1], total: quantile(totals, 0.5) };
}

/**
 * An authenticated route that makes one NATS call (GET /backend/v1/providers/system/anthropic),
 * sequentially through the gateway, next to the same call made straight over NATS.
 */
async function oneServiceCall(ours, n) {
  const { signDevToken } = require(path.join(root, 'libs', 'auth', 'dist', 'index.js'));
  const { connectNats, devNatsPassword, NatsRpcClient } = require(
    path.join(root, 'libs', 'messaging', 'dist', 'index.js'),
  );
  const { ProviderRpc } = require(path.join(root, 'libs', 'contracts', 'dist', 'index.js'));
  const principal = { sub: 'bench', tenant: 'bench-route', roles: ['admin'] };
  const target = {
    url: `${ours.url}/backend/v1/providers/system/anthropic`,
    headers: { authorization: `Bearer ${signDevToken({ tenant: principal.tenant, roles: principal.roles })}` },
  };
  const get = () =>
    new Promise((resolve, reject) => {
      const started = performance.now();
      http
        .get(target.url, { agent, headers: target.headers }, (res) => {
          res.resume();
          res.on('end', () =>
            res.statusCode === 200
              ? resolve(performance.now() - started)
              : reject(new Error(`${target.url}: ${res.statusCode}`)),
          );
        })
        .on('error', reject);
    });
  for (let i = 0; i < 300; i++) await get();
  const viaGateway = [];
  await settle('ours');
  const before = await snapshot(ours.admin, ours.dbName);
  for (let i = 0; i < n; i++) viaGateway.push(await get());
  await settle('ours');
  const cpu = cpuBetween(before, await snapshot(ours.admin, ours.dbName));
  // As the gateway's NATS user: the one that may call the services.
  const nc = await connectNats(
    { url: ours.natsUrl, user: 'gateway', password: devNatsPassword('gateway') },
    { name: 'bench' },
  );
  const rpc = new NatsRpcClient(nc, 5000);
  const call = () => rpc.call(ProviderRpc.getSystem, { principal, ref: 'anthropic' }, 'bench');
  for (let i = 0; i < 100; i++) await call();
  const overNats = [];
  for (let i = 0; i < n; i++) {
    const started = performance.now();
    await call();
    overNats.push(performance.now() - started);
  }
  await nc.close();
  for (const list of [viaGateway, overNats]) list.sort((a, b) => a - b);
  return (
    `GET /backend/v1/providers/system/anthropic (authenticated, one service call), ${n} sequential: ` +
    `p50 ${f(quantile(viaGateway, 0.5))} ms, p99 ${f(quantile(viaGateway, 0.99))} ms through the gateway; ` +
    `p50 ${f(quantile(overNats, 0.5))} ms, p99 ${f(quantile(overNats, 0.99))} ms straight over NATS (target <= 1.5 ms p50 through the gateway); ` +
    `CPU ms per request through the gateway: ${f(cpu.perGroup.ours / n, 3)} (gateway ${f(cpu.perProcess.gateway / n, 3)}, providers ${f(cpu.perProcess.providers / n, 3)}, nats-server ${f(cpu.perProcess['nats-server'] / n, 3)})`
  );
}

// ---------------------------------------------------------------------------------------------

const f = (x, d = 2) => (x === undefined || x === null || !Number.isFinite(x) ? '-' : x.toFixed(d));
const pad = (s, n) => String(s).padStart(n);

async function main() {
  let ours;
  try {
    console.log(
      `proxy benchmark: ${os.cpus().length} cores, load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    // In this process and without the stack: first, while nothing else runs.
    if (runs('guard'))
      await guardCost({
        root,
        chars: cfg.guardChars,
        deltas: cfg.guardDeltas,
        readSizes: cfg.guardReads,
        reps: cfg.guardReps,
      });
    if (runs('hops')) await hopCost();
    if (!STACK_SECTIONS.some(runs)) return;

    const mockUrl = await startMock();
    const portkeyUrl = await startPortkey();
    ours = await startOurs();
    const tokens = await setupTenant(ours.url, mockUrl);
    const pg = ours.admin;

    const anthropic = { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
    const targets = [
      {
        name: 'mock upstream directly',
        group: 'mock',
        url: `${mockUrl}/v1/messages`,
        headers: { ...anthropic, 'x-api-key': 'sk-bench' },
      },
      {
        name: 'Portkey OSS',
        group: 'portkey',
        url: `${portkeyUrl}/v1/messages`,
        headers: {
          ...anthropic,
          'x-api-key': 'sk-bench',
          'x-portkey-provider': 'anthropic',
          'x-portkey-custom-host': `${mockUrl}/v1`,
        },
      },
      {
        name: 'ours, no scanners',
        group: 'ours',
        url: `${ours.url}/vendor/bench-claude/v1/messages`,
        headers: { ...anthropic, 'x-api-key': tokens.plain },
      },
      {
        name: 'ours, 3 regex both ways',
        group: 'ours',
        url: `${ours.url}/vendor/bench-claude/v1/messages`,
        headers: { ...anthropic, 'x-api-key': tokens.guarded },
      },
    ];
    for (const t of targets) {
      for (const stream of [false, true]) {
        const r = await timedRequest(t, bodyFor('claude-bench', stream));
        if (r.status !== 200)
          throw new Error(`${t.name}: a first ${stream ? 'streaming' : 'JSON'} request answered ${r.status}`);
      }
    }

    console.log(
      `\nstack up; load average ${os
        .loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')}`,
    );
    if (runs('load'))
      console.log(
        `CPU per request: ${cfg.warmup} warm-up requests per path, then ${cfg.loadRounds} rounds, each path in turn, of ${cfg.requests} requests at ${cfg.loadConnections} connections (each path's median round); req/s: ${cfg.rpsSeconds} s at ${cfg.rpsConnections} connections; sequential: ${cfg.sequential} requests`,
      );
    if (runs('load'))
      console.log(
        "CPU is summed over the path's own processes (the mock's share is shown apart); ours = gateway, services, nats-server and the Postgres backends of its database; each count waits for the processes to go quiet, so records stored after the answers count with them.\n",
      );

    const rows = [];
    for (const stream of runs('load') ? [false, true] : []) {
      const mode = stream ? 'stream' : 'JSON';
      const chosen = targets.filter(
        (t) => !rowFilters.length || rowFilters.some((o) => `${t.name} ${mode}`.includes(o)),
      );
      // Every path warmed first, then measured in interleaved rounds (each path once a round): a
      // moment the shared machine is slower falls on one round of each path, not on one path.
      const measured = new Map(chosen.map((t) => [t, { rounds: [], failed: 0 }]));
      for (const t of chosen) {
        const warm = await loadFixed(t, stream, cfg.loadConnections, cfg.warmup);
        measured.get(t).failed += warm.non2xx + warm.errors;
      }
      for (let round = 0; round < cfg.loadRounds; round++) {
        // A different path first each round: none always follows the same one.
        for (const t of chosen.map((_, i) => chosen[(i + round) % chosen.length])) {
          await settle(t.group);
          const before = await snapshot(pg, ours.dbName);
          const load = await loadFixed(t, stream, cfg.loadConnections, cfg.requests);
          await settle(t.group);
          const after = await snapshot(pg, ours.dbName);
          const cpu = cpuBetween(before, after);
          const n = load.requests.total || cfg.requests;
          const ofPath = ([name]) =>
            processes.find((p) => p.name === name)?.group === t.group ||
            (t.group === 'ours' && name === 'postgres backends');
          const perRequest = (counts) =>
            Object.fromEntries(
              Object.entries(counts)
                .filter(ofPath)
                .map(([k, v]) => [k, v / n]),
            );
          const perProcess = perRequest(cpu.perProcess);
          const m = measured.get(t);
          m.failed += load.non2xx + load.errors;
          m.rounds.push({
            cpu: (cpu.perGroup[t.group] ?? 0) / n,
            systemCpu: (cpu.perGroupSystem[t.group] ?? 0) / n,
            mockCpu: t.group === 'mock' ? null : (cpu.perGroup.mock ?? 0) / n,
            perProcess,
            wakeups: perRequest(cpu.perProcessWakeups),
            nats: t.group === 'ours' && cpu.nats ? { ...cpu.nats, n } : undefined,
            pg: t.group === 'ours' ? cpu.pg : undefined,
          });
          // Each round's processes too: a round that costs more shows where.
          const top = Object.entries(perProcess)
            .filter(([, v]) => v >= 0.01)
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${f(v, 3)}`)
            .join(', ');
          process.stderr.write(
            `  round ${round + 1}: ${t.name} ${mode}: ${f(m.rounds.at(-1).cpu, 3)} CPU ms/req${t.group === 'ours' ? ` (${top})` : ''}\n`,
          );
        }
      }
      for (const t of chosen) {
        const m = measured.get(t);
        // The round of median CPU stands for the path (its per-process figures with it).
        const mid = middle([...m.rounds].sort((a, b) => a.cpu - b.cpu));
        const rps = await loadFor(t, stream, cfg.rpsConnections, cfg.rpsSeconds);
        const seq = await sequential(t, stream, cfg.sequential);
        rows.push({
          name: t.name,
          mode,
          group: t.group,
          cpu: mid.cpu,
          systemCpu: mid.systemCpu,
          rounds: m.rounds.map((r) => r.cpu),
          mockCpu: mid.mockCpu,
          rps: rps.requests.average,
          p50: seq.p50,
          p99: seq.p99,
          phaseP50: seq.phaseP50,
          failed: m.failed + rps.non2xx + rps.errors + seq.failed,
          perProcess: mid.perProcess,
          wakeups: mid.wakeups,
          nats: mid.nats,
          pg: mid.pg,
        });
        const r = rows[rows.length - 1];
        process.stderr.write(
          `  ${r.name} ${r.mode}: ${f(r.cpu, 3)} CPU ms/req (median of ${r.rounds.length}), ${f(r.rps, 0)} req/s, p50 ${f(r.p50)} ms\n`,
        );
      }
    }

    if (rows.length)
      console.log(
        'path                      mode    CPU ms/req  (mock)  x Portkey   req/s@32  x Portkey  seq p50 ms  seq p99 ms  failed',
      );
    // Ours as a ratio to Portkey's CPU of the same round, round by round.
    for (const r of rows) {
      const pk = rows.find((x) => x.group === 'portkey' && x.mode === r.mode);
      r.roundRatios = pk && r.group === 'ours' ? r.rounds.map((c, i) => c / pk.rounds[i]) : [];
    }
    for (const r of rows) {
      const pk = rows.find((x) => x.group === 'portkey' && x.mode === r.mode);
      const ratio = (a, b) => (pk && r.group === 'ours' ? f(a / b) : '');
      // CPU: the median of the same-round ratios.
      const cpuRatio = r.roundRatios.length ? f(middle([...r.roundRatios].sort((x, y) => x - y))) : '';
      console.log(
        `${r.name.padEnd(25)} ${r.mode.padEnd(6)} ${pad(f(r.cpu, 3), 11)} ${pad(r.mockCpu === null ? '' : f(r.mockCpu, 3), 7)} ${pad(cpuRatio, 10)} ${pad(f(r.rps, 0), 10)} ${pad(ratio(r.rps, pk?.rps), 10)} ${pad(f(r.p50), 11)} ${pad(f(r.p99), 11)} ${pad(r.failed, 7)}`,
      );
    }
    if (rows.some((r) => r.rounds.length > 1)) {
      console.log(
        `\nCPU ms per request in each round (the table shows each path's median round, and the median of these ratios), and ours as a ratio to Portkey's of the same round:`,
      );
      for (const r of rows) {
        console.log(
          `${r.name.padEnd(25)} ${r.mode.padEnd(6)} ${r.rounds.map((c) => f(c, 3)).join(' ')}${r.roundRatios.length ? `   x Portkey ${r.roundRatios.map((x) => f(x)).join(' ')}` : ''}`,
        );
      }
    }
    if (rows.some((r) => r.group !== 'mock')) {
      // The kernel's share (system time: syscalls, socket writes and reads, wake-ups) against the
      // process's own (user time), of each path's median round.
      console.log("\nCPU ms per request in the median round, user + system (the kernel's work for the path):");
      for (const r of rows.filter((x) => x.group !== 'mock'))
        console.log(
          `${r.name.padEnd(25)} ${r.mode.padEnd(6)} ${f(r.cpu - r.systemCpu, 3)} + ${f(r.systemCpu, 3)} (system ${f((100 * r.systemCpu) / r.cpu, 0)}%)`,
        );
    }
    if (rows.length) console.log('\nCPU ms per request of our processes:');
    const names = [...new Set(rows.filter((r) => r.group === 'ours').flatMap((r) => Object.keys(r.perProcess)))];
    if (rows.length)
      console.log(
        `${'path'.padEnd(25)} ${'mode'.padEnd(6)} ${names.map((n) => pad(n.replace(' backends', ''), 13)).join(' ')}`,
      );
    for (const r of rows.filter((x) => x.group === 'ours')) {
      console.log(
        `${r.name.padEnd(25)} ${r.mode.padEnd(6)} ${names.map((n) => pad(f(r.perProcess[n], 3), 13)).join(' ')}`,
      );
    }
    if (rows.some((r) => r.group !== 'mock')) {
      // A hop to another process, or a hand-off to a worker thread and back, shows here per request.
      console.log("\nWake-ups per request in the median round (its threads' voluntary context switches), by process:");
      for (const r of rows.filter((x) => x.group !== 'mock')) {
        const each = Object.entries(r.wakeups)
          .filter(([, v]) => v >= 0.05)
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${f(v)}`)
          .join(', ');
        console.log(`${r.name.padEnd(25)} ${r.mode.padEnd(6)} ${each}`);
      }
    }
    const timed = rows.filter((r) => r.phaseP50?.length);
    if (timed.length) {
      console.log('\nSequential requests: the median of each Server-Timing phase, ms (beside the median total):');
      for (const r of timed)
        console.log(
          `${r.name.padEnd(25)} ${r.mode.padEnd(6)} ${r.phaseP50.map(([n, d]) => `${n} ${f(d)}`).join(', ')}; total ${f(r.p50)}`,
        );
    }
    const withNats = rows.filter((r) => r.nats);
    if (withNats.length) {
      console.log('\nNATS messages per request, into and out of our nats-server (its /varz), and KB:');
      for (const r of withNats) {
        const n = r.nats.n;
        // Rows inserted per Postgres commit: how many records the prompt store writes per statement.
        const perCommit = r.pg?.commits > 0 ? `; Postgres: ${f(r.pg.inserted / r.pg.commits, 1)} rows per commit` : '';
        console.log(
          `${r.name.padEnd(25)} ${r.mode.padEnd(6)} in ${f(r.nats.inMsgs / n, 1)} (${f(r.nats.inBytes / n / 1024, 1)} KB), out ${f(r.nats.outMsgs / n, 1)} (${f(r.nats.outBytes / n / 1024, 1)} KB)${perCommit}`,
        );
      }
    }

    // After the loads, so every process is warm.
    if (cfg.sequential > 0 && runs('service-call')) console.log(`\n${await oneServiceCall(ours, cfg.sequential)}`);

    if (cfg.ttftSamples > 0 && runs('first-text')) {
      console.log(
        `\nTime to first text of a stream of ${cfg.ttftChars} characters, 4 every 15 ms (${cfg.ttftSamples} streams, 4 at a time):`,
      );
      console.log('path                          first text p50 ms   max ms   whole stream p50 ms');
      for (const t of [targets[0], targets[1], targets[2], targets[3]]) {
        const r = await firstText(t, cfg.ttftSamples);
        const label = t.name === 'ours, no scanners' ? 'ours, no response scanner' : t.name;
        console.log(`${label.padEnd(29)} ${pad(f(r.p50, 1), 18)} ${pad(f(r.max, 1), 8)} ${pad(f(r.total, 1), 21)}`);
      }
    }

    if (cfg.mbRequests > 0 && runs('per-mb')) {
      console.log(
        `\nCPU per MB of streamed answer (${cfg.mbRequests} streams per size, text in ${cfg.mbDeltaChars}-character deltas sent at once):`,
      );
      console.log('path                      text KB   CPU ms per MB   (mock)   stream bytes per text byte');
      for (const chars of cfg.mbSizes) {
        const mb = chars / (1 << 20);
        const body = bodyFor(`bench-stream-0-${chars}-${cfg.mbDeltaChars}`, true);
        for (const t of targets) {
          await timedRequest(t, body);
          await settle(t.group);
          const before = await snapshot(pg, ours.dbName);
          let bytes = 0;
          for (let i = 0; i < cfg.mbRequests; i++) {
            const r = await timedRequest(t, body);
            if (r.status !== 200) throw new Error(`${t.name}: the large stream answered ${r.status}`);
            bytes += r.bytes;
          }
          await settle(t.group);
          const after = await snapshot(pg, ours.dbName);
          const cpu = cpuBetween(before, after);
          const total = mb * cfg.mbRequests;
          console.log(
            `${t.name.padEnd(25)} ${pad(chars >> 10, 7)} ${pad(f((cpu.perGroup[t.group] ?? 0) / total, 1), 15)} ${pad(t.group === 'mock' ? '' : f((cpu.perGroup.mock ?? 0) / total, 1), 8)} ${pad(f(bytes / cfg.mbRequests / chars, 1), 28)}`,
          );
        }
      }
      const mb = Math.max(...cfg.mbSizes) / (1 << 20);
      // The same text scanned once, in this process, by the three regex scanners.
      const { compileScanner } = require(path.join(root, 'libs', 'guardrails', 'dist', 'index.js'));
      const scanners = ['\\bpassword\\s*[:=]\\s*\\S+', '\\b(?:api|secret)[_-]?key\\b', '\\bconfidential\\b'].map((p) =>
        compileScanner({ type: 'regex', patterns: [p] }),
      );
      const WORDS =
        'the quarterly numbers look steady and the board will review the forecast on Thursday morning '.split(' ');
      let text = '';
      for (let i = 0; text.length < Math.max(...cfg.mbSizes); i++) text += `${WORDS[i % WORDS.length]} `;
      text = text.slice(0, Math.max(...cfg.mbSizes));
      const scanAll = () => {
        for (const s of scanners) s.scan(text);
      };
      try {
        scanAll();
        const t0 = process.cpuUsage();
        const reps = 5;
        for (let i = 0; i < reps; i++) scanAll();
        const used = process.cpuUsage(t0);
        console.log(
          `${'3 regex scanners, once'.padEnd(25)} ${pad(Math.max(...cfg.mbSizes) >> 10, 7)} ${pad(f((used.user + used.system) / 1000 / reps / mb, 1), 15)}`,
        );
      } catch (err) {
        console.log(`3 regex scanners, once: ${err.message}`);
      }
    }

    if (runs('noisy')) {
      const { signDevToken } = require(path.join(root, 'libs', 'auth', 'dist', 'index.js'));
      await noisyNeighbour({
        ours,
        signDevToken,
        api: (method, route, auth, payload) => api(ours.url, method, route, auth, payload),
        provider: (admin) => createProvider(ours.url, admin, mockUrl),
        guardedProject: (tenant, name) => createProject(ours.url, tenant, name, true),
        ordinaryBody: bodyFor('claude-bench', false),
        cfg: cfg.noisy,
      });
    }
  } finally {
    agent.destroy();
    await stopEverything();
  }
}

main().catch((err) => {
  console.error(err.stack ?? err.message);
  process.exitCode = 1;
});
