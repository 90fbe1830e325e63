#!/usr/bin/env node
// Site admission benchmark: `pnpm bench:admission [-- --connections 32 --duration 10]` starts its
// own stack (bench/support/stack.js; build first); with --url it uses a running one instead.
// Measures admissions per second and latency at a fixed concurrency (a) through the gateway over
// HTTP, as sites do, and (b) straight to the tokens service over NATS, to show where time goes;
// with its own stack also the CPU ms per admission of each process.
const { parseArgs } = require('node:util');
const { randomUUID } = require('node:crypto');
const autocannon = require('autocannon');
const { signDevToken } = require('../../libs/auth/dist/index.js');
const { connectNats, devNatsPassword, NatsRpcClient } = require('../../libs/messaging/dist/index.js');
const { TokenRpc } = require('../../libs/contracts/dist/index.js');
const { startOurs, stopEverything, cpuBetween, settle } = require('../support/stack');

const { values } = parseArgs({
  // pnpm passes a literal `--` through to the script.
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    url: { type: 'string', default: process.env.GATEWAY_URL },
    connections: { type: 'string', default: '32' },
    duration: { type: 'string', default: '10' },
    nats: { type: 'string', default: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' },
  },
});
const connections = Number(values.connections);
const duration = Number(values.duration);

async function createToken() {
  const auth = `Bearer ${signDevToken({ tenant: `bench-${randomUUID().slice(0, 8)}`, roles: ['admin'] })}`;
  const res = await fetch(`${values.url}/api/register/namespaces/system/tokens`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ metadata: { name: 'bench' }, spec: {} }),
  });
  if (res.status !== 200) throw new Error(`could not create the token: ${res.status} ${await res.text()}`);
  return (await res.json()).system_metadata.uid;
}

const body = (uid, n) =>
  JSON.stringify({
    metadata: { name: `node-${n}` },
    spec: { token: uid, passport: { cluster_name: 'bench-site', cluster_size: 1 } },
  });

function overHttp(uid, seconds, prefix) {
  let n = 0;
  return autocannon({
    url: `${values.url}/api/register/registerBootstrap`,
    connections,
    duration: seconds,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: body(uid, `${prefix}-${n++}`) }) }],
  });
}

async function overNats(uid, seconds) {
  // As the gateway's NATS user: the one that may call the services.
  const nc = await connectNats(
    { url: values.nats, user: 'gateway', password: devNatsPassword('gateway') },
    { name: 'bench' },
  );
  const rpc = new NatsRpcClient(nc, 5000);
  const latencies = [];
  let errors = 0;
  let n = 0;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const i = n++;
        const started = performance.now();
        try {
          await rpc.call(
            TokenRpc.register,
            {
              body: JSON.parse(body(uid, `nats-${i}`)),
              passport: { cluster_name: 'bench-site' },
              sourceAddress: '127.0.0.1',
            },
            `bench-${i}`,
          );
          latencies.push(performance.now() - started);
        } catch {
          errors++;
        }
      }
    }),
  );
  await nc.close();
  latencies.sort((a, b) => a - b);
  const q = (p) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN;
  return { rps: latencies.length / seconds, p50: q(0.5), p99: q(0.99), errors };
}

const fmt = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');

async function main() {
  let ours;
  try {
    if (!values.url) {
      ours = await startOurs();
      values.url = ours.url;
      values.nats = ours.natsUrl;
    }
    await run(ours);
  } finally {
    await stopEverything();
  }
}

async function run(ours) {
  const uid = await createToken();
  console.log(
    `admission benchmark: ${connections} connections, ${duration} s per run, gateway ${values.url}${ours ? ' (its own stack)' : ''}`,
  );
  await overHttp(uid, 2, 'warm'); // JIT, connection pools, view and caches
  if (ours) await settle('ours');
  const before = ours && (await ours.snapshot());
  // The load generator (autocannon, in this process) shares the 2 cores with the stack.
  const clientBefore = process.cpuUsage();
  const http = await overHttp(uid, duration, 'http');
  const clientUsage = process.cpuUsage(clientBefore);
  const clientMs = (clientUsage.user + clientUsage.system) / 1000;
  if (ours) await settle('ours');
  const cpu = ours && cpuBetween(before, await ours.snapshot());
  const nats = await overNats(uid, duration);
  const non2xx = http.non2xx + http.errors;
  console.log('');
  console.log('path                        admissions/s   p50 ms   p99 ms   failed');
  console.log(
    `HTTP via gateway            ${fmt(http.requests.average).padStart(12)} ${fmt(http.latency.p50).padStart(8)} ${fmt(http.latency.p99).padStart(8)} ${String(non2xx).padStart(8)}`,
  );
  console.log(
    `NATS to tokens service      ${fmt(nats.rps).padStart(12)} ${fmt(nats.p50).padStart(8)} ${fmt(nats.p99).padStart(8)} ${String(nats.errors).padStart(8)}`,
  );
  console.log('');
  console.log(
    `gateway share of p50 latency: ${fmt(http.latency.p50 - nats.p50)} ms; target: >= 1500 admissions/s with p99 < 25 ms through the gateway`,
  );
  if (cpu) {
    const n = http.requests.total;
    const shown = Object.entries(cpu.perProcess)
      .filter(([, ms]) => ms > 0)
      .sort((a, b) => b[1] - a[1]);
    console.log(
      `\nCPU ms per admission through the gateway (${n} admissions): ${fmt((cpu.perGroup.ours ?? 0) / n)} in all`,
    );
    console.log(shown.map(([name, ms]) => `  ${name.padEnd(18)} ${(ms / n).toFixed(3)}`).join('\n'));
    const total = (cpu.perGroup.ours ?? 0) / n;
    const client = clientMs / n;
    const cores = require('node:os').cpus().length;
    console.log(`  (load generator    ${client.toFixed(3)}, not counted in the total)`);
    console.log(
      `at ${total.toFixed(3)} ms of CPU each, ${cores} cores can do at most ${Math.round((cores * 1000) / total)} admissions/s with nothing else running; with the load generator's ${client.toFixed(3)} ms on the same cores, at most ${Math.round((cores * 1000) / (total + client))}/s`,
    );
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
