import { Injectable } from '@nestjs/common';
import { type Cursor, pageWindow } from '@bastion/persistence';
import type { DatasetRun, Prisma } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

/** Every Prisma call about dataset runs and staged dataset parts. */
@Injectable()
export class DatasetRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Stores one part (again, if the gateway retried) and drops parts nobody evaluated in time. */
  async stagePart(tenant: string, uploadId: string, part: number, data: Buffer, staleBefore: Date): Promise<void> {
    await this.prisma.datasetUploadPart.deleteMany({ where: { createdAt: { lt: staleBefore } } });
    const bytes = new Uint8Array(data);
    await this.prisma.datasetUploadPart.upsert({
      where: { uploadId_part: { uploadId, part } },
      create: { uploadId, part, tenant, data: bytes },
      update: { tenant, data: bytes, createdAt: new Date() },
    });
  }

  /** The tenant's parts of an upload (another tenant's upload id finds nothing). */
  stagedParts(tenant: string, uploadId: string): Promise<{ part: number; data: Uint8Array }[]> {
    return this.prisma.datasetUploadPart.findMany({
      where: { tenant, uploadId },
      select: { part: true, data: true },
      orderBy: { part: 'asc' },
    });
  }

  async dropUpload(tenant: string, uploadId: string): Promise<void> {
    await this.prisma.datasetUploadPart.deleteMany({ where: { tenant, uploadId } });
  }

  create(run: DatasetRun): Promise<DatasetRun> {
    return this.prisma.datasetRun.create({ data: run });
  }

  page(tenant: string, versionId: string, cursor: Cursor | undefined, limit: number): Promise<DatasetRun[]> {
    const w = pageWindow(cursor);
    return this.prisma.datasetRun.findMany({
      where: { AND: [{ tenant, versionId }, w.where] },
      orderBy: w.orderBy as Prisma.DatasetRunOrderByWithRelationInput[],
      take: limit + 1,
    });
  }
}
