// Section `hops`: what one hop costs on this machine, bare, with nothing of ours in it. The guarded
// path makes the hops a peer gateway makes (client -> gateway -> model and back, HTTP) and two more
// kinds: a NATS request and reply between the gateway and the message proxy, and a JetStream
// publish acknowledged before the answer leaves (the prompt record), which the prompt store then
// takes and writes to Postgres. Each is measured here between plain clients and servers:
//
//   - an HTTP request and response on a keep-alive connection (Node's http, 400-byte body);
//   - a NATS request and reply (nats.js, 400 bytes) through a nats-server of its own;
//   - a JetStream publish and its PubAck (2 KB, a file stream, as the prompt record is published).
//
// For each: sequential p50/p99, and CPU ms per operation at 16 in flight, summed over the processes
// of the hop (this process as the client, the responder, nats-server), from /proc and
// process.cpuUsage.
'use strict';
const { spawn } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { connect } = require('@nats-io/transport-node');
const { jetstream, jetstreamManager } = require('@nats-io/jetstream');
const { cpuMs, freePort, natsServerEnv, waitFor } = require('../support/stack');
const { quantile } = require('../support/stats');

const selfMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** Sequential latency, then CPU per operation at `inFlight` at once, of `op` (after a warm-up). */
async function measure(op, pids, { sequential, requests, inFlight }) {
  for (let i = 0; i < Math.min(1000, requests); i++) await op();
  const latencies = [];
  for (let i = 0; i < sequential; i++) {
    const started = performance.now();
    await op();
    latencies.push(performance.now() - started);
  }
  latencies.sort((a, b) => a - b);
  const cpu = () => pids.reduce((sum, pid) => sum + (cpuMs(pid) ?? 0), 0) + selfMs();
  const before = cpu();
  let started = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (started++ < requests) await op();
    }),
  );
  // The far processes' last work lands in /proc a tick later.
  await new Promise((r) => setTimeout(r, 200));
  return { p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), cpu: (cpu() - before) / requests };
}

async function hopCost({
  sequential = Number(process.env.BENCH_HOPS_SEQUENTIAL ?? 2000),
  requests = Number(process.env.BENCH_HOPS_REQUESTS ?? 20000),
  inFlight = 16,
} = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-hops-'));
  const natsPort = await freePort();
  const httpPort = await freePort();
  const children = [];
  let nc;
  try {
    // Scheduled as our stack's nats-server is (`natsServerEnv`).
    const nats = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(natsPort), '-sd', dir], {
      stdio: 'ignore',
      env: { ...process.env, ...natsServerEnv() },
    });
    children.push(nats);
    const natsUrl = `nats://127.0.0.1:${natsPort}`;
    await waitFor('bare nats-server', () =>
      connect({ servers: natsUrl }).then(
        (c) => c.close().then(() => true),
        () => false,
      ),
    );
    const responder = spawn(process.execPath, [path.join(__dirname, 'hop-responder.js'), natsUrl, String(httpPort)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(responder);
    await new Promise((resolve, reject) => {
      responder.stdout.once('data', resolve);
      responder.once('exit', (code) => reject(new Error(`hop-responder exited (${code})`)));
    });
    nc = await connect({ servers: natsUrl });
    const agent = new http.Agent({ keepAlive: true, maxSockets: inFlight });
    const body = JSON.stringify({ text: 'x'.repeat(386) });
    const postHttp = () =>
      new Promise((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: httpPort,
            method: 'POST',
            path: '/',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': body.length },
          },
          (res) => {
            res.resume();
            res.on('end', resolve);
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'HOPS', subjects: ['hops.record'] });
    const js = jetstream(nc);
    const record = 'r'.repeat(2048);
    const opts = { sequential, requests, inFlight };
    const rows = [
      ['HTTP request and response', await measure(postHttp, [responder.pid], opts)],
      ['NATS request and reply', await measure(() => nc.request('hops.echo', body), [responder.pid, nats.pid], opts)],
      ['JetStream publish and PubAck', await measure(() => js.publish('hops.record', record), [nats.pid], opts)],
    ];
    agent.destroy();
    const f = (x, d = 3) => x.toFixed(d);
    console.log(
      `\nOne hop, bare (plain clients and servers, nothing of ours; ${sequential} sequential, then ${requests} at ${inFlight} in flight):`,
    );
    console.log('hop                              seq p50 ms   seq p99 ms   CPU ms per hop');
    for (const [name, r] of rows)
      console.log(`${name.padEnd(32)} ${f(r.p50).padStart(10)} ${f(r.p99).padStart(12)} ${f(r.cpu, 4).padStart(16)}`);
    return Object.fromEntries(rows);
  } finally {
    await nc?.close().catch(() => {});
    for (const c of children) c.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

module.exports = { hopCost };
