import type { ApiKeyRepository } from './api-key.repository';
import type { ApiKeyService } from './api-key.service';
import { randomUUID } from 'node:crypto';
import { DEFAULT_PROJECT_NAME, DomainError, ProjectEvents } from '@bastion/contracts';
import { principal, RecordingEventPublisher, silentLogger } from '@bastion/testing';
import type { StoredProjectConfig } from '../domain/project-config';
import { ProjectsEventPublisher } from '../events/projects-event.publisher';
import type { Project, ProjectConfigRevision, Scanner, ScannerVersion } from '../generated/prisma/client';
import type { ScannerRepository } from '../scanners/scanner.repository';
import { ProjectService } from './project.service';
import type { NewProject, ProjectChange, ProjectRepository } from './project.repository';

/**
 * The service tier: the real ProjectService (and its real event publisher) over in-memory fakes of
 * its repositories and of JetStream.
 */

/** Projects and their config revisions in memory, with the repository's semantics. */
class FakeProjectRepository implements Pick<
  ProjectRepository,
  'create' | 'findById' | 'findByName' | 'revisionsUpTo' | 'change' | 'delete'
> {
  readonly projects = new Map<string, Project>();
  readonly revisions: ProjectConfigRevision[] = [];

  async create(p: NewProject): Promise<Project> {
    if (await this.findByName(p.tenant, p.name))
      throw DomainError.alreadyExists(`a project named ${p.name} already exists`);
    const configId = randomUUID();
    const row: Project = {
      ...p,
      config: p.config as never,
      revision: 1,
      configId,
      configValidFrom: p.createdAt,
      updatedAt: p.createdAt,
    };
    this.projects.set(p.id, row);
    this.revisions.push({
      id: configId,
      projectId: p.id,
      tenant: p.tenant,
      revision: 1,
      config: p.config as never,
      validFrom: p.createdAt,
      createdBy: p.createdBy,
    });
    return { ...row };
  }

  async findById(tenant: string, id: string): Promise<Project | null> {
    const p = this.projects.get(id);
    return p && p.tenant === tenant ? { ...p } : null;
  }

  async findByName(tenant: string, name: string): Promise<Project | null> {
    const p = [...this.projects.values()].find((x) => x.tenant === tenant && x.name === name);
    return p ? { ...p } : null;
  }

  async revisionsUpTo(projectId: string, at: Date): Promise<ProjectConfigRevision[]> {
    const upTo = this.revisions.filter((r) => r.projectId === projectId && r.validFrom <= at);
    upTo.sort((a, b) => b.validFrom.getTime() - a.validFrom.getTime() || b.revision - a.revision);
    return upTo.slice(0, 1);
  }

  async change(
    tenant: string,
    id: string,
    actor: string,
    decide: (current: Project) => ProjectChange,
  ): Promise<Project | null> {
    const current = this.projects.get(id);
    if (!current || current.tenant !== tenant) return null;
    const change = decide({ ...current });
    const now = new Date(Math.max(Date.now(), current.configValidFrom.getTime() + 1));
    const next: Project = { ...current, ...change.fields, updatedAt: now };
    if (change.config) {
      const configId = randomUUID();
      Object.assign(next, { revision: current.revision + 1, configId, config: change.config, configValidFrom: now });
      this.revisions.push({
        id: configId,
        projectId: id,
        tenant,
        revision: next.revision,
        config: change.config as never,
        validFrom: now,
        createdBy: actor,
      });
    }
    this.projects.set(id, next);
    return { ...next };
  }

  async delete(tenant: string, id: string): Promise<Project | null> {
    const found = await this.findById(tenant, id);
    if (!found) return null;
    this.projects.delete(id);
    return found;
  }
}

/** No scanners: enough for the rules tested here (an unknown scanner id is a 404). */
class EmptyScannerRepository implements Pick<ScannerRepository, 'findVisibleMany' | 'versionsOf'> {
  async findVisibleMany(): Promise<Scanner[]> {
    return [];
  }

  async versionsOf(): Promise<ScannerVersion[]> {
    return [];
  }
}

function build() {
  const projects = new FakeProjectRepository();
  const stream = new RecordingEventPublisher();
  const service = new ProjectService(
    projects as unknown as ProjectRepository,
    new EmptyScannerRepository() as unknown as ScannerRepository,
    new ProjectsEventPublisher(stream.asPublisher()),
    { projectDeleted: async () => undefined } as unknown as ApiKeyService,
    {
      countByProject: async (_tenant: string, ids: string[]) => new Map(ids.map((id) => [id, 0])),
    } as unknown as ApiKeyRepository,
    silentLogger(),
  );
  return { service, projects, stream };
}

const PROVIDER = '6f1c1b1e-4d5a-4b59-9a43-1f2b3c4d5e6f';

describe('ProjectService (service tier: in-memory repositories and stream)', () => {
  let s: ReturnType<typeof build>;
  beforeEach(() => {
    s = build();
  });

  it('creates a draft project with its first revision and publishes created', async () => {
    const p = principal('member');
    const { project } = await s.service.create({ principal: p, body: { name: 'support-bot' } });
    expect(project).toMatchObject({
      name: 'support-bot',
      type: 'app',
      deploymentStatus: 'draft',
      createdBy: p.sub,
      config: { revision: 1 },
    });
    expect(s.projects.revisions).toHaveLength(1);
    expect(s.stream.published).toEqual([
      expect.objectContaining({
        subject: ProjectEvents.projectChanged,
        payload: expect.objectContaining({ id: project.id, tenant: p.tenant, change: 'created', revision: 1 }),
      }),
    ]);
  });

  // Roles and principal kinds are the access policy's (RpcAccessGuard, walked by test/e2e/access-policy).
  it('refuses a taken name and a UUID as a name, publishing nothing', async () => {
    const p = principal('member');
    await s.service.create({ principal: p, body: { name: 'taken' } });
    await expect(s.service.create({ principal: p, body: { name: 'taken' } })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
    });
    await expect(s.service.create({ principal: p, body: { name: randomUUID() } })).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
    });
    expect(s.projects.projects.size).toBe(1);
    expect(s.stream.published).toHaveLength(1);
  });

  it('makes a config change a new revision, and a field change none', async () => {
    const p = principal('member');
    const { project } = await s.service.create({ principal: p, body: { name: 'rev' } });
    const renamed = await s.service.update({ principal: p, id: project.id, body: { name: 'rev-2' } });
    expect(renamed.project).toMatchObject({ name: 'rev-2', config: { revision: 1 } });
    const withProvider = await s.service.attachProvider({
      principal: p,
      id: project.id,
      entry: { id: PROVIDER, name: 'claude' },
    });
    expect(withProvider.project.config).toMatchObject({
      revision: 2,
      providers: [expect.objectContaining({ id: PROVIDER, name: 'claude', enabled: true })],
    });
    // The same provider list again changes nothing: no revision.
    await s.service.update({
      principal: p,
      id: project.id,
      body: { config: { providers: [{ id: PROVIDER, name: 'claude' }] } },
    });
    expect(s.projects.revisions.filter((r) => r.projectId === project.id)).toHaveLength(2);
    expect(s.stream.published.map((e) => (e.payload as { change: string }).change)).toEqual([
      'created',
      'updated',
      'config-changed',
      'updated',
    ]);
  });

  it('reads the config in force at a past instant', async () => {
    const p = principal('member');
    const { project } = await s.service.create({ principal: p, body: { name: 'history' } });
    const created = new Date(project.createdAt);
    await s.service.attachProvider({ principal: p, id: project.id, entry: { id: PROVIDER } });
    const then = await s.service.get({ principal: p, project: project.id, configAt: created.toISOString() });
    expect((then.project.config as unknown as StoredProjectConfig).providers).toEqual([]);
    const now = await s.service.get({ principal: p, project: project.id });
    expect(now.project.config.revision).toBe(2);
    await expect(
      s.service.get({
        principal: p,
        project: project.id,
        configAt: new Date(created.getTime() - 60_000).toISOString(),
      }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });

  it('refuses a guardrail whose scanner the tenant cannot see, changing nothing', async () => {
    const p = principal('member');
    const { project } = await s.service.create({ principal: p, body: { name: 'guarded' } });
    await expect(
      s.service.attachGuardrail({ principal: p, id: project.id, list: 'scanners', entry: { id: randomUUID() } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(s.projects.revisions).toHaveLength(1);
  });

  it("keeps tenants apart: another tenant's project is NOT_FOUND, to read, change or delete", async () => {
    const { project } = await s.service.create({ principal: principal('member'), body: { name: 'mine' } });
    const other = principal('admin');
    await expect(s.service.get({ principal: other, project: project.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(
      s.service.update({ principal: other, id: project.id, body: { name: 'stolen' } }),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(s.service.delete({ principal: other, id: project.id })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    expect(s.projects.projects.get(project.id)!.name).toBe('mine');
  });

  it('makes the default project on first read, once', async () => {
    const p = principal('viewer');
    const first = await s.service.get({ principal: p, project: DEFAULT_PROJECT_NAME });
    const second = await s.service.get({ principal: p, project: DEFAULT_PROJECT_NAME });
    expect(second.project.id).toBe(first.project.id);
    expect(first.project).toMatchObject({ name: DEFAULT_PROJECT_NAME, createdBy: 'bastion' });
    expect(s.stream.published).toHaveLength(1);
  });

  it('deletes and publishes deleted', async () => {
    const p = principal('member');
    const { project } = await s.service.create({ principal: p, body: { name: 'gone' } });
    const res = await s.service.delete({ principal: principal('admin', { tenant: p.tenant }), id: project.id });
    expect(res.message).toBe('Project gone deleted');
    expect(s.projects.projects.size).toBe(0);
    expect(s.stream.published.at(-1)).toMatchObject({ payload: { id: project.id, change: 'deleted' } });
  });
});
