import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { missingMigrationSql } from '@bastion/schema-tools';

const prismaDir = join(__dirname, '..', 'prisma');
const serverUrl = () => process.env.TEST_DATABASE_URL ?? '';

/** Fails when schema.prisma describes tables its migrations do not create (or the other way round). */
describe('projects schema and migrations', () => {
  it('agree', async () => {
    const sql = await missingMigrationSql(serverUrl(), { schemaPath: join(prismaDir, 'schema.prisma'), migrationsDir: join(prismaDir, 'migrations') });
    expect(sql).toBe('');
  });

  it('disagree, naming the missing change, when a field has no migration', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'drift-'));
    cpSync(prismaDir, copy, { recursive: true });
    const schemaPath = join(copy, 'schema.prisma');
    writeFileSync(schemaPath, readFileSync(schemaPath, 'utf8').replace('  rows           Int', '  extraColumn    Int?\n  rows           Int'));
    const sql = await missingMigrationSql(serverUrl(), { schemaPath, migrationsDir: join(copy, 'migrations') });
    expect(sql).toContain('ADD COLUMN     "extraColumn" INTEGER');
  });
});
