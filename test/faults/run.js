#!/usr/bin/env node
// The fault-injection suite: `pnpm test:faults` (after `pnpm build`). It starts its own nats-server
// and its own Postgres cluster on free ports, runs every service as its own process from its dist/
// folder, puts load through the gateway (JSON messages, fast streams, 3 s streams and site
// registrations) against a mock Anthropic upstream, injects one fault per scenario, and checks what
// every client saw against what the stores hold. Prints a table; exits 1 if a scenario misses a bar:
//   0 hung streams, 0 2xx answers without their prompt record, 0 duplicate records, 0 registrations
//   answered 200 but missing from registrations or the audit table, steady success within 5 s of the
//   fault's removal, 0 responses of 500, no service exiting that the scenario did not stop.
// Options: --only <scenario,...>   --rate <proxy requests/s> (default 12)   --keep (leave the temp dir)
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { parseArgs } = require('node:util');
const { Client } = require('pg');
const { signDevToken } = require('../../libs/auth/dist/index.js');
const { devNatsPasswords, natsServerAuthorization } = require('../../libs/messaging/dist/index.js');

const ROOT = path.join(__dirname, '..', '..');
const { values: opts } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    only: { type: 'string' },
    rate: { type: 'string', default: '12' },
    keep: { type: 'boolean', default: false },
  },
});
const PROXY_RATE = Number(opts.rate);
const REGISTRATION_RATE = 4;
const RECOVERY_BAR_MS = 5000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Date.now();

// ---------------------------------------------------------------------------------------------
// Infrastructure: its own nats-server and Postgres cluster.

async function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'bastion-faults-'));
const logDir = path.join(work, 'logs');
fs.mkdirSync(logDir);

function pgBin() {
  const files = execFileSync('dpkg', ['-L', 'postgresql-15'], { encoding: 'utf8' }).split('\n');
  const initdb = files.find((f) => f.endsWith('/bin/initdb'));
  if (!initdb) throw new Error('initdb not found in the postgresql-15 package');
  return path.dirname(initdb);
}

/** Runs a Postgres binary as the `postgres` user when we are root (Postgres refuses root). */
function asPostgres(bin, args) {
  if (process.getuid && process.getuid() === 0)
    return execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  return execFileSync(bin, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

class Postgres {
  constructor(port) {
    this.port = port;
    this.bin = pgBin();
    this.dir = path.join(work, 'pg');
    this.log = path.join(work, 'pg', 'server.log');
  }
  init() {
    fs.mkdirSync(this.dir);
    if (process.getuid && process.getuid() === 0) execFileSync('chown', ['-R', 'postgres', work]);
    fs.chmodSync(work, 0o755);
    asPostgres(path.join(this.bin, 'initdb'), [
      '-D',
      path.join(this.dir, 'data'),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
    ]);
  }
  start() {
    asPostgres(path.join(this.bin, 'pg_ctl'), [
      '-D',
      path.join(this.dir, 'data'),
      '-l',
      this.log,
      '-w',
      '-t',
      '30',
      '-o',
      `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off`,
      'start',
    ]);
  }
  /** A crash: `immediate` stops without a checkpoint, as a killed server would. */
  crash() {
    asPostgres(path.join(this.bin, 'pg_ctl'), ['-D', path.join(this.dir, 'data'), '-m', 'immediate', 'stop']);
  }
  stop() {
    try {
      asPostgres(path.join(this.bin, 'pg_ctl'), ['-D', path.join(this.dir, 'data'), '-m', 'fast', 'stop']);
    } catch {
      /* already down */
    }
  }
  url(db = 'postgres') {
    return `postgresql://postgres@127.0.0.1:${this.port}/${db}`;
  }
}

class Nats {
  constructor(port) {
    this.port = port;
    this.dir = path.join(work, 'nats');
  }
  async start() {
    // Authentication on, as deployed: a user per service with its permissions, development passwords.
    fs.mkdirSync(this.dir, { recursive: true });
    const config = path.join(this.dir, 'auth.conf');
    fs.writeFileSync(config, natsServerAuthorization(devNatsPasswords()));
    this.child = spawn(
      'nats-server',
      ['-c', config, '-js', '-a', '127.0.0.1', '-p', String(this.port), '-sd', this.dir],
      { stdio: ['ignore', 'ignore', fs.openSync(path.join(logDir, 'nats.log'), 'a')] },
    );
    for (let i = 0; i < 100; i++) {
      if (await canConnect(this.port)) return;
      await sleep(50);
    }
    throw new Error('nats-server did not start');
  }
  kill() {
    this.child.kill('SIGKILL');
  }
  get url() {
    return `nats://127.0.0.1:${this.port}`;
  }
}

function canConnect(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

// ---------------------------------------------------------------------------------------------
// Services, each its own process.

const SERVICES = ['tokens', 'providers', 'prompts', 'projects', 'message-proxy', 'gateway'];

class Service {
  constructor(name, env) {
    this.name = name;
    this.env = env;
    this.expectedExit = false;
    this.unexpectedExits = 0;
  }
  start() {
    const log = fs.openSync(path.join(logDir, `${this.name}.log`), 'a');
    const child = spawn(process.execPath, [path.join(ROOT, 'apps', this.name, 'dist', 'main.js')], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', log, log],
    });
    child.on('exit', (code, signal) => {
      if (!child.expectedExit) {
        this.unexpectedExits++;
        console.log(`  ! ${this.name} exited unexpectedly (${signal ?? code})`);
      }
    });
    this.child = child;
    return child;
  }
  /** The process as it is now, marked as stopped on purpose (its exit is not a failure). */
  signal(sig) {
    const child = this.child;
    child.expectedExit = true;
    child.kill(sig);
    return new Promise((resolve) =>
      child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()),
    );
  }
  async ready(timeoutMs = 120_000) {
    const url =
      this.name === 'gateway'
        ? `http://127.0.0.1:${this.env.GATEWAY_PORT}/readyz?self`
        : `http://127.0.0.1:${this.env.HEALTH_PORT}/readyz`;
    const started = now();
    while (now() - started < timeoutMs) {
      try {
        if ((await fetch(url, { signal: AbortSignal.timeout(2000) })).status === 200) return;
      } catch {
        /* not yet */
      }
      await sleep(100);
    }
    throw new Error(`${this.name} not ready within ${timeoutMs} ms (log: ${path.join(logDir, `${this.name}.log`)})`);
  }
}

// ---------------------------------------------------------------------------------------------
// Load through the gateway, and what each client saw.

class Load {
  constructor(base, tokens) {
    this.base = base;
    this.tokens = tokens;
    this.results = [];
    this.inflight = new Set();
    this.n = 0;
  }
  start(scenario) {
    this.scenario = scenario;
    const kinds = ['json', 'fast-stream', 'json', 'slow-stream', 'fast-stream', 'json'];
    this.timers = [
      setInterval(() => this.track(this.proxy(kinds[this.n++ % kinds.length])), 1000 / PROXY_RATE),
      setInterval(() => this.track(this.register()), 1000 / REGISTRATION_RATE),
    ];
  }
  stop() {
    for (const t of this.timers) clearInterval(t);
  }
  track(promise) {
    this.inflight.add(promise);
    promise.finally(() => this.inflight.delete(promise));
  }
  async settle(ms) {
    const deadline = now() + ms;
    while (this.inflight.size > 0 && now() < deadline) await sleep(100);
  }

  async proxy(kind) {
    const r = { scenario: this.scenario, kind, start: now(), status: 0, ok: false, hung: false, cut: false };
    this.results.push(r);
    const stream = kind !== 'json';
    const body = {
      model: kind === 'slow-stream' ? 'slow' : 'claude-fault',
      max_tokens: 64,
      stream,
      messages: [{ role: 'user', content: 'How did the quarter go?' }],
    };
    // A client gives up after 20 s: anything still open then hung.
    const abort = new AbortController();
    const timer = setTimeout(() => ((r.hung = true), abort.abort()), 20_000);
    try {
      const res = await fetch(`${this.base}/vendor/fault-claude/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-api-key': this.tokens.project,
          'anthropic-version': '2023-06-01',
        },
        body: JSON.stringify(body),
        signal: abort.signal,
      });
      r.status = res.status;
      r.promptId = res.headers.get('x-bastion-prompt-id');
      r.retryAfter = res.headers.get('retry-after');
      const text = await res.text();
      if (res.status >= 300) r.errorBody = text.slice(0, 200);
      r.ok =
        res.status === 200 && (!stream || (text.includes('event: message_stop') && !text.includes('event: error')));
      r.cut = stream && res.status === 200 && !r.ok;
    } catch (err) {
      r.error = err.cause?.code ?? err.name;
    } finally {
      clearTimeout(timer);
      r.end = now();
    }
  }

  async register() {
    const name = `node-${process.pid}-${this.n++}-${Math.random().toString(36).slice(2, 8)}`;
    const r = { scenario: this.scenario, kind: 'registration', name, start: now(), status: 0, ok: false, hung: false };
    this.results.push(r);
    const abort = new AbortController();
    const timer = setTimeout(() => ((r.hung = true), abort.abort()), 20_000);
    try {
      const res = await fetch(`${this.base}/api/register/registerBootstrap`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
        },
        body: JSON.stringify({
          metadata: { name },
          spec: {
            token: this.tokens.site,
            passport: { cluster_name: 'site-fault', cluster_size: 1, latitude: 48.85, longitude: 2.35 },
          },
        }),
        signal: abort.signal,
      });
      r.status = res.status;
      r.retryAfter = res.headers.get('retry-after');
      const text = await res.text();
      if (res.status === 200) r.uid = JSON.parse(text).system_metadata?.uid;
      else r.errorBody = text.slice(0, 200);
      r.ok = res.status === 200;
    } catch (err) {
      r.error = err.cause?.code ?? err.name;
    } finally {
      clearTimeout(timer);
      r.end = now();
    }
  }
}

async function api(base, method, route, auth, payload) {
  const res = await fetch(`${base}${route}`, {
    method,
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: payload === undefined ? undefined : JSON.stringify(payload),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function setup(base, mockUrl) {
  const tenant = `faults-${Date.now().toString(36)}`;
  const admin = `Bearer ${signDevToken({ tenant, roles: ['admin'] })}`;
  await api(base, 'POST', '/backend/v1/providers', admin, {
    name: 'fault-claude',
    systemProvider: 'anthropic',
    inputs: { baseUrl: mockUrl },
    secrets: { apiKey: 'sk-fault' },
    maxRequestsPerSecond: 100000,
    requestConcurrencyLimit: { requests: 100000, decayPerSecond: 100000 },
  });
  const project = await api(base, 'POST', '/backend/v1/projects', admin, { name: 'faults' });
  const id = project.id ?? project.project.id;
  await api(base, 'PATCH', `/backend/v1/projects/${id}`, admin, { deploymentStatus: 'live' });
  const site = await api(base, 'POST', '/api/register/namespaces/system/tokens', admin, {
    metadata: { name: 'fleet' },
    spec: {},
  });
  return { project: signDevToken({ tenant, roles: ['member'], project: id }), site: site.system_metadata.uid };
}

// ---------------------------------------------------------------------------------------------
// Checks against the stores.

async function query(url, sql, params) {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    return (await db.query(sql, params)).rows;
  } finally {
    await db.end();
  }
}

/** Prompt ids of 2xx answers not in the store, after giving the store up to `waitMs` to catch up. */
async function missingPrompts(dbUrl, ids, waitMs) {
  const deadline = now() + waitMs;
  for (;;) {
    const rows = ids.length
      ? await query(
          dbUrl,
          'SELECT id::text AS id, count(*)::int AS n FROM prompts.prompts WHERE id = ANY($1::uuid[]) GROUP BY id',
          [ids],
        )
      : [];
    const found = new Map(rows.map((r) => [r.id, r.n]));
    const missing = ids.filter((id) => !found.has(id));
    const duplicates = rows.filter((r) => r.n > 1).length;
    if (missing.length === 0 || now() > deadline) return { missing, duplicates };
    await sleep(500);
  }
}

async function missingRegistrations(dbUrl, regs) {
  if (regs.length === 0) return 0;
  const uids = regs.map((r) => r.uid);
  const names = regs.map((r) => r.name);
  const stored = new Set(
    (await query(dbUrl, 'SELECT uid::text AS uid FROM tokens.registrations WHERE uid = ANY($1::uuid[])', [uids])).map(
      (r) => r.uid,
    ),
  );
  const audited = new Set(
    (
      await query(
        dbUrl,
        "SELECT node_name FROM tokens.admission_attempts WHERE outcome = 'ADMITTED' AND node_name = ANY($1)",
        [names],
      )
    ).map((r) => r.node_name),
  );
  return regs.filter((r) => !stored.has(r.uid) || !audited.has(r.name)).length;
}

/**
 * From the fault's removal: when the first request succeeded, and from when on every request
 * succeeded (ms after removal; 0 when nothing failed after it).
 */
function recovery(results, removedAt) {
  const after = results.filter((r) => r.start >= removedAt).sort((a, b) => a.start - b.start);
  const first = after.find((r) => r.ok);
  let lastFailure = -1;
  after.forEach((r, i) => {
    if (!r.ok) lastFailure = i;
  });
  const steady = lastFailure === -1 ? removedAt : after[lastFailure + 1]?.start;
  return {
    first: first ? Math.max(0, first.start - removedAt) : Infinity,
    steady: steady === undefined ? Infinity : Math.max(0, steady - removedAt),
  };
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const [natsPort, pgPort, gatewayPort] = [await freePort(), await freePort(), await freePort()];
  const pg = new Postgres(pgPort);
  const nats = new Nats(natsPort);
  const services = {};
  let mock;
  const cleanup = async () => {
    for (const s of Object.values(services)) {
      if (s.child && s.child.exitCode === null) {
        s.child.expectedExit = true;
        s.child.kill('SIGKILL');
      }
    }
    mock?.kill();
    nats.child?.kill('SIGKILL');
    pg.stop();
    if (!opts.keep) fs.rmSync(work, { recursive: true, force: true });
  };
  process.on('SIGINT', () => cleanup().then(() => process.exit(130)));
  try {
    console.log(`fault suite: work dir ${work}`);
    pg.init();
    pg.start();
    await query(pg.url(), 'CREATE DATABASE bastion_faults');
    const dbUrl = pg.url('bastion_faults');
    execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'db-migrate.js')], {
      env: { ...process.env, DATABASE_URL: dbUrl },
      stdio: 'ignore',
    });
    await nats.start();
    mock = spawn(process.execPath, [path.join(__dirname, 'mock-anthropic.js')], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const mockUrl = await new Promise((resolve) => mock.stdout.once('data', (d) => resolve(String(d).trim())));

    const common = {
      NATS_URL: nats.url,
      DATABASE_URL: dbUrl,
      NODE_ENV: 'development',
      LOG_LEVEL: 'warn',
      OUTBOUND_ALLOWLIST: '127.0.0.1',
      SHUTDOWN_GRACE_MS: '15000',
      GATEWAY_PORT: String(gatewayPort),
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_TRUST_PROXY: 'true',
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
    };
    for (const name of SERVICES) {
      services[name] = new Service(name, { ...common, HEALTH_PORT: String(await freePort()) });
      services[name].start();
    }
    for (const name of SERVICES) await services[name].ready();
    const base = `http://127.0.0.1:${gatewayPort}`;
    const tokens = await setup(base, mockUrl);
    const load = new Load(base, tokens);

    // Warm-up: the path works before any fault.
    load.start('warm-up');
    await sleep(2000);
    load.stop();
    await load.settle(10_000);
    const warm = load.results.filter((r) => r.scenario === 'warm-up');
    if (!warm.some((r) => r.ok && r.kind === 'json') || !warm.some((r) => r.ok && r.kind === 'registration')) {
      console.log(warm.filter((r) => !r.ok).slice(0, 5));
      throw new Error('the stack does not work before any fault');
    }

    /** Restarts a service as an orchestrator would: a new process at once. */
    const restart = async (name) => {
      services[name].start();
      await services[name].ready();
    };
    const scenarios = [
      { name: 'NATS down 10 s', hold: 10_000, inject: () => nats.kill(), remove: () => nats.start() },
      { name: 'NATS down 60 s', hold: 60_000, inject: () => nats.kill(), remove: () => nats.start() },
      { name: 'Postgres crash 10 s', hold: 10_000, inject: () => pg.crash(), remove: () => pg.start() },
      {
        name: 'message-proxy SIGKILL',
        hold: 0,
        inject: () => services['message-proxy'].signal('SIGKILL'),
        remove: () => restart('message-proxy'),
      },
      { name: 'message-proxy SIGTERM', hold: 0, rolling: 'message-proxy' },
      {
        name: 'tokens SIGKILL',
        hold: 0,
        inject: () => services.tokens.signal('SIGKILL'),
        remove: () => restart('tokens'),
      },
      { name: 'tokens SIGTERM', hold: 0, rolling: 'tokens' },
      {
        name: 'prompts SIGKILL',
        hold: 0,
        inject: () => services.prompts.signal('SIGKILL'),
        remove: () => restart('prompts'),
      },
      {
        name: 'gateway SIGTERM',
        hold: 0,
        inject: async () => {
          const old = services.gateway.child;
          const stopped = services.gateway.signal('SIGTERM');
          // Its listener closes at once; the next gateway takes the port while the old one drains.
          for (let i = 0; i < 50 && (await canConnect(gatewayPort)); i++) await sleep(50);
          // The draining gateway still serves its ops port (readiness 503): the new one gets its own, as a new pod would.
          services.gateway.env = { ...services.gateway.env, HEALTH_PORT: String(await freePort()) };
          services.gateway.start();
          services.gateway.draining = stopped.then(() => old);
        },
        remove: () => services.gateway.ready(),
      },
    ].filter((s) => !opts.only || opts.only.split(',').some((o) => s.name.toLowerCase().includes(o.toLowerCase())));

    const rows = [];
    for (const s of scenarios) {
      process.stdout.write(`- ${s.name} ... `);
      const exitsBefore = Object.fromEntries(SERVICES.map((n) => [n, services[n].unexpectedExits]));
      load.start(s.name);
      await sleep(3000);
      let removedAt;
      if (s.rolling) {
        // A rolling restart: the new replica is up before the old one gets SIGTERM.
        const old = services[s.rolling];
        const next = new Service(s.rolling, { ...old.env, HEALTH_PORT: String(await freePort()) });
        next.start();
        await next.ready();
        removedAt = now();
        await old.signal('SIGTERM');
        services[s.rolling] = next;
      } else {
        await s.inject();
        await sleep(s.hold);
        await s.remove();
        removedAt = now();
      }
      await sleep(8000);
      load.stop();
      await load.settle(25_000);
      const mine = load.results.filter((r) => r.scenario === s.name);
      const proxied = mine.filter((r) => r.kind !== 'registration');
      const answered = proxied.filter((r) => r.ok && r.promptId);
      const regs = mine.filter((r) => r.kind === 'registration' && r.ok && r.uid);
      await services.prompts.ready(30_000).catch(() => undefined);
      const prompts = await missingPrompts(
        dbUrl,
        answered.map((r) => r.promptId),
        20_000,
      );
      const rec = recovery(mine, removedAt);
      const unexpected = SERVICES.filter((n) => services[n].unexpectedExits > exitsBefore[n]);
      const row = {
        scenario: s.name,
        requests: mine.length,
        ok: mine.filter((r) => r.ok).length,
        s503: mine.filter((r) => r.status === 503).length,
        s503NoRetry: mine.filter((r) => r.status === 503 && !r.retryAfter).length,
        s504: mine.filter((r) => r.status === 504).length,
        s500: mine.filter((r) => r.status === 500).length,
        refused: mine.filter((r) => r.status === 0 && !r.hung).length,
        hung: mine.filter((r) => r.hung).length,
        cut: proxied.filter((r) => r.cut).length,
        noRecord: prompts.missing.length,
        duplicates: prompts.duplicates,
        regOk: regs.length,
        regMissing: await missingRegistrations(dbUrl, regs),
        first: rec.first,
        steady: rec.steady,
        exits: unexpected.join(' ') || '-',
      };
      row.pass =
        row.hung === 0 &&
        row.noRecord === 0 &&
        row.duplicates === 0 &&
        row.regMissing === 0 &&
        row.s500 === 0 &&
        row.steady <= RECOVERY_BAR_MS &&
        unexpected.length === 0;
      rows.push(row);
      if (row.s500 > 0)
        console.log(
          '\n  500s:',
          mine
            .filter((r) => r.status === 500)
            .slice(0, 3)
            .map((r) => `${r.kind} ${r.errorBody}`),
        );
      console.log(row.pass ? 'ok' : 'FAILED');
      if (services.gateway.draining) await services.gateway.draining;
    }

    const sec = (ms) => (Number.isFinite(ms) ? (ms / 1000).toFixed(1) : 'never');
    const header = [
      'scenario',
      'reqs',
      '2xx ok',
      '503',
      '503 no R-A',
      '504',
      '500',
      'refused',
      'hung',
      'cut streams',
      '2xx w/o record',
      'dup records',
      'reg 200',
      'reg missing',
      'first ok s',
      'steady s',
      'exits',
      'pass',
    ];
    const table = rows.map((r) => [
      r.scenario,
      r.requests,
      r.ok,
      r.s503,
      r.s503NoRetry,
      r.s504,
      r.s500,
      r.refused,
      r.hung,
      r.cut,
      r.noRecord,
      r.duplicates,
      r.regOk,
      r.regMissing,
      sec(r.first),
      sec(r.steady),
      r.exits,
      r.pass ? 'yes' : 'NO',
    ]);
    console.log('');
    console.log(`| ${header.join(' | ')} |`);
    console.log(`|${header.map(() => '---').join('|')}|`);
    for (const t of table) console.log(`| ${t.join(' | ')} |`);
    console.log('');
    console.log(
      `load: ${PROXY_RATE} proxy requests/s (JSON, fast streams, 3 s streams) + ${REGISTRATION_RATE} site registrations/s; bar: 0 hung, 0 2xx without record, 0 duplicates, 0 registrations missing, 0 500s, steady success <= ${RECOVERY_BAR_MS / 1000} s after removal, no unexpected exits`,
    );
    const failed = rows.filter((r) => !r.pass);
    if (failed.length) {
      console.log(`FAILED: ${failed.map((r) => r.scenario).join(', ')} (service logs: ${logDir})`);
      opts.keep = true;
      process.exitCode = 1;
    }
  } finally {
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err.stack ?? err.message);
  process.exit(1);
});
