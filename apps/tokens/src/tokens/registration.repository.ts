import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { type AdmissionOutcome, type Registration } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

export interface AdmitInput {
  tokenUid: string;
  nodeName: string;
  siteName: string;
  passport: Record<string, unknown>;
  sourceAddress: string;
}

export interface AttemptInput {
  outcome: AdmissionOutcome;
  reason: string;
  sourceAddress: string;
  tenant: string | null;
  tokenUid: string | null;
  nodeName: string;
  siteName: string;
}

export interface Admitted {
  registration: Registration;
  /** Set when this registration used the token's last allowed one and moved it to EXPIRED. */
  exhaustedRevision: number | null;
}

interface AdmitRow {
  uid: string;
  tenant: string;
  namespace: string;
  name: string;
  token_uid: string;
  token_name: string;
  site_name: string;
  passport: unknown;
  source_address: string;
  created_at: Date;
  modified_at: Date | null;
  token_state: string;
  token_revision: number;
}

/** At most this many admissions go to Postgres in one statement. */
export const ADMIT_BATCH_MAX = 64;

interface PendingAdmission {
  input: AdmitInput;
  /** Its statement parameters, made once: its ids stay the same whichever statement carries it. */
  values: unknown[];
  resolve(rows: AdmitRow[]): void;
  reject(err: unknown): void;
}

/**
 * Admission writes, each one SQL statement (one round trip), prepared once per connection. The
 * statement re-checks the token in Postgres (still VALID, enabled, registrations left) so the
 * in-memory view can never admit more than the database allows; a limited token's count is taken
 * with a row lock, an unlimited token's row is only read, so sites registering with one token do
 * not queue behind each other.
 *
 * Admissions with unlimited tokens that arrive in the same turn of the event loop (under load, the
 * requests of one NATS read) share one statement and one commit: Postgres's work and the round
 * trips per admission fall with the batch, and a lone admission waits only for the next turn.
 * Within a batch each node name appears once (a later attempt at the same name goes in the next
 * statement, where the unique index orders the two as it orders any two admissions); a batch that
 * Postgres refuses as a whole runs its admissions one by one, so one bad admission does not fail
 * the others.
 */
@Injectable()
export class RegistrationRepository {
  private queue: PendingAdmission[] = [];
  private flushScheduled = false;

  constructor(private readonly prisma: PrismaService) {}

  /** Null when the database refuses (the token changed since the view saw it). */
  async admit(input: AdmitInput, limited: boolean): Promise<Admitted | null> {
    const rows = limited ? await this.admitLimited(input) : await this.queueUnlimited(input);
    const row = rows[0];
    if (!row) return null;
    return {
      registration: {
        uid: row.uid,
        tenant: row.tenant,
        namespace: row.namespace,
        name: row.name,
        tokenUid: row.token_uid,
        tokenName: row.token_name,
        siteName: row.site_name,
        passport: row.passport as Registration['passport'],
        sourceAddress: row.source_address,
        createdAt: row.created_at,
        modifiedAt: row.modified_at,
      },
      exhaustedRevision: limited && row.token_state === 'EXPIRED' ? row.token_revision : null,
    };
  }

  /**
   * Counts a refusal in its row for (source, minute, reason, token): a flood of refusals adds to a
   * few counters instead of a row per attempt.
   */
  async recordRefusal(input: Omit<AttemptInput, 'outcome'>, now = new Date()): Promise<void> {
    const key = refusalKey(input.sourceAddress, input.reason, input.tokenUid, now);
    await this.prisma.$executeRaw`
      INSERT INTO tokens.admission_attempts (id, at, outcome, reason, source_address, tenant, token_uid, node_name, site_name, refusal_key, attempts, last_at)
      VALUES (${randomUUID()}::uuid, ${now}, 'REFUSED', ${input.reason}, ${input.sourceAddress}, ${input.tenant}, ${input.tokenUid}::uuid,
              ${input.nodeName}, ${input.siteName}, ${key}, 1, ${now})
      ON CONFLICT (refusal_key) DO UPDATE SET attempts = admission_attempts.attempts + 1, last_at = EXCLUDED.last_at`;
  }

  /** Deletes audit rows older than `before`; answers how many. */
  async deleteAttemptsBefore(before: Date): Promise<number> {
    const { count } = await this.prisma.admissionAttempt.deleteMany({
      where: { at: { lt: before }, OR: [{ lastAt: null }, { lastAt: { lt: before } }] },
    });
    return count;
  }

  /**
   * The token holding a node name, when it is another token that still exists: a node name belongs
   * to the token that registered it until that token is deleted or an admin deletes the registration.
   */
  async heldByOther(tokenUid: string, nodeName: string): Promise<string | null> {
    const rows = await this.prisma.$queryRaw<{ token_uid: string }[]>`
      SELECT r.token_uid::text AS token_uid FROM tokens.tokens t
      JOIN tokens.registrations r ON r.tenant = t.tenant AND r.namespace = t.namespace AND r.name = ${nodeName}
      JOIN tokens.tokens holder ON holder.uid = r.token_uid
      WHERE t.uid = ${tokenUid}::uuid AND r.token_uid <> t.uid`;
    return rows[0]?.token_uid ?? null;
  }

  /** Deletes a registration (freeing its node name); false when there was none. */
  async delete(tenant: string, namespace: string, name: string): Promise<boolean> {
    const { count } = await this.prisma.registration.deleteMany({ where: { tenant, namespace, name } });
    return count > 0;
  }

  list(tenant: string, namespace: string): Promise<Registration[]> {
    return this.prisma.registration.findMany({ where: { tenant, namespace }, orderBy: { name: 'asc' } });
  }

  byToken(tenant: string, tokenUid: string): Promise<Registration[]> {
    return this.prisma.registration.findMany({ where: { tenant, tokenUid }, orderBy: { name: 'asc' } });
  }

  private admitUnlimited(values: unknown[]): Promise<AdmitRow[]> {
    return this.prisma.prepared<AdmitRow>('tokens_admit_unlimited', ADMIT_UNLIMITED, values);
  }

  private admitLimited(i: AdmitInput): Promise<AdmitRow[]> {
    return this.prisma.prepared<AdmitRow>('tokens_admit_limited', ADMIT_LIMITED, admitValues(i));
  }

  private queueUnlimited(input: AdmitInput): Promise<AdmitRow[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ input, values: admitValues(input), resolve, reject });
      if (this.flushScheduled) return;
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    });
  }

  /** Sends what is queued: batches of distinct node names, each as one statement. */
  private flush(): void {
    this.flushScheduled = false;
    const queued = this.queue;
    this.queue = [];
    const batch: PendingAdmission[] = [];
    const names = new Set<string>();
    for (const item of queued) {
      if (batch.length < ADMIT_BATCH_MAX && !names.has(item.input.nodeName)) {
        names.add(item.input.nodeName);
        batch.push(item);
      } else {
        this.queue.push(item);
      }
    }
    if (this.queue.length) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
    void this.runBatch(batch);
  }

  private async runBatch(batch: PendingAdmission[]): Promise<void> {
    if (batch.length === 1) return settle(batch[0], () => this.admitUnlimited(batch[0].values));
    // In name order, so that concurrent batches take their index entries in one order; each
    // admission's answer is found by its place in the batch.
    batch.sort((a, b) => (a.input.nodeName < b.input.nodeName ? -1 : a.input.nodeName > b.input.nodeName ? 1 : 0));
    let rows: (AdmitRow & { batch_index: number })[];
    try {
      rows = await this.prisma.prepared('tokens_admit_unlimited_batch', ADMIT_UNLIMITED_BATCH, batchValues(batch));
    } catch (err) {
      // The statement was refused before it could commit (bad data, a deadlock): one at a time, so
      // each admission gets its own answer. Any other failure (the connection broke, perhaps after
      // the commit) is every admission's answer: retrying could admit twice.
      if (!refusedBeforeCommit(err)) {
        for (const item of batch) item.reject(err);
        return;
      }
      await Promise.all(batch.map((item) => settle(item, () => this.admitUnlimited(item.values))));
      return;
    }
    const byIndex = new Map(rows.map((row) => [row.batch_index, row]));
    batch.forEach((item, i) => {
      const row = byIndex.get(i + 1);
      item.resolve(row ? [row] : []);
    });
  }
}

/**
 * Postgres refused the statement as a whole, so nothing of it was stored: a data exception (22), an
 * integrity constraint (23), a serialization failure or a deadlock (40001, 40P01).
 */
function refusedBeforeCommit(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  return typeof code === 'string' && (/^2[23]/.test(code) || code === '40001' || code === '40P01');
}

async function settle(item: PendingAdmission, run: () => Promise<AdmitRow[]>): Promise<void> {
  try {
    item.resolve(await run());
  } catch (err) {
    item.reject(err);
  }
}

/** The batch statement's parameters: one array per column of the single statement's ($1 to $7), in the batch's order. */
function batchValues(batch: PendingAdmission[]): unknown[] {
  return [0, 1, 2, 3, 4, 5, 6].map((col) => batch.map((item) => item.values[col]));
}

/** The parameters of both admission statements, in their order ($1 to $7). */
function admitValues(i: AdmitInput): unknown[] {
  return [i.tokenUid, i.nodeName, randomUUID(), i.siteName, JSON.stringify(i.passport), i.sourceAddress, randomUUID()];
}

// The admission statements: $1 token uid, $2 node name, $3 registration uid, $4 site name,
// $5 passport (JSON), $6 source address, $7 audit row id. Each takes the token (`tok`: VALID,
// enabled, unexpired, with registrations left, the node name not held by another token that still
// exists), writes the registration (`reg`) and its audit row, and returns the registration with
// the token's state after it.

/**
 * The registration's columns, named: a prepared statement's result must keep its shape, and
 * `RETURNING *` would change with a column added by a migration while this process runs.
 */
const REGISTRATION_COLUMNS =
  'uid, tenant, namespace, name, token_uid, token_name, site_name, passport, source_address, created_at, modified_at';

/** The node name is registered under another token of the same namespace that still exists. */
const TAKEN_BY_OTHER = `SELECT 1 FROM tokens.registrations r JOIN tokens.tokens holder ON holder.uid = r.token_uid
      WHERE r.tenant = tokens.tenant AND r.namespace = tokens.namespace AND r.name = $2 AND r.token_uid <> $1::uuid`;

/**
 * Writes the registration (`INSERT ... SELECT` before it); a node name already registered is taken
 * over only by the token that holds it, or when that token no longer exists.
 */
const UPSERT_KEEPING_OWNER = `ON CONFLICT (tenant, namespace, name) DO UPDATE SET token_uid = EXCLUDED.token_uid, token_name = EXCLUDED.token_name,
      site_name = EXCLUDED.site_name, passport = EXCLUDED.passport, source_address = EXCLUDED.source_address, modified_at = now()
      WHERE existing.token_uid = EXCLUDED.token_uid OR NOT EXISTS (SELECT 1 FROM tokens.tokens holder WHERE holder.uid = existing.token_uid)
    RETURNING ${REGISTRATION_COLUMNS}`;

/** A row of tokens.tokens that admits now, without a registration limit. */
const ADMITS_UNLIMITED = `state = 'VALID' AND NOT disable AND (expires_at IS NULL OR expires_at > now()) AND max_registrations IS NULL`;

const REGISTER_AND_AUDIT = `
  reg AS (
    INSERT INTO tokens.registrations AS existing (uid, tenant, namespace, name, token_uid, token_name, site_name, passport, source_address)
    SELECT $3::uuid, tok.tenant, tok.namespace, $2, tok.uid, tok.name, $4, $5::jsonb, $6 FROM tok
    ${UPSERT_KEEPING_OWNER}
  ), audit AS (
    INSERT INTO tokens.admission_attempts (id, outcome, reason, source_address, tenant, token_uid, node_name, site_name)
    SELECT $7::uuid, 'ADMITTED', 'admitted', $6, reg.tenant, reg.token_uid, $2, $4 FROM reg
  )
  SELECT reg.*, tok.state AS token_state, tok.revision AS token_revision FROM reg, tok`;

/** An unlimited token's row is only read, so sites registering with one token do not queue behind each other. */
const ADMIT_UNLIMITED = `
  WITH tok AS (
    SELECT uid, tenant, namespace, name, state::text AS state, revision FROM tokens.tokens
    WHERE uid = $1::uuid AND ${ADMITS_UNLIMITED} AND NOT EXISTS (${TAKEN_BY_OTHER})
  ), ${REGISTER_AND_AUDIT}`;

/**
 * ADMIT_UNLIMITED for many admissions at once: each parameter is an array (one element per
 * admission, distinct node names, sorted by name so that concurrent batches take their index
 * entries in one order). The audit row is matched to its registration by node name, within the
 * token's namespace.
 */
const ADMIT_UNLIMITED_BATCH = `
  WITH input AS (
    SELECT * FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::text[], $5::text[], $6::text[], $7::uuid[])
      WITH ORDINALITY AS i(token_uid, node_name, reg_uid, site_name, passport, source_address, audit_id, n)
  ), valid AS MATERIALIZED (
    SELECT i.*, t.tenant, t.namespace, t.token_name, t.state, t.revision FROM input i
    CROSS JOIN LATERAL (
      SELECT tenant, namespace, name AS token_name, state::text AS state, revision FROM tokens.tokens
      WHERE uid = i.token_uid AND ${ADMITS_UNLIMITED}
      OFFSET 0
    ) t
  ), tok AS (
    -- From one materialised row, so the registration is looked up by its whole key (tenant, namespace, name).
    SELECT v.* FROM valid v WHERE NOT EXISTS (
      SELECT 1 FROM tokens.registrations r JOIN tokens.tokens holder ON holder.uid = r.token_uid
      WHERE r.tenant = v.tenant AND r.namespace = v.namespace AND r.name = v.node_name AND r.token_uid <> v.token_uid)
  ), reg AS (
    INSERT INTO tokens.registrations AS existing (uid, tenant, namespace, name, token_uid, token_name, site_name, passport, source_address)
    SELECT reg_uid, tenant, namespace, node_name, token_uid, token_name, site_name, passport::jsonb, source_address
    FROM tok ORDER BY n
    ${UPSERT_KEEPING_OWNER}
  ), audit AS (
    INSERT INTO tokens.admission_attempts (id, outcome, reason, source_address, tenant, token_uid, node_name, site_name)
    SELECT tok.audit_id, 'ADMITTED', 'admitted', tok.source_address, reg.tenant, reg.token_uid, reg.name, tok.site_name
    FROM reg JOIN tok ON tok.tenant = reg.tenant AND tok.namespace = reg.namespace AND tok.node_name = reg.name
  )
  SELECT reg.*, tok.state AS token_state, tok.revision AS token_revision, tok.n::int AS batch_index
  FROM reg JOIN tok ON tok.tenant = reg.tenant AND tok.namespace = reg.namespace AND tok.node_name = reg.name`;

/** A limited token's count is taken with a row lock; its last registration moves it to EXPIRED. */
const ADMIT_LIMITED = `
  WITH tok AS (
    UPDATE tokens.tokens SET
      used_registrations = used_registrations + 1,
      state = CASE WHEN used_registrations + 1 >= max_registrations THEN 'EXPIRED'::tokens."TokenState" ELSE state END,
      revision = revision + CASE WHEN used_registrations + 1 >= max_registrations THEN 1 ELSE 0 END,
      modified_at = CASE WHEN used_registrations + 1 >= max_registrations THEN now() ELSE modified_at END
    WHERE uid = $1::uuid AND state = 'VALID' AND NOT disable
      AND (expires_at IS NULL OR expires_at > now())
      AND max_registrations IS NOT NULL AND used_registrations < max_registrations
      AND NOT EXISTS (${TAKEN_BY_OTHER})
    RETURNING uid, tenant, namespace, name, state::text AS state, revision
  ), ${REGISTER_AND_AUDIT}`;

/** The row a refusal is counted in: its source, reason and token, in one UTC minute. */
export function refusalKey(source: string, reason: string, tokenUid: string | null, at: Date): string {
  return `${at.toISOString().slice(0, 16)}|${source}|${reason}|${tokenUid ?? '-'}`;
}
