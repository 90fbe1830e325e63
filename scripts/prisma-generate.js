#!/usr/bin/env node
// Generates a service's Prisma client. `prisma generate` only checks that a schema engine binary
// exists (it does not run it); offline it cannot download one, so point it at any existing file.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const { existsSync } = require('node:fs');

const cwd = process.argv[2] ?? process.cwd();
if (!existsSync(path.join(cwd, 'prisma', 'schema.prisma'))) {
  console.log(`${path.basename(cwd)}: no prisma/schema.prisma yet, nothing to generate`);
  process.exit(0);
}
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
};
const prisma = path.join(__dirname, '..', 'node_modules', '.bin', 'prisma');
execFileSync(prisma, ['generate'], { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
