import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { type MigrationSource, prismaSchemaName } from './migrator';

export interface ServiceMigrations extends MigrationSource {
  service: string;
}

/** Every app with a Prisma schema, with its Postgres schema and migrations folder. */
export function findServiceMigrations(repoRoot: string): ServiceMigrations[] {
  const apps = join(repoRoot, 'apps');
  return readdirSync(apps)
    .filter((app) => existsSync(join(apps, app, 'prisma', 'schema.prisma')))
    .sort()
    .map((app) => ({
      service: app,
      schema: prismaSchemaName(join(apps, app, 'prisma', 'schema.prisma')),
      dir: join(apps, app, 'prisma', 'migrations'),
    }));
}

/** `TOKENS_DATABASE_URL` for the tokens service when set, else the shared `DATABASE_URL`. */
export function databaseUrlFor(service: string, env: NodeJS.ProcessEnv = process.env): string {
  const own = env[`${service.toUpperCase().replace(/-/g, '_')}_DATABASE_URL`];
  return own || env.DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
}
