#!/usr/bin/env node
// What the image build does, checked without a Docker engine: each app's production-only folder
// (`pnpm deploy --prod`, as the Dockerfile's runtime stage copies) starts and reports it is
// listening, and the `migrate` layout (runner + every service's migrations) applies migrations.
// Needs `pnpm build` first and Postgres/NATS as for `pnpm start`. Usage: pnpm check:images
const { execFileSync, spawn } = require('node:child_process');
const { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, existsSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const APPS = ['gateway', 'tokens', 'providers', 'projects', 'prompts', 'message-proxy'];
const work = mkdtempSync(path.join(tmpdir(), 'bastion-images-'));
const pnpm = (args, cwd = root) => execFileSync('pnpm', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });

function startsListening(dir) {
  return new Promise((resolve) => {
    const env = { ...process.env, NODE_ENV: 'development', HEALTH_PORT: '0', GATEWAY_PORT: '0', LOG_LEVEL: 'info' };
    const child = spawn(process.execPath, ['dist/main.js'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const done = (ok) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      resolve({ ok, out });
    };
    const timer = setTimeout(() => done(false), 20_000);
    for (const s of [child.stdout, child.stderr]) {
      s.on('data', (d) => {
        out += d;
        if (/listening/.test(out)) done(true);
      });
    }
    child.on('exit', () => done(/listening/.test(out)));
  });
}

async function main() {
  let failed = 0;
  for (const app of APPS) {
    const dir = path.join(work, app);
    pnpm(['--filter', `@bastion/${app}`, 'deploy', '--prod', '--legacy', dir]);
    const { ok, out } = await startsListening(dir);
    console.log(`  ${ok ? 'ok  ' : 'FAIL'}  ${app} starts from its production-only folder`);
    if (!ok) {
      failed++;
      console.log(
        out
          .split('\n')
          .slice(0, 15)
          .map((l) => `        ${l}`)
          .join('\n'),
      );
    }
  }
  const migrate = path.join(work, 'migrate');
  pnpm(['--filter', '@bastion/persistence', 'deploy', '--prod', '--legacy', path.join(migrate, 'libs', 'persistence')]);
  mkdirSync(path.join(migrate, 'scripts'), { recursive: true });
  cpSync(path.join(root, 'scripts', 'db-migrate.js'), path.join(migrate, 'scripts', 'db-migrate.js'));
  for (const app of readdirSync(path.join(root, 'apps'))) {
    const prisma = path.join(root, 'apps', app, 'prisma');
    if (existsSync(path.join(prisma, 'schema.prisma')))
      cpSync(prisma, path.join(migrate, 'apps', app, 'prisma'), { recursive: true });
  }
  try {
    execFileSync(process.execPath, ['scripts/db-migrate.js'], { cwd: migrate, stdio: ['ignore', 'pipe', 'pipe'] });
    console.log('  ok    the migrate layout applies migrations');
  } catch (err) {
    failed++;
    console.log(`  FAIL  the migrate layout: ${String(err.stderr ?? err.message).trim()}`);
  }
  rmSync(work, { recursive: true, force: true });
  console.log(`images: ${APPS.length + 1 - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
