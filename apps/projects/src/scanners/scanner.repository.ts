import { Injectable } from '@nestjs/common';
import type { ScannerDirection, ScannerKind } from '@bastion/contracts';
import { type Cursor, pageWindow, translatePrismaError } from '@bastion/persistence';
import type { BuiltInScanner } from '../domain/built-in-catalog';
import { Prisma, type Scanner, type ScannerVersion } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

export interface NewVersion {
  id: string;
  config: Record<string, unknown>;
  direction: ScannerDirection;
  description: string;
  published: boolean;
  createdBy: string;
  createdAt: Date;
}

export interface NewScanner {
  id: string;
  tenant: string;
  name: string;
  type: string;
  tags: string[];
  createdBy: string;
  createdAt: Date;
  firstVersion: NewVersion & { name: string };
}

/** What one update of a scanner does, decided by the service; applied here in one transaction. */
export interface ScannerUpdatePlan {
  scanner: { name?: string; tags?: string[]; updatedAt: Date };
  /** Changes to the version that is latest before the update. */
  latest?: { published?: boolean; description?: string };
  /** A version to make; `nameFor` names it once its number is known. */
  newVersion?: NewVersion & { nameFor: (number: number) => string; push: boolean };
}

export interface ScannerUpdateResult {
  scanner: Scanner;
  created: ScannerVersion | null;
  latest: ScannerVersion;
}

const visible = (tenant: string) => ({ OR: [{ tenant }, { builtIn: true }] });

/** Every Prisma call about scanners and their versions. */
@Injectable()
export class ScannerRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** A scanner the tenant reads: its own or a built-in one. */
  findVisible(tenant: string, id: string): Promise<Scanner | null> {
    return this.prisma.scanner.findFirst({ where: { id, ...visible(tenant) } });
  }

  findVisibleMany(tenant: string, ids: string[]): Promise<Scanner[]> {
    return this.prisma.scanner.findMany({ where: { id: { in: ids }, ...visible(tenant) } });
  }

  nameTaken(tenant: string, name: string, exceptId?: string): Promise<boolean> {
    return this.prisma.scanner
      .count({ where: { tenant, name, ...(exceptId ? { NOT: { id: exceptId } } : {}) } })
      .then((n) => n > 0);
  }

  /** `limit + 1` rows of one kind the tenant reads, in page order after `cursor`. */
  page(tenant: string, kind: ScannerKind, cursor: Cursor | undefined, limit: number): Promise<Scanner[]> {
    const w = pageWindow(cursor);
    return this.prisma.scanner.findMany({
      where: { AND: [{ kind, ...visible(tenant) }, w.where] },
      orderBy: w.orderBy as Prisma.ScannerOrderByWithRelationInput[],
      take: limit + 1,
    });
  }

  versionsByIds(ids: string[]): Promise<ScannerVersion[]> {
    return this.prisma.scannerVersion.findMany({ where: { id: { in: ids } } });
  }

  /** Every version of the scanners, oldest first (a scanner has few). */
  versionsOf(scannerIds: string[]): Promise<ScannerVersion[]> {
    return this.prisma.scannerVersion.findMany({
      where: { scannerId: { in: scannerIds } },
      orderBy: { number: 'asc' },
    });
  }

  versionPage(scannerId: string, cursor: Cursor | undefined, limit: number): Promise<ScannerVersion[]> {
    const w = pageWindow(cursor);
    return this.prisma.scannerVersion.findMany({
      where: { AND: [{ scannerId }, w.where] },
      orderBy: w.orderBy as Prisma.ScannerVersionOrderByWithRelationInput[],
      take: limit + 1,
    });
  }

  /** A version by id or by name (`isId` says which the caller has). */
  findVersion(scannerId: string, ref: string, isId: boolean): Promise<ScannerVersion | null> {
    return this.prisma.scannerVersion.findFirst({ where: isId ? { scannerId, id: ref } : { scannerId, name: ref } });
  }

  versionNameTaken(scannerId: string, name: string): Promise<boolean> {
    return this.prisma.scannerVersion.count({ where: { scannerId, name } }).then((n) => n > 0);
  }

  async create(s: NewScanner): Promise<{ scanner: Scanner; version: ScannerVersion }> {
    const { firstVersion: v, ...scanner } = s;
    try {
      return await this.prisma.$transaction(async (tx) => {
        await tx.scanner.create({ data: { ...scanner, kind: 'scanner', versionCount: 1, updatedAt: s.createdAt } });
        const version = await tx.scannerVersion.create({
          data: { ...v, config: v.config as Prisma.InputJsonValue, scannerId: s.id, number: 1 },
        });
        const created = await tx.scanner.update({ where: { id: s.id }, data: { latestVersionId: version.id } });
        return { scanner: created, version };
      });
    } catch (err) {
      translatePrismaError(err, { alreadyExists: `a scanner named ${s.name} already exists` });
    }
  }

  /** Applies a plan under a row lock, so two updates never make two versions with one number. */
  async update(id: string, plan: ScannerUpdatePlan): Promise<ScannerUpdateResult> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM projects.scanners WHERE id = ${id}::uuid FOR UPDATE`;
        let scanner = await tx.scanner.findUniqueOrThrow({ where: { id } });
        let latest = await tx.scannerVersion.findUniqueOrThrow({ where: { id: scanner.latestVersionId ?? '' } });
        if (plan.latest && (plan.latest.published !== undefined || plan.latest.description !== undefined)) {
          latest = await tx.scannerVersion.update({ where: { id: latest.id }, data: plan.latest });
        }
        let created: ScannerVersion | null = null;
        const data: Prisma.ScannerUpdateInput = { ...plan.scanner };
        if (plan.newVersion) {
          const { nameFor, push, ...v } = plan.newVersion;
          const number = scanner.versionCount + 1;
          created = await tx.scannerVersion.create({
            data: { ...v, config: v.config as Prisma.InputJsonValue, scannerId: id, number, name: nameFor(number) },
          });
          data.versionCount = number;
          if (push) data.latestVersionId = created.id;
        }
        scanner = await tx.scanner.update({ where: { id }, data });
        if (created && scanner.latestVersionId === created.id) latest = created;
        return { scanner, created, latest };
      });
    } catch (err) {
      translatePrismaError(err, { alreadyExists: 'a scanner (or version) with that name already exists' });
    }
  }

  /** Sets a version's description, publication, and (push) makes it the latest. */
  async updateVersion(
    version: ScannerVersion,
    change: { published?: boolean; description?: string; push?: boolean },
    at: Date,
  ): Promise<{ scanner: Scanner; version: ScannerVersion }> {
    return this.prisma.$transaction(async (tx) => {
      const { push, ...fields } = change;
      const updated = await tx.scannerVersion.update({ where: { id: version.id }, data: fields });
      const scanner = await tx.scanner.update({
        where: { id: version.scannerId },
        data: { updatedAt: at, ...(push ? { latestVersionId: version.id } : {}) },
      });
      return { scanner, version: updated };
    });
  }

  delete(id: string): Promise<Scanner> {
    return this.prisma.scanner.delete({ where: { id } });
  }

  /** The tenant's latest dataset run of each version: its id and F1. */
  async latestRuns(tenant: string, versionIds: string[]): Promise<Map<string, { id: string; f1Score: number }>> {
    if (versionIds.length === 0) return new Map();
    const runs = await this.prisma.datasetRun.findMany({
      where: { tenant, versionId: { in: versionIds } },
      orderBy: [{ versionId: 'asc' }, { createdAt: 'desc' }, { id: 'desc' }],
      distinct: ['versionId'],
      select: { id: true, versionId: true, f1Score: true },
    });
    return new Map(runs.map((r) => [r.versionId, { id: r.id, f1Score: r.f1Score }]));
  }

  /** Creates the built-ins that are missing; a built-in already there is left as it is. */
  async seedBuiltIns(catalog: BuiltInScanner[], author: string, at: Date): Promise<number> {
    const existing = new Set(
      (await this.prisma.scanner.findMany({ where: { builtIn: true }, select: { id: true } })).map((s) => s.id),
    );
    let created = 0;
    for (const b of catalog.filter((c) => !existing.has(c.id))) {
      const versionId = b.versionId;
      await this.prisma.$transaction([
        this.prisma.scanner.createMany({
          data: [
            {
              id: b.id,
              tenant: null,
              builtIn: true,
              kind: b.kind,
              name: b.name,
              type: b.type,
              description: b.description,
              tags: b.tags,
              latestVersionId: versionId,
              versionCount: 1,
              createdBy: author,
              createdAt: at,
              updatedAt: at,
            },
          ],
          skipDuplicates: true,
        }),
        this.prisma.scannerVersion.createMany({
          data: [
            {
              id: versionId,
              scannerId: b.id,
              number: 1,
              name: 'v_1',
              description: b.description,
              config: b.config as Prisma.InputJsonValue,
              direction: b.direction,
              published: true,
              createdBy: author,
              createdAt: at,
            },
          ],
          skipDuplicates: true,
        }),
      ]);
      created++;
    }
    return created;
  }
}
