import { Injectable } from '@nestjs/common';
import type { Cursor } from '@bastion/persistence';
import type { Prisma, Prompt } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import type { PromptFilter } from './prompt-filters';
import { promptPageQuery } from './prompt-page';

/** Every Prisma call on prompts. */
@Injectable()
export class PromptRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** `INSERT ... ON CONFLICT (id) DO NOTHING`: true when stored now, false when it already was. */
  async insertOnce(row: Prisma.PromptCreateManyInput): Promise<boolean> {
    const { count } = await this.prisma.prompt.createMany({ data: [row], skipDuplicates: true });
    return count === 1;
  }

  /** The same for many rows in one statement; answers how many were stored now. */
  async insertManyOnce(rows: Prisma.PromptCreateManyInput[]): Promise<number> {
    const { count } = await this.prisma.prompt.createMany({ data: rows, skipDuplicates: true });
    return count;
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
