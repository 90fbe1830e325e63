#!/usr/bin/env node
// How long a short task waits for a CPU while busy threads at a lower priority hold the cores
// (`node bench/proxy/wake-latency.js`, Linux): the question behind the bulk lane's nice value
// (PROXY_NICE) and SCAN_WORKER_NICE. A timer wakes every 3 ms and does ~0.5 ms of work, as a
// request's steps through the gateway, NATS and the proxy do; it records how late each wake-up
// ran (`wake`) and how long its work took (`work`), first with nothing else running, then next to
// BUSY (default: one per core) processes spinning at each nice value, then in the idle class.
// Timers have 1 ms resolution, so a wake-up can read as slightly early (negative).
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const { readFileSync } = require('node:fs');
const os = require('node:os');

const WAKES = Number(process.env.WAKES ?? 2000);
const BUSY = Number(process.env.BUSY ?? os.availableParallelism());
const NICES = (process.env.NICES ?? '0 10 15 19').split(/\s+/).filter(Boolean).map(Number);

const { quantile } = require('../support/stats');

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

const spinners = new Set();
const stopAll = () => spinners.forEach((c) => c.kill('SIGKILL'));
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

/** A process's nice value and scheduling policy (0 normal, 5 idle), from /proc/<pid>/stat. */
function niceAndPolicy(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return { nice: Number(fields[16]), policy: Number(fields[38]) };
}

/**
 * BUSY spinning processes started by `prefix` (nice or chrt), checked to be running as asked;
 * resolves with a stop function.
 */
async function busy(prefix, expected) {
  const children = Array.from({ length: BUSY }, () => {
    const child = spawn(prefix[0], [...prefix.slice(1), process.execPath, '-e', 'for(;;){}'], { stdio: 'ignore' });
    child.on('error', (err) => {
      console.error(`could not start ${prefix[0]}: ${err.message}`);
      process.exit(1);
    });
    spinners.add(child);
    return child;
  });
  await new Promise((r) => setTimeout(r, 500));
  for (const child of children) {
    const got = child.exitCode === null ? niceAndPolicy(child.pid) : undefined;
    if (!got || Object.entries(expected).some(([k, v]) => got[k] !== v)) {
      stopAll();
      throw new Error(`${prefix.join(' ')}: the busy process is not running as asked (${JSON.stringify(got)})`);
    }
  }
  return () => children.forEach((c) => (c.kill('SIGKILL'), spinners.delete(c)));
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
  for (const n of NICES) rows.push([`${BUSY} busy at nice ${n}`, ['nice', '-n', String(n)], { nice: n, policy: 0 }]);
  if (hasChrt()) rows.push([`${BUSY} busy in the idle class`, ['chrt', '--idle', '0'], { policy: 5 }]);
  const f = (x) => x.toFixed(2).padStart(8);
  console.log(`wake-ups every 3 ms, ${WAKES} per row, ~0.5 ms of work each; ${os.availableParallelism()} cores`);
  console.log(
    `${'next to'.padEnd(28)}${'wake p50'.padStart(9)}${'wake p99'.padStart(9)}${'work p50'.padStart(9)}${'work p99'.padStart(9)}`,
  );
  for (const [label, prefix, expected] of rows) {
    const stop = prefix ? await busy(prefix, expected) : () => {};
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
