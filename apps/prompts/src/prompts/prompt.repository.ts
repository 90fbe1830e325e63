import { Injectable } from '@nestjs/common';
import type { Cursor } from '@bastion/persistence';
import { Prisma, type Prompt } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import type { PromptFilter } from './prompt-filters';
import { jsonForPostgres } from './prompt.mapper';
import { promptPageQuery } from './prompt-page';

/** Every Prisma call on prompts. */
@Injectable()
export class PromptRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** `INSERT ... ON CONFLICT (id) DO NOTHING`: true when stored now, false when it already was. */
  async insertOnce(row: Prisma.PromptCreateManyInput): Promise<boolean> {
    return (await this.insertManyOnce([row])) === 1;
  }

  /**
   * The same for many rows in one statement, the rows as one JSON parameter (Prisma's createMany
   * builds and compiles a query per call, which cost more than the insert), prepared once per
   * connection (see PrismaService); answers how many were stored now.
   */
  async insertManyOnce(rows: Prisma.PromptCreateManyInput[]): Promise<number> {
    const result = await this.prisma.pool.query({
      name: 'insert_prompts',
      text: INSERT_PROMPTS,
      values: [insertParameter(rows)],
    });
    return result.rowCount ?? 0;
  }

  /** A page in (receivedAt, id) order; one extra row tells whether more follow. */
  page(tenant: string, filter: PromptFilter, limit: number, cursor: Cursor | undefined): Promise<Prompt[]> {
    const { where, orderBy } = promptPageQuery(tenant, filter, cursor);
    return this.prisma.prompt.findMany({ where, orderBy, take: limit + 1 });
  }

  find(tenant: string, id: string): Promise<Prompt | null> {
    return this.prisma.prompt.findFirst({ where: { tenant, id } });
  }

  /** The newest prompts sent from a template (within a project, when given). */
  fromTemplate(tenant: string, templateId: string, projectId: string | undefined, limit: number): Promise<Prompt[]> {
    return this.prisma.prompt.findMany({
      where: { tenant, templateId, ...(projectId !== undefined ? { projectId } : {}) },
      orderBy: [{ receivedAt: 'desc' }, { id: 'desc' }],
      take: limit,
    });
  }
}

/** Each column of a prompt row and its type; the JSON keys are the row's field names. */
const COLUMNS: [field: keyof Prisma.PromptCreateManyInput, column: string, type: string][] = [
  ['id', 'id', 'uuid'],
  ['tenant', 'tenant', 'text'],
  ['projectId', 'project_id', 'text'],
  ['userId', 'user_id', 'text'],
  ['provider', 'provider', 'text'],
  ['providerId', 'provider_id', 'text'],
  ['input', 'input', 'text'],
  ['memory', 'memory', 'text[]'],
  ['extraInputs', 'extra_inputs', 'jsonb'],
  ['externalMetadata', 'external_metadata', 'jsonb'],
  ['fromTemplate', 'from_template', 'boolean'],
  ['templateId', 'template_id', 'uuid'],
  ['parentId', 'parent_id', 'text'],
  ['preserve', 'preserve', 'boolean'],
  ['type', 'type', 'text'],
  ['source', 'source', 'text'],
  ['receivedAt', 'received_at', 'timestamptz'],
  ['outcome', 'outcome', 'text'],
  ['response', 'response', 'text'],
  ['files', 'files', 'jsonb'],
  ['providerResult', 'provider_result', 'jsonb'],
  ['scannerResults', 'scanner_results', 'jsonb'],
];

/** The store's insert: rows as one JSON array parameter, a row already stored skipped (exported for bench/records/store.js). */
export const INSERT_PROMPTS =
  `INSERT INTO "prompts"."prompts" (${COLUMNS.map(([, c]) => `"${c}"`).join(', ')}) ` +
  `SELECT ${COLUMNS.map(([f]) => `r."${f}"`).join(', ')} ` +
  `FROM jsonb_to_recordset($1::jsonb) AS r(${COLUMNS.map(([f, , t]) => `"${f}" ${t}`).join(', ')}) ` +
  `ON CONFLICT ("id") DO NOTHING`;

/** INSERT_PROMPTS's one parameter: the rows as one JSON array, as Postgres can store it. */
export function insertParameter(rows: Prisma.PromptCreateManyInput[]): string {
  return jsonForPostgres(JSON.stringify(rows.map(asJson)));
}

/** A row as JSON: dates as ISO strings, the database NULL of a JSON column as null. */
function asJson(row: Prisma.PromptCreateManyInput): Record<string, unknown> {
  return {
    ...row,
    receivedAt: row.receivedAt instanceof Date ? row.receivedAt.toISOString() : row.receivedAt,
    providerResult: row.providerResult === Prisma.DbNull ? null : row.providerResult,
  };
}
