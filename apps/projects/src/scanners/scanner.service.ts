import { randomUUID } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import {
  type CreateScannerCommand,
  DomainError,
  type FieldViolation,
  type ListPackagesCommand,
  type ListScannersCommand,
  type ListScannerVersionsCommand,
  type MessageResponse,
  type Page,
  type PackageView,
  type Principal,
  type ScannerCreateResponse,
  type ScannerKind,
  type ScannerRefCommand,
  type ScannerUpdateResponse,
  type ScannerVersionRefCommand,
  type ScannerVersionView,
  type ScannerView,
  type UpdateScannerCommand,
  type UpdateScannerVersionCommand,
  DEFAULT_PAGE_SIZE,
} from '@bastion/contracts';
import { scannerConfigWarnings, validateScannerConfig } from '@bastion/guardrails';
import { decodeCursor, paginate } from '@bastion/persistence';
import type { Logger } from 'pino';
import { BUILT_IN_AUTHOR, builtInCatalog } from '../domain/built-in-catalog';
import { sameJson } from '../domain/canonical-json';
import { isUuid, versionName } from '../domain/versions';
import { ProjectsEventPublisher } from '../events/projects-event.publisher';
import type { Scanner, ScannerVersion } from '../generated/prisma/client';
import { PROJECTS_LOGGER } from '../logger';
import { ProjectReferencesRepository } from './project-references.repository';
import { type LatestRuns, packageView, scannerView, versionMeta, versionView } from './scanner.mapper';
import { ScannerRepository, type ScannerUpdatePlan } from './scanner.repository';

/**
 * Scanners and their versions: who may change what, config validation on save, and versioning. A
 * change of config or direction makes a new version; `push` makes it the latest.
 */
@Injectable()
export class ScannerService implements OnApplicationBootstrap {
  constructor(
    private readonly scanners: ScannerRepository,
    private readonly projects: ProjectReferencesRepository,
    private readonly events: ProjectsEventPublisher,
    @Inject(PROJECTS_LOGGER) private readonly logger: Logger,
  ) {}

  /** Seeds the built-in scanners and packages (idempotent: replicas may do it at once). */
  async onApplicationBootstrap(): Promise<void> {
    const created = await this.scanners.seedBuiltIns(builtInCatalog(), BUILT_IN_AUTHOR, new Date());
    if (created > 0) this.logger.info({ created }, 'seeded built-in scanners');
  }

  async create({ principal, body }: CreateScannerCommand): Promise<ScannerCreateResponse> {
    checkConfig(body.config, ['body', 'config']);
    if (await this.scanners.nameTaken(principal.tenant, body.name)) throw nameTaken(body.name);
    const now = new Date();
    const { scanner } = await this.scanners.create({
      id: randomUUID(),
      tenant: principal.tenant,
      name: body.name,
      type: String(body.config.type),
      tags: body.tags ?? [],
      createdBy: principal.sub,
      createdAt: now,
      firstVersion: {
        id: randomUUID(),
        name: versionName(1, body.version?.name, ['body', 'version', 'name']),
        config: body.config,
        direction: body.direction ?? 'both',
        description: body.version?.description ?? '',
        published: body.published ?? body.version?.published ?? false,
        createdBy: principal.sub,
        createdAt: now,
      },
    });
    await this.events.scannerChanged(scanner, 'created', []);
    return { id: scanner.id, ...warningsOf(body.config, ['body', 'config']) };
  }

  async list({ principal, limit, cursor }: ListScannersCommand): Promise<Page<'scanners', ScannerView>> {
    const page = await this.page(principal, 'scanner', limit, cursor);
    return {
      scanners: page.items.map(({ scanner, latest }) => scannerView(scanner, latest, page.runs)),
      next: page.next,
      prev: page.prev,
    };
  }

  async listPackages({ principal, limit, cursor }: ListPackagesCommand): Promise<Page<'packages', PackageView>> {
    const page = await this.page(principal, 'package', limit, cursor);
    return {
      packages: page.items.map(({ scanner, latest }) => packageView(scanner, latest, page.runs)),
      next: page.next,
      prev: page.prev,
    };
  }

  async get({ principal, scannerId }: ScannerRefCommand): Promise<{ scanner: ScannerView }> {
    const scanner = await this.visible(principal, scannerId);
    const [latest] = await this.scanners.versionsByIds([scanner.latestVersionId ?? '']);
    const runs = await this.scanners.latestRuns(principal.tenant, [latest.id]);
    return {
      scanner: scanner.kind === 'package' ? packageView(scanner, latest, runs) : scannerView(scanner, latest, runs),
    };
  }

  /** The spec's "Update guardrail". */
  async update({ principal, scannerId, body }: UpdateScannerCommand): Promise<ScannerUpdateResponse> {
    const scanner = await this.ownScanner(principal, scannerId);
    const [latest] = await this.scanners.versionsByIds([scanner.latestVersionId ?? '']);
    const problems: FieldViolation[] = [];
    if (body.config) {
      checkConfig(body.config, ['body', 'config']);
      if (body.config.type !== scanner.type) {
        problems.push({
          loc: ['body', 'config', 'type'],
          msg: `a ${scanner.type} scanner stays one; create another scanner for ${String(body.config.type)}`,
          type: 'value_error',
        });
      }
    }
    const configChanged = !!body.config && !sameJson(body.config, latest.config);
    const directionChanged = body.direction !== undefined && body.direction !== latest.direction;
    const makesVersion = configChanged || directionChanged;
    const push = makesVersion && (body.version?.push ?? false);
    if (!makesVersion && body.version?.name !== undefined) {
      problems.push({
        loc: ['body', 'version', 'name'],
        msg: 'only a new version takes a name, and this update makes none (config and direction are unchanged)',
        type: 'value_error',
      });
    }
    // `published` is the latest version's (after the update); `version.published` the new version's,
    // or the latest's when there is no new one. Naming one version both ways differently is a mistake.
    const newPublished = makesVersion
      ? (body.version?.published ?? (push ? body.published : undefined) ?? false)
      : undefined;
    const latestPublished = push ? undefined : (body.published ?? (makesVersion ? undefined : body.version?.published));
    const sameTarget = push || !makesVersion;
    if (
      sameTarget &&
      body.published !== undefined &&
      body.version?.published !== undefined &&
      body.published !== body.version.published
    ) {
      problems.push({
        loc: ['body', 'published'],
        msg: 'published and version.published name the same version here and disagree',
        type: 'value_error',
      });
    }
    if (problems.length) throw DomainError.invalid(problems.map((p) => p.msg).join('; '), problems);
    if (
      body.name !== undefined &&
      body.name !== scanner.name &&
      (await this.scanners.nameTaken(principal.tenant, body.name, scanner.id))
    )
      throw nameTaken(body.name);
    if (
      makesVersion &&
      body.version?.name !== undefined &&
      (await this.scanners.versionNameTaken(scanner.id, body.version.name))
    ) {
      throw DomainError.alreadyExists(`${scanner.name} already has a version named ${body.version.name}`);
    }

    const now = new Date();
    const plan: ScannerUpdatePlan = {
      scanner: { name: body.name, tags: body.tags, updatedAt: now },
      latest: { published: latestPublished, description: makesVersion ? undefined : body.version?.description },
      newVersion: makesVersion
        ? {
            id: randomUUID(),
            config: body.config ?? (latest.config as Record<string, unknown>),
            direction: body.direction ?? (latest.direction as 'request' | 'response' | 'both'),
            description: body.version?.description ?? '',
            published: newPublished ?? false,
            createdBy: principal.sub,
            createdAt: now,
            nameFor: (n) => versionName(n, body.version?.name, ['body', 'version', 'name']),
            push,
          }
        : undefined,
    };
    const result = await this.scanners.update(scanner.id, plan);
    const shown = result.created ?? result.latest;
    const runs = await this.scanners.latestRuns(principal.tenant, [shown.id]);
    const projectIds = await this.projects.idsReferencing(principal.tenant, scanner.id);
    await this.events.scannerChanged(
      result.scanner,
      result.created ? 'version-created' : 'updated',
      projectIds,
      result.created?.id ?? null,
    );
    return {
      message: updateMessage(result.created, push),
      versionMeta: versionMeta(shown, runs),
      ...(result.created && body.config ? warningsOf(body.config, ['body', 'config']) : {}),
    };
  }

  async delete({ principal, scannerId }: ScannerRefCommand): Promise<MessageResponse> {
    const scanner = await this.ownScanner(principal, scannerId);
    const projectIds = await this.projects.idsReferencing(principal.tenant, scanner.id);
    if (projectIds.length > 0) {
      const names = await this.projects.namesOf(projectIds);
      throw DomainError.failedPrecondition(
        `${scanner.name} is attached to project(s) ${names.join(', ')}: detach it first`,
      );
    }
    const deleted = await this.scanners.delete(scanner.id);
    await this.events.scannerChanged(deleted, 'deleted', []);
    return { message: `Scanner ${scanner.name} deleted` };
  }

  async listVersions({
    principal,
    scannerId,
    limit,
    cursor,
  }: ListScannerVersionsCommand): Promise<Page<'versions', ScannerVersionView>> {
    const scanner = await this.visible(principal, scannerId);
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const c = cursor ? decodeCursor(cursor) : undefined;
    const page = paginate(await this.scanners.versionPage(scanner.id, c, size), size, c);
    const runs = await this.scanners.latestRuns(
      principal.tenant,
      page.items.map((v) => v.id),
    );
    return { versions: page.items.map((v) => versionView(v, scanner, runs)), next: page.next, prev: page.prev };
  }

  async getVersion({
    principal,
    scannerId,
    versionRef,
  }: ScannerVersionRefCommand): Promise<{ version: ScannerVersionView }> {
    const { scanner, version } = await this.visibleVersion(principal, scannerId, versionRef);
    const runs = await this.scanners.latestRuns(principal.tenant, [version.id]);
    return { version: versionView(version, scanner, runs) };
  }

  /** Publish or unpublish a version, describe it, or make it the latest (`push`, also a rollback). */
  async updateVersion({
    principal,
    scannerId,
    versionRef,
    body,
  }: UpdateScannerVersionCommand): Promise<ScannerUpdateResponse> {
    const scanner = await this.ownScanner(principal, scannerId);
    const version = await this.versionOf(scanner, versionRef);
    const push = body.push === true && scanner.latestVersionId !== version.id;
    const result = await this.scanners.updateVersion(
      version,
      { published: body.published, description: body.description, push },
      new Date(),
    );
    const runs = await this.scanners.latestRuns(principal.tenant, [version.id]);
    const projectIds = await this.projects.idsReferencing(principal.tenant, scanner.id);
    await this.events.scannerChanged(result.scanner, 'version-updated', projectIds, version.id);
    const what = [
      body.published === undefined ? null : body.published ? 'published' : 'unpublished',
      push ? 'now the latest' : null,
      body.description === undefined ? null : 'described',
    ].filter(Boolean);
    return {
      message: `Version ${version.name} ${what.length ? what.join(', ') : 'unchanged'}`,
      versionMeta: versionMeta(result.version, runs),
    };
  }

  /** A scanner (or package) the caller's tenant reads, else 404. */
  async visible(principal: Principal, scannerId: string): Promise<Scanner> {
    const scanner = await this.scanners.findVisible(principal.tenant, scannerId);
    if (!scanner) throw scannerNotFound(scannerId);
    return scanner;
  }

  async visibleVersion(
    principal: Principal,
    scannerId: string,
    ref: string,
  ): Promise<{ scanner: Scanner; version: ScannerVersion }> {
    const scanner = await this.visible(principal, scannerId);
    return { scanner, version: await this.versionOf(scanner, ref) };
  }

  private async versionOf(scanner: Scanner, ref: string): Promise<ScannerVersion> {
    const version = await this.scanners.findVersion(scanner.id, ref, isUuid(ref));
    if (!version) throw DomainError.notFound(`scanner ${scanner.id} has no version ${ref}`);
    return version;
  }

  /** A scanner of the caller's tenant; built-ins are read-only for everyone. */
  private async ownScanner(principal: Principal, scannerId: string): Promise<Scanner> {
    const scanner = await this.visible(principal, scannerId);
    if (scanner.builtIn)
      throw DomainError.permissionDenied(`${scanner.name} is built in: it cannot be changed or deleted`);
    return scanner;
  }

  private async page(principal: Principal, kind: ScannerKind, limit: number | undefined, cursor: string | undefined) {
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const c = cursor ? decodeCursor(cursor) : undefined;
    const page = paginate(await this.scanners.page(principal.tenant, kind, c, size), size, c);
    const versions = await this.scanners.versionsByIds(page.items.map((s) => s.latestVersionId ?? ''));
    const byId = new Map(versions.map((v) => [v.id, v]));
    const runs: LatestRuns = await this.scanners.latestRuns(
      principal.tenant,
      versions.map((v) => v.id),
    );
    const items = page.items.map((scanner) => ({
      scanner,
      latest: byId.get(scanner.latestVersionId ?? '') as ScannerVersion,
    }));
    return { items, runs, next: page.next, prev: page.prev };
  }
}

/** A config that cannot be saved is a 422 listing every problem at its place in the body. */
function checkConfig(config: unknown, loc: string[]): void {
  const problems = validateScannerConfig(config);
  if (problems.length === 0) return;
  const details = problems.map((p) => ({ loc: [...loc, ...p.loc], msg: p.msg, type: p.type }));
  throw DomainError.invalid(
    `invalid scanner config: ${details.map((d) => `${d.loc.slice(1).join('.')}: ${d.msg}`).join('; ')}`,
    details,
  );
}

/**
 * What a valid config still warns about (a pattern allowing matches longer than the stream
 * hold-back cap), at its place in the body; nothing when there is nothing to say.
 */
function warningsOf(config: unknown, loc: string[]): { warnings?: FieldViolation[] } {
  const warnings = scannerConfigWarnings(config).map((w) => ({ loc: [...loc, ...w.loc], msg: w.msg, type: w.type }));
  return warnings.length ? { warnings } : {};
}

function updateMessage(created: ScannerVersion | null, push: boolean): string {
  if (!created) return 'Scanner updated';
  return push
    ? `Scanner updated: version ${created.name} created and now the latest`
    : `Scanner updated: version ${created.name} created; push it (version.push) to make it the latest`;
}

function scannerNotFound(id: string): DomainError {
  return DomainError.notFound(`scanner ${id} not found`);
}

function nameTaken(name: string): DomainError {
  return DomainError.alreadyExists(`a scanner named ${name} already exists`);
}
