import { Client } from 'pg';
import { testEnv } from '../../../test/support/stack';
import type { TokensConfig } from '../src/config';
import { PrismaService } from '../src/prisma/prisma.service';

/**
 * A migration that changes what a prepared statement reads, applied while the service runs (the
 * migration job runs before the rollout): the statement's next call must still answer.
 */
describe('PrismaService.prepared (real Postgres)', () => {
  const table = `tokens.prepared_probe_${process.pid}`;
  let db: Client;
  let prisma: PrismaService;

  beforeAll(async () => {
    db = new Client({ connectionString: testEnv().DATABASE_URL });
    await db.connect();
    await db.query(`CREATE TABLE ${table} (a int)`);
    await db.query(`INSERT INTO ${table} VALUES (1)`);
    prisma = new PrismaService({ DATABASE_URL: testEnv().DATABASE_URL } as TokensConfig);
  });
  afterAll(async () => {
    await prisma.onModuleDestroy();
    await db.query(`DROP TABLE IF EXISTS ${table}`);
    await db.end();
  });

  it('answers after a migration changed the shape of what the statement reads', async () => {
    const read = () => prisma.prepared<{ a: number }>('probe_read', `SELECT * FROM ${table}`, []);
    expect(await read()).toEqual([{ a: 1 }]);
    await db.query(`ALTER TABLE ${table} ADD COLUMN b int DEFAULT 2`);
    expect(await read()).toEqual([{ a: 1, b: 2 }]);
    expect(await read()).toEqual([{ a: 1, b: 2 }]);
  });
});
