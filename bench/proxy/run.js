#!/usr/bin/env node
// Message proxy benchmark, against a running stack whose proxy may reach 127.0.0.1:
//   OUTBOUND_ALLOWLIST=127.0.0.1 pnpm start            (one shell)
//   pnpm bench:proxy [-- --duration 10 --url http://127.0.0.1:8080]
// Measures (a) requests/s at 32 concurrent connections and (b) p50/p99 latency at a fixed
// 200 requests/s, for: the mock upstream called directly, the proxy with no scanners, and the proxy
// with three regex scanners and the PII pack on both directions. Prints figures and ratios.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { parseArgs } = require('node:util');
const autocannon = require('autocannon');
const { signDevToken } = require('../../libs/auth/dist/index.js');

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    url: { type: 'string', default: process.env.GATEWAY_URL ?? 'http://127.0.0.1:8080' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rate: { type: 'string', default: '200' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const rate = Number(values.rate);
const gateway = values.url;

const body = JSON.stringify({
  model: 'claude-bench',
  max_tokens: 64,
  messages: [{ role: 'user', content: 'Please summarise the quarterly numbers for the board meeting on Thursday; my phone is +1 415 555 0100.' }],
});

async function api(method, route, auth, payload) {
  const res = await fetch(`${gateway}${route}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function startMock() {
  const child = spawn(process.execPath, [path.join(__dirname, 'mock-anthropic.js')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve) => child.stdout.once('data', (d) => resolve(String(d).trim())));
  return { child, url };
}

/** A tenant with the mock as an Anthropic provider, a plain project and a guarded one. */
async function setup(mockUrl) {
  const tenant = `bench-${Date.now().toString(36)}`;
  const admin = `Bearer ${signDevToken({ tenant, roles: ['admin'] })}`;
  await api('POST', '/backend/v1/providers', admin, {
    name: 'bench-claude',
    systemProvider: 'anthropic',
    inputs: { baseUrl: mockUrl },
    secrets: { apiKey: 'sk-bench' },
    maxRequestsPerSecond: 100000,
    requestConcurrencyLimit: { requests: 100000, decayPerSecond: 100000 },
  });
  const projectToken = async (name, guarded) => {
    const project = await api('POST', '/backend/v1/projects', admin, { name });
    const id = project.id ?? project.project.id;
    if (guarded) {
      const patterns = [['\\bpassword\\s*[:=]\\s*\\S+'], ['\\b(?:api|secret)[_-]?key\\b'], ['\\bconfidential\\b']];
      for (const [i, p] of patterns.entries()) {
        const scanner = await api('POST', '/backend/v1/scanners', admin, { name: `bench-regex-${i}`, config: { type: 'regex', patterns: p }, direction: 'both' });
        await api('POST', `/backend/v1/projects/${id}/scanners`, admin, { id: scanner.id, mode: 'block', blocking: true, enabled: true, direction: 'both' });
      }
      const packages = await api('GET', '/backend/v1/packages', admin);
      const pii = (packages.packages ?? packages).find((p) => p.name === 'pii' || p.config?.type === 'pii' || p.type === 'pii');
      await api('POST', `/backend/v1/projects/${id}/packages`, admin, { id: pii.id, mode: 'redact', blocking: true, enabled: true, direction: 'both' });
    }
    await api('PATCH', `/backend/v1/projects/${id}`, admin, { deploymentStatus: 'live' });
    return signDevToken({ tenant, roles: ['member'], project: id });
  };
  return { plain: await projectToken('bench-plain', false), guarded: await projectToken('bench-guarded', true) };
}

function load(url, headers, opts) {
  return autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body, duration, ...opts });
}

const fmt = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');

async function main() {
  const mock = await startMock();
  try {
    const tokens = await setup(mock.url);
    const targets = [
      ['upstream directly', `${mock.url}/v1/messages`, { 'x-api-key': 'sk-bench', 'anthropic-version': '2023-06-01' }],
      ['proxy, no scanners', `${gateway}/vendor/bench-claude/v1/messages`, { 'x-api-key': tokens.plain }],
      ['proxy, 3 regex + PII both ways', `${gateway}/vendor/bench-claude/v1/messages`, { 'x-api-key': tokens.guarded }],
    ];
    console.log(`proxy benchmark: ${duration} s per run; (a) ${connections} connections, (b) ${rate} requests/s`);
    const rows = [];
    for (const [name, url, headers] of targets) {
      await load(url, headers, { connections, duration: 2 }); // warm-up
      const a = await load(url, headers, { connections });
      const b = await load(url, headers, { connections, overallRate: rate });
      rows.push({ name, rps: a.requests.average, failedA: a.non2xx + a.errors, p50: b.latency.p50, p99: b.latency.p99, failedB: b.non2xx + b.errors });
    }
    const direct = rows[0];
    console.log('');
    console.log('target                           req/s @32   x direct   p50 ms @200/s   p99 ms @200/s   failed');
    for (const r of rows) {
      console.log(
        `${r.name.padEnd(32)} ${fmt(r.rps).padStart(9)} ${fmt(r.rps / direct.rps, 2).padStart(10)} ${fmt(r.p50, 2).padStart(15)} ${fmt(r.p99, 2).padStart(15)} ${String(r.failedA + r.failedB).padStart(8)}`,
      );
    }
    console.log('');
    console.log('targets with scanners on: >= 2000 req/s at 32 connections, p99 < 15 ms at 200 req/s');
  } finally {
    mock.child.kill();
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
