import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { DeploymentStatus } from '@bastion/contracts';
import { type Cursor, isPrismaNotFound, pageWindow, translatePrismaError } from '@bastion/persistence';
import { nextValidFrom } from '../domain/config-at';
import type { StoredProjectConfig } from '../domain/project-config';
import type { Prisma, Project, ProjectConfigRevision } from '../generated/prisma/client';
import { PrismaService } from '../prisma/prisma.service';

export interface ProjectFields {
  name: string;
  type: string;
  botType: string;
  chatbotId: string;
  adminRoleId: string;
  memberRoleId: string;
  deploymentStatus: DeploymentStatus;
}

export interface NewProject extends ProjectFields {
  id: string;
  tenant: string;
  friendlyId: string;
  config: StoredProjectConfig;
  createdBy: string;
  createdAt: Date;
}

/** What one change does to a project: fields, and a new config when it differs (a new revision). */
export interface ProjectChange {
  fields?: Partial<ProjectFields>;
  config?: StoredProjectConfig;
}

const json = (c: StoredProjectConfig) => c as unknown as Prisma.InputJsonValue;

/** Every Prisma call about projects and their config revisions. */
@Injectable()
export class ProjectRepository {
  constructor(private readonly prisma: PrismaService) {}

  /** The project and its first revision, in force from its creation. */
  async create(p: NewProject): Promise<Project> {
    const revisionId = randomUUID();
    try {
      return await this.prisma.$transaction(async (tx) => {
        const project = await tx.project.create({
          data: {
            ...p,
            config: json(p.config),
            revision: 1,
            configId: revisionId,
            configValidFrom: p.createdAt,
            updatedAt: p.createdAt,
          },
        });
        await tx.projectConfigRevision.create({
          data: {
            id: revisionId,
            projectId: p.id,
            tenant: p.tenant,
            revision: 1,
            config: json(p.config),
            validFrom: p.createdAt,
            createdBy: p.createdBy,
          },
        });
        return project;
      });
    } catch (err) {
      translatePrismaError(err, { alreadyExists: `a project named ${p.name} already exists` });
    }
  }

  findById(tenant: string, id: string): Promise<Project | null> {
    return this.prisma.project.findFirst({ where: { tenant, id } });
  }

  findByName(tenant: string, name: string): Promise<Project | null> {
    return this.prisma.project.findUnique({ where: { tenant_name: { tenant, name } } });
  }

  page(tenant: string, cursor: Cursor | undefined, limit: number): Promise<Project[]> {
    const w = pageWindow(cursor);
    return this.prisma.project.findMany({
      where: { AND: [{ tenant }, w.where] },
      orderBy: w.orderBy as Prisma.ProjectOrderByWithRelationInput[],
      take: limit + 1,
    });
  }

  /** The newest revision in force at `at` (at most one row). */
  revisionsUpTo(projectId: string, at: Date): Promise<ProjectConfigRevision[]> {
    return this.prisma.projectConfigRevision.findMany({
      where: { projectId, validFrom: { lte: at } },
      orderBy: [{ validFrom: 'desc' }, { revision: 'desc' }],
      take: 1,
    });
  }

  /**
   * Changes a project under a row lock: `decide` sees the project as it is (no concurrent change
   * is lost) and may throw to refuse. A new config becomes the next revision, in force from now.
   * Null when the tenant has no such project.
   */
  async change(
    tenant: string,
    id: string,
    actor: string,
    decide: (current: Project) => ProjectChange,
  ): Promise<Project | null> {
    try {
      return await this.prisma.$transaction(async (tx) => {
        const locked = await tx.$queryRaw<
          { id: string }[]
        >`SELECT id FROM projects.projects WHERE id = ${id}::uuid AND tenant = ${tenant} FOR UPDATE`;
        if (locked.length === 0) return null;
        const current = await tx.project.findUniqueOrThrow({ where: { id } });
        const change = decide(current);
        const now = new Date();
        const data: Prisma.ProjectUpdateInput = { ...change.fields, updatedAt: now };
        if (change.config) {
          const validFrom = nextValidFrom(now, current.configValidFrom);
          const revision = current.revision + 1;
          const configId = randomUUID();
          await tx.projectConfigRevision.create({
            data: {
              id: configId,
              projectId: id,
              tenant,
              revision,
              config: json(change.config),
              validFrom,
              createdBy: actor,
            },
          });
          Object.assign(data, {
            revision,
            configId,
            config: json(change.config),
            configValidFrom: validFrom,
            updatedAt: validFrom,
          });
        }
        return tx.project.update({ where: { id }, data });
      });
    } catch (err) {
      translatePrismaError(err, { alreadyExists: 'a project with that name already exists' });
    }
  }

  /** Deletes the project and its history; null when there was none. */
  async delete(tenant: string, id: string): Promise<Project | null> {
    const found = await this.findById(tenant, id);
    if (!found) return null;
    try {
      return await this.prisma.project.delete({ where: { id } });
    } catch (err) {
      if (isPrismaNotFound(err)) return null;
      throw err;
    }
  }
}
