import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  type AttachByIdCommand,
  type AttachGuardrailCommand,
  type AttachProviderCommand,
  type CreateProjectCommand,
  DEFAULT_PAGE_SIZE,
  DEFAULT_PROJECT_NAME,
  type DetachCommand,
  type GlobalProjectCommand,
  DomainError,
  type GetProjectCommand,
  type GuardrailEntryInput,
  type GuardrailList,
  type ListProjectsCommand,
  type MessageResponse,
  type Page,
  type Principal,
  type ProjectConfigInput,
  type ProjectIdCommand,
  type ProjectRuntime,
  type ProjectRuntimeQuery,
  type ProjectView,
  type ProviderEntry,
  type RuntimeGuardrail,
  type ScannerDirection,
  type UpdateGuardrailCommand,
  type UpdateProjectCommand,
  type UpdateProjectRequest,
  type UpdateProviderEntryCommand,
} from '@bastion/contracts';
import { decodeCursor, paginate } from '@bastion/persistence';
import type { Logger } from 'pino';
import { sameJson } from '../domain/canonical-json';
import { parseConfigAt, revisionAt } from '../domain/config-at';
import { friendlyId } from '../domain/friendly-id';
import {
  buildGuardrailEntry,
  buildProviderEntry,
  changeGuardrailEntry,
  changeProviderEntry,
  checkLists,
  EMPTY_CONFIG,
  type GuardrailTarget,
  guardrailIdsOf,
  type StoredGuardrailEntry,
  type StoredProjectConfig,
  withChangedEntry,
  withEntry,
  withoutEntry,
} from '../domain/project-config';
import { isUuid, resolveRuntimeVersion } from '../domain/versions';
import { ProjectsEventPublisher } from '../events/projects-event.publisher';
import { ApiKeyRepository } from './api-key.repository';
import { ApiKeyService } from './api-key.service';
import type { Project } from '../generated/prisma/client';
import { PROJECTS_LOGGER } from '../logger';
import { ScannerRepository } from '../scanners/scanner.repository';
import { currentRevision, projectView } from './project.mapper';
import { type ProjectChange, type ProjectFields, ProjectRepository } from './project.repository';

/** Who creates the default projects. */
const SYSTEM_AUTHOR = 'bastion';

/**
 * Projects: their fields, the scanners, packages and providers attached to them, and the history of
 * their config. Every config change is a new revision, so `configAt` can read any past config.
 */
@Injectable()
export class ProjectService {
  constructor(
    private readonly projects: ProjectRepository,
    private readonly scanners: ScannerRepository,
    private readonly events: ProjectsEventPublisher,
    private readonly keys: ApiKeyService,
    private readonly keyRows: ApiKeyRepository,
    @Inject(PROJECTS_LOGGER) private readonly logger: Logger,
  ) {}

  async create({ principal, body }: CreateProjectCommand): Promise<{ project: ProjectView }> {
    checkName(body.name);
    const lists = await this.lists(principal.tenant, body.config);
    if (await this.projects.findByName(principal.tenant, body.name)) throw nameTaken(body.name);
    const project = await this.projects.create({
      id: randomUUID(),
      tenant: principal.tenant,
      friendlyId: friendlyId(body.name),
      ...newFields(body),
      name: body.name,
      config: { ...EMPTY_CONFIG, ...lists },
      createdBy: principal.sub,
      createdAt: new Date(),
    });
    await this.events.projectChanged(project, 'created');
    return { project: projectView(project, currentRevision(project)) };
  }

  async list({ principal, limit, cursor }: ListProjectsCommand): Promise<Page<'projects', ProjectView>> {
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const c = cursor ? decodeCursor(cursor) : undefined;
    const page = paginate(await this.projects.page(principal.tenant, c, size), size, c);
    const counts = await this.keyRows.countByProject(
      principal.tenant,
      page.items.map((p) => p.id),
    );
    return {
      projects: page.items.map((p) => projectView(p, currentRevision(p), counts.get(p.id) ?? 0)),
      next: page.next,
      prev: page.prev,
    };
  }

  /**
   * By id or name (`default` is made on first use); with `configAt`, the config in force then. For a
   * project-scoped caller another project is not found, in the words a missing one gets.
   */
  async get({ principal, project: ref, configAt }: GetProjectCommand): Promise<{ project: ProjectView }> {
    const at = configAt === undefined ? undefined : parseConfigAt(configAt);
    const project = await this.resolve(principal.tenant, ref);
    if (
      principal.project !== undefined &&
      principal.project.toLowerCase() !== project.id &&
      principal.project !== project.name
    ) {
      throw projectNotFound(ref);
    }
    const tokens = await this.tokenCount(principal.tenant, project.id);
    if (!at) return { project: projectView(project, currentRevision(project), tokens) };
    const revision = revisionAt(await this.projects.revisionsUpTo(project.id, at), at);
    if (!revision)
      throw DomainError.notFound(
        `project ${project.name} did not exist at ${at.toISOString()}; it was created at ${project.createdAt.toISOString()}`,
      );
    return {
      project: projectView(project, { ...revision, config: revision.config as unknown as StoredProjectConfig }, tokens),
    };
  }

  async update({ principal, id, body }: UpdateProjectCommand): Promise<{ project: ProjectView }> {
    if (body.name !== undefined) checkName(body.name);
    const lists = await this.lists(principal.tenant, body.config);
    if (body.name !== undefined) {
      const holder = await this.projects.findByName(principal.tenant, body.name);
      if (holder && holder.id !== id.toLowerCase()) throw nameTaken(body.name);
    }
    return this.change(principal, id, (config) => ({ fields: changedFields(body), config: { ...config, ...lists } }));
  }

  async delete({ principal, id }: ProjectIdCommand): Promise<MessageResponse> {
    const deleted = await this.projects.delete(principal.tenant, id);
    if (!deleted) throw projectNotFound(id);
    await this.keys.projectDeleted(principal.tenant, deleted.id);
    await this.events.projectChanged(deleted, 'deleted');
    return { message: `Project ${deleted.name} deleted` };
  }

  async attachGuardrail({ principal, id, list, entry }: AttachGuardrailCommand): Promise<{ project: ProjectView }> {
    const target = await this.target(principal.tenant, entry.id);
    const built = buildGuardrailEntry(entry, target, list, ['body']);
    return this.change(principal, id, (config) => ({ config: withEntry(config, list, built) }));
  }

  async updateGuardrail({
    principal,
    id,
    list,
    entryId,
    changes,
  }: UpdateGuardrailCommand): Promise<{ project: ProjectView }> {
    const target = await this.target(principal.tenant, entryId);
    return this.change(principal, id, (config) => ({
      config: withChangedEntry(config, list, entryId, (e: StoredGuardrailEntry) =>
        changeGuardrailEntry(e, changes, target, ['body']),
      ),
    }));
  }

  async attachProvider({ principal, id, entry }: AttachProviderCommand): Promise<{ project: ProjectView }> {
    return this.change(principal, id, (config) => ({
      config: withEntry(config, 'providers', buildProviderEntry(entry)),
    }));
  }

  async updateProvider({
    principal,
    id,
    entryId,
    changes,
  }: UpdateProviderEntryCommand): Promise<{ project: ProjectView }> {
    return this.change(principal, id, (config) => ({
      config: withChangedEntry(config, 'providers', entryId, (e: ProviderEntry) => changeProviderEntry(e, changes)),
    }));
  }

  async detach({ principal, id, list, entryId }: DetachCommand): Promise<{ project: ProjectView }> {
    const projectId = await this.idOf(principal.tenant, id);
    return this.change(principal, projectId, (config) => ({ config: withoutEntry(config, list, entryId) }));
  }

  /**
   * Attach by id, as the real API does it: the entry starts disabled (it does nothing until a PATCH
   * enables it) unless the body's settings enable it.
   */
  async attachById({
    principal,
    id,
    list,
    entryId,
    guardrail,
    provider,
  }: AttachByIdCommand): Promise<{ project: ProjectView }> {
    const projectId = await this.idOf(principal.tenant, id);
    if (list === 'providers') {
      const entry = buildProviderEntry({ ...provider, id: entryId, enabled: provider?.enabled ?? false });
      return this.change(principal, projectId, (config) => ({ config: withEntry(config, 'providers', entry) }));
    }
    const target = await this.target(principal.tenant, entryId);
    const built = buildGuardrailEntry(
      { ...guardrail, id: entryId, enabled: guardrail?.enabled ?? false },
      target,
      list,
      ['path'],
    );
    return this.change(principal, projectId, (config) => ({ config: withEntry(config, list, built) }));
  }

  /** The tenant's global project (`default`, made on first use); a project-scoped token's own project. */
  async global({ principal }: GlobalProjectCommand): Promise<{ project: ProjectView }> {
    return this.get({ principal, project: principal.project ?? DEFAULT_PROJECT_NAME });
  }

  /** For the message proxy: the project's config with the version each guardrail runs resolved. */
  async runtime({ tenant, project: ref }: ProjectRuntimeQuery): Promise<ProjectRuntime> {
    const project = await this.resolve(tenant, ref);
    const config = project.config as unknown as StoredProjectConfig;
    const ids = guardrailIdsOf(config);
    const [scanners, versions] = await Promise.all([
      this.scanners.findVisibleMany(tenant, ids),
      this.scanners.versionsOf(ids),
    ]);
    const byId = new Map(scanners.map((s) => [s.id, s]));
    const resolve = (entries: StoredGuardrailEntry[]): RuntimeGuardrail[] =>
      entries.flatMap(({ versionId, ...entry }) => {
        const scanner = byId.get(entry.id);
        if (!scanner?.latestVersionId) {
          this.logger.warn(
            { projectId: project.id, scannerId: entry.id },
            'project names a scanner that is gone; skipped',
          );
          return [];
        }
        const v = resolveRuntimeVersion(
          versions.filter((x) => x.scannerId === entry.id),
          scanner.latestVersionId,
          versionId,
        );
        return [
          {
            ...entry,
            name: scanner.name,
            type: scanner.type,
            kind: scanner.kind,
            builtIn: scanner.builtIn,
            resolvedVersion: {
              id: v.id,
              name: v.name,
              published: v.published,
              direction: v.direction as ScannerDirection,
              config: v.config as Record<string, unknown>,
            },
          },
        ];
      });
    return {
      tenant,
      project: {
        id: project.id,
        name: project.name,
        deploymentStatus: project.deploymentStatus,
        enforcing: project.deploymentStatus === 'live',
      },
      configId: project.configId,
      revision: project.revision,
      packages: resolve(config.packages),
      scanners: resolve(config.scanners),
      providers: config.providers,
      guard: config.guard,
    };
  }

  /**
   * One change of a project under its row lock: `decide` sees the current config. A config equal to
   * the current one makes no revision.
   */
  private async change(
    principal: Principal,
    id: string,
    decide: (config: StoredProjectConfig) => ProjectChange,
  ): Promise<{ project: ProjectView }> {
    let configChanged = false;
    const project = await this.projects.change(principal.tenant, id, principal.sub, (current) => {
      const config = current.config as unknown as StoredProjectConfig;
      const change = decide(config);
      if (change.config && sameJson(change.config, config)) delete change.config;
      configChanged = change.config !== undefined;
      return change;
    });
    if (!project) throw projectNotFound(id);
    await this.events.projectChanged(project, configChanged ? 'config-changed' : 'updated');
    return {
      project: projectView(project, currentRevision(project), await this.tokenCount(principal.tenant, project.id)),
    };
  }

  private async tokenCount(tenant: string, projectId: string): Promise<number> {
    return (await this.keyRows.countByProject(tenant, [projectId])).get(projectId) ?? 0;
  }

  /** A project's id from its id or name (`default` included). */
  private async idOf(tenant: string, ref: string): Promise<string> {
    return isUuid(ref) ? ref.toLowerCase() : (await this.resolve(tenant, ref)).id;
  }

  private async resolve(tenant: string, ref: string): Promise<Project> {
    if (ref === DEFAULT_PROJECT_NAME) return this.ensureDefault(tenant);
    const project = isUuid(ref)
      ? await this.projects.findById(tenant, ref)
      : await this.projects.findByName(tenant, ref);
    if (!project) throw projectNotFound(ref);
    return project;
  }

  /** The tenant's `default` project, made on first use (a racing replica's copy wins). */
  private async ensureDefault(tenant: string): Promise<Project> {
    const found = await this.projects.findByName(tenant, DEFAULT_PROJECT_NAME);
    if (found) return found;
    try {
      const project = await this.projects.create({
        id: randomUUID(),
        tenant,
        friendlyId: friendlyId(DEFAULT_PROJECT_NAME),
        ...newFields({}),
        name: DEFAULT_PROJECT_NAME,
        config: EMPTY_CONFIG,
        createdBy: SYSTEM_AUTHOR,
        createdAt: new Date(),
      });
      await this.events.projectChanged(project, 'created');
      return project;
    } catch (err) {
      const raced = await this.projects.findByName(tenant, DEFAULT_PROJECT_NAME);
      if (raced) return raced;
      throw err;
    }
  }

  /** Whole lists from a create or update body, each entry resolved against its scanner. */
  private async lists(tenant: string, input: ProjectConfigInput | undefined): Promise<Partial<StoredProjectConfig>> {
    if (!input) return {};
    const lists: Partial<StoredProjectConfig> = {};
    const loc = ['body', 'config'];
    for (const list of ['packages', 'scanners'] as const satisfies readonly GuardrailList[]) {
      const entries: GuardrailEntryInput[] | undefined = input[list];
      if (!entries) continue;
      const targets = await this.targets(
        tenant,
        entries.map((e) => e.id),
      );
      lists[list] = entries.map((e, i) =>
        buildGuardrailEntry(e, targets.get(e.id.toLowerCase())!, list, [...loc, list, String(i)]),
      );
    }
    if (input.providers) lists.providers = input.providers.map(buildProviderEntry);
    if (input.guard) lists.guard = { ...input.guard };
    checkLists(lists, loc);
    return lists;
  }

  private async target(tenant: string, id: string): Promise<GuardrailTarget> {
    return (await this.targets(tenant, [id])).get(id.toLowerCase())!;
  }

  /** The scanners (and packages) the tenant reads, with their versions; an unknown id is a 404. */
  private async targets(tenant: string, ids: string[]): Promise<Map<string, GuardrailTarget>> {
    const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
    const scanners = await this.scanners.findVisibleMany(tenant, wanted);
    const missing = wanted.filter((id) => !scanners.some((s) => s.id === id));
    if (missing.length) throw DomainError.notFound(`scanner ${missing.join(', ')} not found`);
    const versions = await this.scanners.versionsOf(wanted);
    return new Map(
      scanners.map((s) => [
        s.id,
        {
          id: s.id,
          name: s.name,
          kind: s.kind,
          latestVersionId: s.latestVersionId ?? '',
          versions: versions.filter((v) => v.scannerId === s.id),
        },
      ]),
    );
  }
}

type FieldsInput = Omit<UpdateProjectRequest, 'config' | 'name'>;

/** The fields of a new project, with their defaults. */
function newFields(body: FieldsInput): Omit<ProjectFields, 'name'> {
  return {
    type: body.type ?? 'app',
    botType: body.botType ?? '',
    chatbotId: body.chatbotId ?? '',
    adminRoleId: body.adminRoleId ?? '',
    memberRoleId: body.memberRoleId ?? '',
    deploymentStatus: body.deploymentStatus ?? 'draft',
  };
}

/** The fields an update sets (those it leaves out keep their values). */
function changedFields(body: UpdateProjectRequest): Partial<ProjectFields> {
  const { config: _lists, ...fields } = body;
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<ProjectFields>;
}

function checkName(name: string): void {
  if (isUuid(name)) {
    throw DomainError.invalid('a project name cannot be a UUID (projects are looked up by id or name)', [
      { loc: ['body', 'name'], msg: 'a project name cannot be a UUID', type: 'value_error' },
    ]);
  }
}

function projectNotFound(ref: string): DomainError {
  return DomainError.notFound(`project ${ref} not found`);
}

function nameTaken(name: string): DomainError {
  return DomainError.alreadyExists(`a project named ${name} already exists`);
}
