import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findServiceMigrations } from '@bastion/persistence';
import { missingMigrationSql } from '../src';

// Each check runs the schema engine over a scratch database: seconds each on a loaded machine.
jest.setTimeout(30_000);

const repo = join(__dirname, '..', '..', '..');
const serverUrl = () => process.env.TEST_DATABASE_URL ?? '';
const services = findServiceMigrations(repo);

/**
 * Every service's schema.prisma and migrations/ agree: a schema change without its migration (or a
 * migration the schema does not describe) fails `pnpm test`.
 */
describe('Prisma schemas and their migrations', () => {
  it('covers every service with a Prisma schema', () => {
    expect(services.map((s) => s.service)).toEqual(
      expect.arrayContaining(['tokens', 'providers', 'projects', 'prompts']),
    );
  });

  it.each(services.map((s) => [s.service, s] as const))('%s: agree', async (_name, s) => {
    const sql = await missingMigrationSql(serverUrl(), {
      schemaPath: join(repo, 'apps', s.service, 'prisma', 'schema.prisma'),
      migrationsDir: s.dir,
    });
    expect(sql).toBe('');
  });

  it('disagree, naming the missing change, when a field has no migration', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'drift-'));
    cpSync(join(repo, 'apps', 'tokens', 'prisma'), copy, { recursive: true });
    const schemaPath = join(copy, 'schema.prisma');
    writeFileSync(
      schemaPath,
      readFileSync(schemaPath, 'utf8').replace('  siteName     String', '  extraColumn  Int?\n  siteName     String'),
    );
    const sql = await missingMigrationSql(serverUrl(), { schemaPath, migrationsDir: join(copy, 'migrations') });
    expect(sql).toContain('ADD COLUMN     "extraColumn" INTEGER');
  });
});
