import { Injectable } from '@nestjs/common';
import { type Cursor, pageWindow } from '@bastion/persistence';
import type { ApiKey, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

/** Every Prisma call about API keys. */
@Injectable()
export class ApiKeyRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(data: ApiKey): Promise<ApiKey> {
    return this.prisma.apiKey.create({ data });
  }

  find(tenant: string, id: string): Promise<ApiKey | null> {
    return this.prisma.apiKey.findFirst({ where: { tenant, id } });
  }

  /** By id alone: the gateway resolving a key knows no tenant yet. */
  findAnyTenant(id: string): Promise<ApiKey | null> {
    return this.prisma.apiKey.findUnique({ where: { id } });
  }

  page(tenant: string, projectId: string | undefined, cursor: Cursor | undefined, limit: number): Promise<ApiKey[]> {
    const w = pageWindow(cursor);
    const where: Prisma.ApiKeyWhereInput = { tenant, ...(projectId ? { projectId } : {}) };
    return this.prisma.apiKey.findMany({
      where: { AND: [where, w.where] },
      orderBy: w.orderBy as Prisma.ApiKeyOrderByWithRelationInput[],
      take: limit + 1,
    });
  }

  async delete(tenant: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.deleteMany({ where: { tenant, id } });
    return count > 0;
  }

  /** Deletes a project's keys and says which they were. */
  async deleteOfProject(tenant: string, projectId: string): Promise<string[]> {
    const rows = await this.prisma.apiKey.findMany({ where: { tenant, projectId }, select: { id: true } });
    await this.prisma.apiKey.deleteMany({ where: { tenant, projectId } });
    return rows.map((r) => r.id);
  }

  /** Keys per project, for `tokenCount`. */
  async countByProject(tenant: string, projectIds: string[]): Promise<Map<string, number>> {
    if (projectIds.length === 0) return new Map();
    const rows = await this.prisma.apiKey.groupBy({
      by: ['projectId'],
      where: { tenant, projectId: { in: projectIds } },
      _count: { _all: true },
    });
    return new Map(rows.map((r) => [r.projectId as string, r._count._all]));
  }

  /** Records a use, unless one was recorded since `staleBefore` (so a busy key costs one write a minute). */
  async touch(id: string, now: Date, staleBefore: Date): Promise<void> {
    await this.prisma.apiKey.updateMany({
      where: { id, OR: [{ lastUsedAt: null }, { lastUsedAt: { lt: staleBefore } }] },
      data: { lastUsedAt: now },
    });
  }
}
