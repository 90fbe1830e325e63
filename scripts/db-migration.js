#!/usr/bin/env node
// Authoring migrations offline (Prisma's own `migrate dev` needs a downloaded engine):
//   pnpm db:migration check                 every service: do schema.prisma and migrations/ agree?
//   pnpm db:migration create <service> <name>   write the migration schema.prisma needs
// Uses DATABASE_URL's server for a scratch database (the role needs CREATEDB).
const path = require('node:path');
const { findServiceMigrations } = require('../libs/persistence/dist/db/index.js');
const { missingMigrationSql, createMigration } = require('../libs/schema-tools/dist/index.js');

const root = path.join(__dirname, '..');
const serverUrl = process.env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const toSchema = (s) => ({
  schemaPath: path.join(root, 'apps', s.service, 'prisma', 'schema.prisma'),
  migrationsDir: s.dir,
});

async function main() {
  const [command, service, name] = process.argv.slice(2);
  const services = findServiceMigrations(root);
  if (command === 'check') {
    let drift = false;
    for (const s of services) {
      const sql = await missingMigrationSql(serverUrl, toSchema(s));
      if (sql) {
        drift = true;
        console.error(`${s.service}: schema.prisma has changes no migration makes:\n${sql}`);
      } else console.log(`${s.service}: migrations match schema.prisma`);
    }
    process.exitCode = drift ? 1 : 0;
  } else if (command === 'create' && service && name) {
    const s = services.find((x) => x.service === service);
    if (!s) throw new Error(`no service ${service} with a prisma schema`);
    const dir = await createMigration(serverUrl, toSchema(s), name);
    console.log(
      dir ? `created apps/${service}/prisma/migrations/${dir}/migration.sql` : 'schema.prisma needs no migration',
    );
  } else {
    console.error('usage: pnpm db:migration check | pnpm db:migration create <service> <name>');
    process.exitCode = 2;
  }
}

main().catch((err) => {
  console.error(err.message);
  process.exit(1);
});
