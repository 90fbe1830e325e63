#!/usr/bin/env node
// Runs every service and the gateway as child processes with prefixed output; Ctrl-C (or SIGTERM)
// stops them all gracefully. Used by `pnpm start` after build and migrations.
const { spawn } = require('node:child_process');
const path = require('node:path');

const root = path.join(__dirname, '..');
const APPS = ['tokens', 'providers', 'prompts', 'projects', 'message-proxy', 'gateway'];

// On one machine each service needs its own ops port (/livez, /readyz, /metrics): 9464, 9465, ...
const healthBase = Number(process.env.HEALTH_PORT ?? 9464);

const children = APPS.map((app, i) => {
  const child = spawn(process.execPath, ['--enable-source-maps', path.join(root, 'apps', app, 'dist', 'main.js')], {
    env: { ...process.env, HEALTH_PORT: String(healthBase + i) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = `[${app}]`.padEnd(10);
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
});

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
  const timer = setTimeout(() => process.exit(code), 10_000);
  Promise.all(children.map((c) => (c.exitCode !== null ? null : new Promise((r) => c.on('exit', r))))).then(() => {
    clearTimeout(timer);
    process.exit(code);
  });
}
process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));
