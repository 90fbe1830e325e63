import { IsArray, IsIn, IsInt, IsISO8601, IsOptional, IsString, IsUUID, Min } from 'class-validator';
import { DEPLOYMENT_STATUSES, type DeploymentStatus } from './scanner.enums';

export const PROJECT_CHANGES = ['created', 'updated', 'config-changed', 'deleted'] as const;
export type ProjectChange = (typeof PROJECT_CHANGES)[number];

/**
 * A project was created, renamed, set live or draft, had its config changed, or was deleted: a cached
 * runtime config of it is stale. `revision` grows with every config change.
 */
export class ProjectChangedEvent {
  @IsUUID()
  id!: string;

  @IsString()
  tenant!: string;

  @IsString()
  name!: string;

  @IsIn(PROJECT_CHANGES)
  change!: ProjectChange;

  @IsInt()
  @Min(1)
  revision!: number;

  @IsIn(DEPLOYMENT_STATUSES)
  deploymentStatus!: DeploymentStatus;

  @IsISO8601()
  occurredAt!: string;
}

export const SCANNER_CHANGES = ['created', 'updated', 'version-created', 'version-updated', 'deleted'] as const;
export type ScannerChange = (typeof SCANNER_CHANGES)[number];

/**
 * A tenant scanner or one of its versions changed. `projectIds` are the tenant's projects whose
 * config names the scanner: their runtime config may have changed too (an unpinned entry follows
 * the scanner's latest version).
 */
export class ScannerChangedEvent {
  @IsUUID()
  id!: string;

  @IsString()
  tenant!: string;

  @IsIn(SCANNER_CHANGES)
  change!: ScannerChange;

  /** The version made or changed, for the version changes. */
  @IsOptional()
  @IsUUID()
  versionId?: string | null;

  @IsOptional()
  @IsUUID()
  latestVersionId?: string | null;

  @IsArray()
  @IsUUID('all', { each: true })
  projectIds!: string[];

  @IsISO8601()
  occurredAt!: string;
}
