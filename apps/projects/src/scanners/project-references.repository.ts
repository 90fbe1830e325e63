import { Injectable } from '@nestjs/common';
import { PrismaService } from '../prisma/prisma.service';

/** Which of a tenant's projects use a scanner: the one query on projects that the scanner service needs. */
@Injectable()
export class ProjectReferencesRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The tenant's projects whose current config names the scanner (or package). */
  async idsReferencing(tenant: string, scannerId: string): Promise<string[]> {
    const probe = JSON.stringify([{ id: scannerId }]);
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      SELECT id::text AS id FROM projects.projects
      WHERE tenant = ${tenant} AND (config->'scanners' @> ${probe}::jsonb OR config->'packages' @> ${probe}::jsonb)
      ORDER BY created_at`;
    return rows.map((r) => r.id);
  }

  async namesOf(ids: string[]): Promise<string[]> {
    const rows = await this.prisma.project.findMany({
      where: { id: { in: ids } },
      select: { name: true },
      orderBy: { name: 'asc' },
    });
    return rows.map((r) => r.name);
  }
}
