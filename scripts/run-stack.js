#!/usr/bin/env node
// Runs every service and the gateway as child processes with prefixed output; Ctrl-C (or SIGTERM)
// stops them all gracefully. Used by `pnpm start` after build. First it finds Postgres and NATS, or
// starts them here (an embedded PostgreSQL, a local nats-server: see libs/testing/src/local-infra.ts),
// and applies pending migrations.
const { spawn } = require('node:child_process');
const path = require('node:path');
const { ensureNats, ensurePostgres } = require('../libs/testing/dist/local-infra.js');
const { findServiceMigrations, migrate } = require('../libs/persistence/dist/db/index.js');
const { stackApps } = require('./stack-apps');

const root = path.join(__dirname, '..');
const APPS = stackApps();

// On one machine each service needs its own ops port (/livez, /readyz, /metrics): 9464, 9465, ...
const healthBase = Number(process.env.HEALTH_PORT ?? 9464);

let infra = [];
let children = [];

async function main() {
  const postgres = await ensurePostgres(root);
  infra.push(postgres);
  console.log(postgres.description);
  const nats = await ensureNats(root);
  infra.push(nats);
  console.log(nats.description);
  for (const s of findServiceMigrations(root)) {
    const url = process.env[`${s.service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`] || postgres.url;
    const applied = await migrate(url, s);
    if (applied.length) console.log(`${s.service}: applied ${applied.join(', ')} (schema ${s.schema})`);
  }
  const env = { ...process.env, DATABASE_URL: postgres.url, NATS_URL: nats.url };
  children = APPS.map(({ name, app, env: appEnv }, i) =>
    runApp(name, app, { ...env, ...appEnv, HEALTH_PORT: String(healthBase + i) }),
  );
}

function runApp(name, app, env) {
  const child = spawn(process.execPath, ['--enable-source-maps', path.join(root, 'apps', app, 'dist', 'main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${name}]`.padEnd(15);
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) process.stdout.write(`${prefix} ${line}\n`);
    });
  }
  child.on('exit', (code, signal) => {
    process.stdout.write(`${prefix} exited (${signal ?? code})\n`);
    if (!stopping) stop(code || 1);
  });
  return child;
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  const timer = setTimeout(() => process.exit(code), 10_000);
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.on('exit', r)))))
    .then(() => Promise.all(infra.map((s) => s.stop())))
    .then(() => {
      clearTimeout(timer);
      process.exit(code);
    });
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

main().catch((err) => {
  console.error(err.message);
  stop(1);
});
