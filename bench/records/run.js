#!/usr/bin/env node
// What "no answer without its record" costs: the latency of a prompt record published with
// JetStream's acknowledgement (what the proxy now waits for before answering) against a publish
// without one (what it did before), on the NATS at NATS_URL (a stream of its own, deleted after).
//   pnpm build && node bench/records/run.js [-- --count 2000]
const { randomUUID } = require('node:crypto');
const { parseArgs } = require('node:util');
const path = require('node:path');
// The platform's own copy of the JetStream client.
const { jetstreamManager } = require(
  require.resolve('@nats-io/jetstream', { paths: [path.join(__dirname, '..', '..', 'libs', 'messaging')] }),
);
const { connectNats, ensureStream, EventPublisher } = require('../../libs/messaging/dist/index.js');

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { count: { type: 'string', default: '2000' } },
});
const count = Number(values.count);

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function main() {
  // NATS_URL must let this user create a stream of its own (the machine's anonymous NATS does).
  const nc = await connectNats(
    { url: process.env.NATS_URL ?? 'nats://127.0.0.1:4222', user: 'bench-records', password: '' },
    { name: 'bench-records' },
  );
  const tag = randomUUID().slice(0, 8);
  const stream = `BENCH_RECORDS_${tag}`;
  const subject = `bench.${tag}.prompt.recorded.v1`;
  await ensureStream(nc, { name: stream, subjects: [subject], maxAgeMs: 600_000 });
  const events = new EventPublisher(nc);
  // A record of a typical size: a prompt, an answer and a few scanner results (~3 KB).
  const record = {
    id: '',
    input: 'x'.repeat(1200),
    response: 'y'.repeat(1200),
    scannerResults: Array.from({ length: 4 }, (_, i) => ({
      scannerId: `s${i}`,
      outcome: 'passed',
      data: 'z'.repeat(100),
    })),
  };
  try {
    const acked = [];
    const fire = [];
    for (let i = 0; i < count; i++) {
      const id = randomUUID();
      let t = performance.now();
      await events.publishDurably(subject, { ...record, id }, id, 3000);
      acked.push(performance.now() - t);
      t = performance.now();
      events.notify(subject, { ...record, id: randomUUID() });
      fire.push(performance.now() - t);
    }
    await nc.flush();
    const f = (x) => x.toFixed(3).padStart(9);
    console.log(`prompt record publish, ${count} records of ~3 KB, sequential, NATS ${nc.getServer()}`);
    console.log('                                  p50 ms    p99 ms');
    console.log(`acknowledged (answer waits)    ${f(pct(acked, 50))} ${f(pct(acked, 99))}`);
    console.log(`fire and forget (before)       ${f(pct(fire, 50))} ${f(pct(fire, 99))}`);
  } finally {
    await (await jetstreamManager(nc)).streams.delete(stream);
    await nc.close();
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
