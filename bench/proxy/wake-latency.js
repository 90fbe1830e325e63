#!/usr/bin/env node
// How long a short task waits for a CPU while busy threads at a lower priority hold the cores
// (`node bench/proxy/wake-latency.js`, Linux): the question behind the bulk lane's nice value
// (PROXY_NICE) and SCAN_WORKER_NICE. A timer wakes every 3 ms and does ~0.5 ms of work, as a
// request's steps through the gateway, NATS and the proxy do; it records how late each wake-up
// ran (`wake`) and how long its work took (`work`), first with nothing else running, then next to
// BUSY (default: one per core) processes spinning at each nice value, then in the idle class.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const os = require('node:os');

const WAKES = Number(process.env.WAKES ?? 2000);
const BUSY = Number(process.env.BUSY ?? os.availableParallelism());
const NICES = (process.env.NICES ?? '0 10 15 19').split(' ').map(Number);

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

function spin() {
  let x = 0;
  for (let i = 0; i < 400_000; i++) x += i % 7;
  return x;
}

/** WAKES timer wake-ups 3 ms apart; resolves with the p50/p99 of their lateness and of their work (ms). */
function measure() {
  return new Promise((resolve) => {
    const late = [];
    const work = [];
    const next = () => {
      const due = performance.now() + 3;
      setTimeout(() => {
        const woke = performance.now();
        spin();
        late.push(woke - due);
        work.push(performance.now() - woke);
        if (late.length < WAKES) next();
        else {
          late.sort((a, b) => a - b);
          work.sort((a, b) => a - b);
          resolve({
            late: [quantile(late, 0.5), quantile(late, 0.99)],
            work: [quantile(work, 0.5), quantile(work, 0.99)],
          });
        }
      }, 3);
    };
    next();
  });
}

/** BUSY spinning processes started by `prefix` (nice or chrt); resolves with a stop function. */
async function busy(prefix) {
  const children = Array.from({ length: BUSY }, () =>
    spawn(prefix[0], [...prefix.slice(1), process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' }),
  );
  await new Promise((r) => setTimeout(r, 500));
  return () => children.forEach((c) => c.kill('SIGKILL'));
}

function hasChrt() {
  try {
    execFileSync('chrt', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function main() {
  const rows = [['nothing else', null]];
  for (const n of NICES) rows.push([`${BUSY} busy at nice ${n}`, ['nice', '-n', String(n)]]);
  if (hasChrt()) rows.push([`${BUSY} busy in the idle class`, ['chrt', '--idle', '0']]);
  const f = (x) => x.toFixed(2).padStart(8);
  console.log(`wake-ups every 3 ms, ${WAKES} per row, ~0.5 ms of work each; ${os.availableParallelism()} cores`);
  console.log(
    `${'next to'.padEnd(28)}${'wake p50'.padStart(9)}${'wake p99'.padStart(9)}${'work p50'.padStart(9)}${'work p99'.padStart(9)}`,
  );
  for (const [label, prefix] of rows) {
    const stop = prefix ? await busy(prefix) : () => {};
    try {
      const { late, work } = await measure();
      console.log(`${label.padEnd(28)} ${f(late[0])} ${f(late[1])} ${f(work[0])} ${f(work[1])}`);
    } finally {
      stop();
    }
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
