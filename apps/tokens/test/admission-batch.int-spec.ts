import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { testEnv } from '../../../test/support/stack';
import type { TokensConfig } from '../src/config';
import { PrismaService } from '../src/prisma/prisma.service';
import { type AdmitInput, RegistrationRepository } from '../src/tokens/registration.repository';

/**
 * Admissions with unlimited tokens that arrive together share one statement: each still gets
 * exactly the answer it would get alone, and the audit has one row per admission.
 */
describe('RegistrationRepository admission batches (real Postgres)', () => {
  const tenant = `batch-${randomUUID().slice(0, 8)}`;
  let db: Client;
  let prisma: PrismaService;
  let repo: RegistrationRepository;
  let statements: string[];
  /** Set: the batch statement runs, then its answer is lost (the connection broke after the commit). */
  let loseBatchAnswer = false;

  const token = async (opts: { disable?: boolean; name?: string } = {}) => {
    const uid = randomUUID();
    await db.query(
      `INSERT INTO tokens.tokens (uid, tenant, namespace, name, disable, creator_class, creator_id)
       VALUES ($1, $2, 'system', $3, $4, 'test', 'test')`,
      [uid, tenant, opts.name ?? `t-${uid.slice(0, 8)}`, opts.disable ?? false],
    );
    return uid;
  };
  const input = (tokenUid: string, nodeName: string): AdmitInput => ({
    tokenUid,
    nodeName,
    siteName: 'site-a',
    passport: { cluster_name: 'site-a', cluster_size: 1 },
    sourceAddress: '10.0.0.1',
  });

  beforeAll(async () => {
    db = new Client({ connectionString: testEnv().DATABASE_URL });
    await db.connect();
    prisma = new PrismaService({ DATABASE_URL: testEnv().DATABASE_URL } as TokensConfig);
    const prepared = prisma.prepared.bind(prisma);
    statements = [];
    prisma.prepared = (async (name: string, text: string, values: unknown[]) => {
      statements.push(name);
      const rows = await prepared(name, text, values);
      if (loseBatchAnswer && name === 'tokens_admit_unlimited_batch')
        throw new Error('Connection terminated unexpectedly');
      return rows;
    }) as PrismaService['prepared'];
    repo = new RegistrationRepository(prisma);
  });
  afterAll(async () => {
    await db.query('DELETE FROM tokens.admission_attempts WHERE tenant = $1', [tenant]);
    await db.query('DELETE FROM tokens.registrations WHERE tenant = $1', [tenant]);
    await db.query('DELETE FROM tokens.tokens WHERE tenant = $1', [tenant]);
    await prisma.onModuleDestroy();
    await db.end();
  });
  beforeEach(() => {
    statements.length = 0;
    loseBatchAnswer = false;
  });

  it('admits many sites in one statement, each answered with its own registration', async () => {
    const a = await token();
    const b = await token();
    const inputs = Array.from({ length: 20 }, (_, i) => input(i % 2 ? a : b, `node-${tenant}-${i}`));
    const answers = await Promise.all(inputs.map((i) => repo.admit(i, false)));

    expect(statements).toEqual(['tokens_admit_unlimited_batch']);
    answers.forEach((answer, i) => {
      expect(answer?.registration).toMatchObject({
        tenant,
        namespace: 'system',
        name: inputs[i].nodeName,
        tokenUid: inputs[i].tokenUid,
        siteName: 'site-a',
        passport: { cluster_name: 'site-a', cluster_size: 1 },
      });
      expect(answer?.exhaustedRevision).toBeNull();
    });
    const audit = await db.query(
      `SELECT node_name, token_uid::text FROM tokens.admission_attempts WHERE tenant = $1 AND outcome = 'ADMITTED' ORDER BY node_name`,
      [tenant],
    );
    expect(audit.rows).toEqual(
      inputs
        .map((i) => ({ node_name: i.nodeName, token_uid: i.tokenUid }))
        .sort((x, y) => x.node_name.localeCompare(y.node_name)),
    );
  });

  it('refuses within a batch only the admissions the database refuses', async () => {
    const good = await token();
    const disabled = await token({ disable: true });
    const other = await token();
    // The node name is held by another token that still exists.
    const held = `held-${tenant}`;
    expect(await repo.admit(input(other, held), false)).not.toBeNull();
    statements.length = 0;

    const answers = await Promise.all([
      repo.admit(input(good, `n1-${tenant}`), false),
      repo.admit(input(disabled, `n2-${tenant}`), false),
      repo.admit(input(good, held), false),
      repo.admit(input(randomUUID(), `n3-${tenant}`), false),
      repo.admit(input(good, `n4-${tenant}`), false),
    ]);

    expect(statements).toEqual(['tokens_admit_unlimited_batch']);
    expect(answers.map((a) => a?.registration.name ?? null)).toEqual([
      `n1-${tenant}`,
      null,
      null,
      null,
      `n4-${tenant}`,
    ]);
    const holder = await db.query('SELECT token_uid::text FROM tokens.registrations WHERE tenant = $1 AND name = $2', [
      tenant,
      held,
    ]);
    expect(holder.rows).toEqual([{ token_uid: other }]);
  });

  it('sends the same node name twice at once in two statements, and only one of them gets it', async () => {
    const first = await token();
    const second = await token();
    const node = `twice-${tenant}`;
    const answers = await Promise.all([
      repo.admit(input(first, node), false),
      repo.admit(input(first, `solo-${tenant}`), false),
      repo.admit(input(second, node), false),
    ]);

    expect(statements).toEqual(['tokens_admit_unlimited_batch', 'tokens_admit_unlimited']);
    expect(answers[1]?.registration.name).toBe(`solo-${tenant}`);
    // The two statements run at once; the unique index gives the name to one token, and the other finds it held.
    const winners = [answers[0], answers[2]].filter((a) => a !== null);
    expect(winners).toHaveLength(1);
    const holder = await db.query('SELECT token_uid::text FROM tokens.registrations WHERE tenant = $1 AND name = $2', [
      tenant,
      node,
    ]);
    expect(holder.rows).toEqual([{ token_uid: winners[0]!.registration.tokenUid }]);
  });

  it('runs a failed batch one admission at a time, so one bad admission fails alone', async () => {
    const good = await token();
    const answers = await Promise.allSettled([
      repo.admit(input(good, `ok-${tenant}`), false),
      // Not a uuid: the batch statement fails on it, and so does its own statement.
      repo.admit(input('not-a-uuid', `bad-${tenant}`), false),
    ]);

    expect(statements).toEqual(['tokens_admit_unlimited_batch', 'tokens_admit_unlimited', 'tokens_admit_unlimited']);
    expect(answers[0]).toMatchObject({ status: 'fulfilled', value: { registration: { name: `ok-${tenant}` } } });
    expect(answers[1]).toMatchObject({ status: 'rejected' });
  });

  it('answers every admission of a batch whose answer was lost with the error, and runs none of them again', async () => {
    const t = await token();
    loseBatchAnswer = true;
    const names = [`lost-a-${tenant}`, `lost-b-${tenant}`];
    const answers = await Promise.allSettled(names.map((n) => repo.admit(input(t, n), false)));

    expect(answers.map((a) => a.status)).toEqual(['rejected', 'rejected']);
    // Run again one by one, the admissions that were stored would be audited twice.
    expect(statements).toEqual(['tokens_admit_unlimited_batch']);
    const audit = await db.query(
      `SELECT node_name, count(*)::int AS n FROM tokens.admission_attempts WHERE tenant = $1 AND node_name = ANY($2)
       GROUP BY node_name ORDER BY node_name`,
      [tenant, names],
    );
    expect(audit.rows).toEqual(names.map((node_name) => ({ node_name, n: 1 })));
  });

  it('takes at most ADMIT_BATCH_MAX admissions in one statement', async () => {
    const t = await token();
    const answers = await Promise.all(
      Array.from({ length: 70 }, (_, i) => repo.admit(input(t, `many-${i}-${tenant}`), false)),
    );
    expect(answers.every((a) => a !== null)).toBe(true);
    expect(statements).toEqual(['tokens_admit_unlimited_batch', 'tokens_admit_unlimited_batch']);
  });
});
