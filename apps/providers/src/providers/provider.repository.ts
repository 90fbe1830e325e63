import { Injectable } from '@nestjs/common';
import { type Cursor, pageWindow, translatePrismaError } from '@bastion/persistence';
import type { Prisma, Provider, SystemProvider } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';
import type { CatalogEntry } from '../system/system-catalog';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Every Prisma call of the providers service. */
@Injectable()
export class ProviderRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** Brings the system catalog in the database to what the code ships (idempotent; replicas may race). */
  async seedSystemProviders(entries: CatalogEntry[]): Promise<void> {
    for (const e of entries) {
      const data = {
        name: e.name,
        description: e.description,
        type: e.type,
        tag: e.tag,
        capabilities: e.capabilities,
        template: e.template as unknown as Prisma.InputJsonValue,
        inputs: e.inputs,
        secretNames: e.secretNames,
        maxRequestsPerSecond: e.maxRequestsPerSecond,
        requestConcurrencyLimit: e.requestConcurrencyLimit,
        updatedAt: new Date(),
      };
      await this.prisma.systemProvider.upsert({ where: { id: e.id }, create: { id: e.id, ...data }, update: data });
    }
    // The catalog ships with the release and only this seed writes it: read it once, answer from memory.
    this.system = await this.prisma.systemProvider.findMany({ orderBy: { name: 'asc' } });
  }

  private system?: SystemProvider[];

  async listSystem(): Promise<SystemProvider[]> {
    this.system ??= await this.prisma.systemProvider.findMany({ orderBy: { name: 'asc' } });
    return this.system;
  }

  async findSystem(ref: string): Promise<SystemProvider | null> {
    const key: 'id' | 'name' = UUID.test(ref) ? 'id' : 'name';
    return (await this.listSystem()).find((p) => p[key] === ref) ?? null;
  }

  async create(data: Prisma.ProviderUncheckedCreateInput): Promise<Provider> {
    try {
      return await this.prisma.provider.create({ data });
    } catch (err) {
      translatePrismaError(err, { alreadyExists: `a provider named "${data.name}" already exists` });
    }
  }

  /** A page of a tenant's providers, newest first. Fetches one extra row to know whether more follow. */
  page(tenant: string, limit: number, cursor: Cursor | undefined): Promise<Provider[]> {
    const { where, orderBy } = pageWindow(cursor);
    return this.prisma.provider.findMany({
      where: { tenant, ...where },
      orderBy: orderBy as Prisma.ProviderOrderByWithRelationInput[],
      take: limit + 1,
    });
  }

  /** By id or name, within the tenant. */
  find(tenant: string, ref: string): Promise<Provider | null> {
    return this.prisma.provider.findFirst({ where: { tenant, ...(UUID.test(ref) ? { id: ref } : { name: ref }) } });
  }

  async update(id: string, data: Prisma.ProviderUpdateInput): Promise<Provider> {
    try {
      return await this.prisma.provider.update({
        where: { id },
        data: { ...data, updatedAt: new Date(), revision: { increment: 1 } },
      });
    } catch (err) {
      translatePrismaError(err, {
        alreadyExists: `a provider named "${String(data.name)}" already exists`,
        notFound: 'provider not found',
      });
    }
  }

  async delete(id: string): Promise<void> {
    await this.prisma.provider.deleteMany({ where: { id } });
  }
}
