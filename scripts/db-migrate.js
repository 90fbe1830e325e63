#!/usr/bin/env node
// Applies every service's pending migrations: `pnpm db:migrate`. Works offline (no Prisma engine
// download) and records them in each schema's _prisma_migrations table, as `prisma migrate deploy`
// would. The Kubernetes migration job runs this same script.
const path = require('node:path');
const { migrate, findServiceMigrations, databaseUrlFor } = require('../libs/persistence/dist/db/index.js');

async function main() {
  for (const s of findServiceMigrations(path.join(__dirname, '..'))) {
    const applied = await migrate(databaseUrlFor(s.service), s);
    console.log(
      `${s.service}: ${applied.length ? `applied ${applied.join(', ')}` : 'up to date'} (schema ${s.schema})`,
    );
  }
}

main().catch((err) => {
  console.error(`db:migrate failed: ${err.message}`);
  process.exit(1);
});
