// Our whole stack for the benchmarks, each part its own process: a nats-server on a free port, a
// fresh database with every migration, and every app's built dist/main.js (as scripts/run-stack.js
// runs them); plus CPU accounting of processes from /proc/<pid>/stat, Postgres backends included.
'use strict';
const { spawn, execFileSync } = require('node:child_process');
const { readFileSync, readdirSync, mkdtempSync, rmSync, existsSync, openSync } = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { Client } = require('pg');
const { stackApps } = require('../../scripts/stack-apps');

const root = path.join(__dirname, '..', '..');
const cfg = {
  // Apps to run under `node --cpu-prof` (comma-separated, e.g. gateway,message-proxy); profiles in BENCH_PROFILE_DIR.
  profile: (process.env.BENCH_PROFILE ?? '').split(',').filter(Boolean),
  profileDir: process.env.BENCH_PROFILE_DIR ?? path.join(process.cwd(), 'bench-profiles'),
};

const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
const MS_PER_TICK = 1000 / CLK_TCK;
const LOG_DIR = mkdtempSync(path.join(os.tmpdir(), 'bench-stack-'));

// As `pnpm start` runs it (one proxy replica per lane); BENCH_PROXY_LANES=one runs a single replica for both.
const APPS = stackApps({ lanes: process.env.BENCH_PROXY_LANES !== 'one' });

// ---------------------------------------------------------------------------------------------
// Processes and their CPU

/** Every process we started or measure: name, group (mock, portkey, ours) and pid. */
const processes = [];
const children = [];

/** A process's CPU ticks so far, user and system (the kernel's work on its behalf: syscalls, sockets). */
function cpuTicksSplit(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the command: state is field 3, utime field 14, stime field 15 (1-based over the whole line).
    return { user: Number(fields[11]), system: Number(fields[12]) };
  } catch {
    return null;
  }
}

function cpuTicks(pid) {
  const t = cpuTicksSplit(pid);
  return t === null ? null : t.user + t.system;
}

/** ms of CPU a process has spent so far (null once it is gone). */
function cpuMs(pid) {
  const ticks = cpuTicks(pid);
  return ticks === null ? null : ticks * MS_PER_TICK;
}

/** CPU ticks per process name, Postgres backends of our database included. */
async function snapshot(pg, dbName) {
  const out = new Map();
  // Messages through our nats-server so far (its monitoring endpoint), beside the CPU.
  if (natsMonitor) {
    try {
      const v = await (await fetch(`${natsMonitor}/varz`)).json();
      out.nats = { inMsgs: v.in_msgs, outMsgs: v.out_msgs, inBytes: v.in_bytes, outBytes: v.out_bytes };
    } catch {
      // No figures this time.
    }
  }
  for (const p of processes) out.set(p.name, cpuEntry(p.group, p.pid));
  // Transactions committed and rows inserted in our database so far (Postgres's cumulative statistics).
  try {
    const { rows: stats } = await pg.query(
      'select xact_commit::float8 as commits, tup_inserted::float8 as inserted from pg_stat_database where datname = $1',
      [dbName],
    );
    if (stats[0]) out.pg = stats[0];
  } catch {
    // No figures this time.
  }
  const { rows } = await pg.query('select pid from pg_stat_activity where datname = $1', [dbName]);
  for (const { pid } of rows) out.set(`postgres:${pid}`, { ...cpuEntry('ours', pid), postgres: true });
  return out;
}

/**
 * A snapshot's entry for one process: its group, CPU ticks so far and the system ones among them,
 * and its threads' wake-ups (0 once it is gone).
 */
function cpuEntry(group, pid) {
  const t = cpuTicksSplit(pid) ?? { user: 0, system: 0 };
  return { group, ticks: t.user + t.system, system: t.system, wakeups: wakeups(pid) };
}

/**
 * Times a process's threads gave up the CPU to wait (voluntary context switches, summed over its
 * threads): each is a wait for a socket, a timer or another thread, then a wake-up, and on this
 * machine a wake-up costs tens of microseconds of the kernel's time. A hop between processes, or a
 * hand-off to a worker thread and back, shows here per request.
 */
function wakeups(pid) {
  let sum = 0;
  try {
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      sum += Number(/^voluntary_ctxt_switches:\s*(\d+)/m.exec(status)?.[1] ?? 0);
    }
  } catch {
    // Gone (or a thread ended while being read): what was read stands.
  }
  return sum;
}

/**
 * Waits until the group's processes are quiet (at most 2 ticks of CPU over 300 ms, or `maxMs`), so
 * work a load left behind (records stored asynchronously) is counted with that load, not the next.
 */
async function settle(group, maxMs = 20_000) {
  const ticks = () => processes.filter((p) => p.group === group).reduce((sum, p) => sum + (cpuTicks(p.pid) ?? 0), 0);
  const end = Date.now() + maxMs;
  let last = ticks();
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 300));
    const now = ticks();
    if (now - last <= 2) return;
    last = now;
  }
}

/** ms of CPU spent between two snapshots, per process and summed per group. */
function cpuBetween(before, after) {
  const perProcess = {};
  const perProcessWakeups = {};
  const perGroup = {};
  // Of perGroup, the system (kernel) time.
  const perGroupSystem = {};
  for (const [name, a] of after) {
    const b = before.get(name);
    const ms = (a.ticks - (b ? b.ticks : 0)) * MS_PER_TICK;
    const key = a.postgres ? 'postgres backends' : name;
    perProcess[key] = (perProcess[key] ?? 0) + ms;
    perProcessWakeups[key] = (perProcessWakeups[key] ?? 0) + Math.max(0, a.wakeups - (b ? b.wakeups : 0));
    perGroup[a.group] = (perGroup[a.group] ?? 0) + ms;
    perGroupSystem[a.group] = (perGroupSystem[a.group] ?? 0) + (a.system - (b ? b.system : 0)) * MS_PER_TICK;
  }
  const nats =
    before.nats && after.nats
      ? Object.fromEntries(Object.keys(after.nats).map((k) => [k, after.nats[k] - before.nats[k]]))
      : undefined;
  const pg =
    before.pg && after.pg
      ? { commits: after.pg.commits - before.pg.commits, inserted: after.pg.inserted - before.pg.inserted }
      : undefined;
  return { perProcess, perProcessWakeups, perGroup, perGroupSystem, nats, pg };
}

/**
 * nats-server's Go scheduler as deployed: one thread running Go code (`GOMAXPROCS=1`, as the
 * deploy's one-core CPU limit gives it and docker-compose.yml sets), unless BENCH_NATS_GOMAXPROCS
 * says otherwise ('' leaves Go's default, one per core).
 */
function natsServerEnv() {
  const procs = process.env.BENCH_NATS_GOMAXPROCS ?? '1';
  return procs === '' ? {} : { GOMAXPROCS: procs };
}

function start(name, group, args, env = {}, opts = {}) {
  const log = path.join(LOG_DIR, `${name}.log`);
  const fd = openSync(log, 'a');
  const child = spawn(args[0], args.slice(1), {
    env: { ...process.env, ...env },
    stdio: ['ignore', opts.pipe ? 'pipe' : fd, fd],
    cwd: root,
  });
  child.on('exit', (code, signal) => {
    if (!stopping) console.error(`${name} exited (${signal ?? code}); see ${log}`);
  });
  children.push(child);
  processes.push({ name, group, pid: child.pid });
  return child;
}

let stopping = false;
async function stopAll() {
  stopping = true;
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
  await Promise.all(
    children.map((c) =>
      c.exitCode !== null || c.signalCode !== null
        ? null
        : new Promise((r) => {
            const t = setTimeout(() => {
              c.kill('SIGKILL');
              r();
            }, 8000);
            c.on('exit', () => {
              clearTimeout(t);
              r();
            });
          }),
    ),
  );
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitFor(what, check, timeoutMs = 90_000) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not up yet
    }
    if (Date.now() > end) throw new Error(`${what} did not come up in ${timeoutMs / 1000} s (logs in ${LOG_DIR})`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const statusOf = (url) =>
  fetch(url)
    .then((r) => r.status)
    .catch(() => 0);

/** The database server's admin URL: BENCH_DATABASE_ADMIN_URL, or DATABASE_URL's server with the postgres database. */
function adminDatabaseUrl() {
  const u = new URL(
    process.env.BENCH_DATABASE_ADMIN_URL ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  );
  if (!process.env.BENCH_DATABASE_ADMIN_URL) u.pathname = '/postgres';
  return u.href;
}

/** Starts our stack; resolves when the gateway is ready. `stop()` ends it and drops its database. */
async function startOurs(extraEnv = {}) {
  const adminUrl = adminDatabaseUrl();
  const natsPort = await freePort();
  const monitorPort = await freePort();
  natsMonitor = `http://127.0.0.1:${monitorPort}`;
  const natsDir = path.join(LOG_DIR, 'nats');
  // Authentication on, as deployed: a user per service with its permissions, development passwords.
  const { devNatsPasswords, natsServerAuthorization } = require(
    path.join(__dirname, '..', '..', 'libs', 'messaging', 'dist', 'index.js'),
  );
  require('node:fs').mkdirSync(natsDir, { recursive: true });
  const natsConfig = path.join(natsDir, 'auth.conf');
  require('node:fs').writeFileSync(natsConfig, natsServerAuthorization(devNatsPasswords()));
  start(
    'nats-server',
    'ours',
    [
      'nats-server',
      '-c',
      natsConfig,
      '-js',
      '-a',
      '127.0.0.1',
      '-p',
      String(natsPort),
      '-m',
      String(monitorPort),
      '-sd',
      natsDir,
    ],
    natsServerEnv(),
  );
  await waitFor(
    'nats-server',
    () =>
      new Promise((resolve) => {
        const s = net.connect(natsPort, '127.0.0.1', () => {
          s.end();
          resolve(true);
        });
        s.on('error', () => resolve(false));
      }),
  );

  const dbName = `bench_proxy_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`drop database if exists ${dbName}`);
  await admin.query(`create database ${dbName}`);
  database = { admin, dbName };
  const dbUrl = new URL(adminUrl);
  dbUrl.pathname = `/${dbName}`;
  execFileSync(process.execPath, [path.join(root, 'scripts', 'db-migrate.js')], {
    env: { ...process.env, DATABASE_URL: dbUrl.href },
    stdio: 'ignore',
  });

  const gatewayPort = Number(process.env.GATEWAY_PORT ?? 0) || (await freePort());
  const env = {
    NATS_URL: `nats://127.0.0.1:${natsPort}`,
    DATABASE_URL: dbUrl.href,
    GATEWAY_PORT: String(gatewayPort),
    GATEWAY_HOST: '127.0.0.1',
    HEALTH_PORT: '0',
    OUTBOUND_ALLOWLIST: '127.0.0.1',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    NODE_ENV: 'development',
    ...extraEnv,
  };
  // Each app's ops server on a known port: its /metrics has, among others, the event loop's delay.
  const ops = {};
  for (const { name, app, env: appEnv } of APPS) {
    ops[name] = await freePort();
    const main = path.join(root, 'apps', app, 'dist', 'main.js');
    if (!existsSync(main)) throw new Error(`${main} is missing: run pnpm db:generate && pnpm build first`);
    const profile = cfg.profile.includes(name)
      ? ['--cpu-prof', `--cpu-prof-dir=${cfg.profileDir}`, `--cpu-prof-name=${name}.${process.pid}.cpuprofile`]
      : [];
    const traceGc = process.env.BENCH_TRACE_GC ? ['--trace-gc'] : [];
    // Node or V8 flags for every app (some, like --single-threaded-gc, are refused in NODE_OPTIONS).
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    start(name, 'ours', [process.execPath, ...profile, ...traceGc, ...nodeArgs, main], {
      ...env,
      ...appEnv,
      HEALTH_PORT: String(ops[name]),
    });
  }
  const url = `http://127.0.0.1:${gatewayPort}`;
  await waitFor('our stack', async () => (await statusOf(`${url}/readyz`)) === 200);
  return {
    url,
    dbName,
    admin,
    natsUrl: env.NATS_URL,
    ops: Object.fromEntries(Object.entries(ops).map(([app, port]) => [app, `http://127.0.0.1:${port}`])),
    snapshot: () => snapshot(admin, dbName),
  };
}

let natsMonitor; // our nats-server's monitoring address, once started
let database; // { admin, dbName } once created, so a failed start is cleaned up too

/** Stops every process started here, drops the stack's database and removes the logs (unless BENCH_KEEP_LOGS). */
async function stopEverything() {
  await stopAll();
  if (database) {
    await database.admin.query(`drop database if exists ${database.dbName} with (force)`).catch(() => {});
    await database.admin.end().catch(() => {});
    database = undefined;
  }
  if (process.env.BENCH_KEEP_LOGS) console.error(`logs kept in ${LOG_DIR}`);
  else rmSync(LOG_DIR, { recursive: true, force: true });
}

// Ctrl-C or a kill stops the stack too.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    stopEverything().finally(() => process.exit(130));
  });
}

module.exports = {
  root,
  start,
  natsServerEnv,
  startOurs,
  stopEverything,
  snapshot,
  settle,
  cpuBetween,
  freePort,
  waitFor,
  statusOf,
  processes,
  cpuMs,
  adminDatabaseUrl,
};
