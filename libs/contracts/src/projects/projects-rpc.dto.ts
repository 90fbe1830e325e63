import { Type } from 'class-transformer';
import {
  IsBase64,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PrincipalDto } from '../auth/principal.dto';
import { MAX_PAGE_SIZE } from '../backend/page-query.dto';
import {
  CreateProjectRequest,
  GuardrailEntryChange,
  GuardrailEntryInput,
  ProviderEntryChange,
  ProviderEntryInput,
  UpdateProjectRequest,
} from './project.dto';
import { DATASET_MAX_BYTES, DATASET_MAX_PARTS, DATASET_PART_BYTES } from './projects.subjects';
import { CreateScannerRequest, UpdateScannerRequest, UpdateScannerVersionRequest } from './scanner.dto';

/**
 * Payloads of the projects service's NATS requests, validated again on receipt: a service trusts no
 * sender.
 */
class Scoped {
  @ValidateNested()
  @Type(() => PrincipalDto)
  principal!: PrincipalDto;
}

class Paged extends Scoped {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

export class CreateScannerCommand extends Scoped {
  @IsObject()
  @ValidateNested()
  @Type(() => CreateScannerRequest)
  body!: CreateScannerRequest;
}

export class ListScannersCommand extends Paged {}
export class ListPackagesCommand extends Paged {}

export class ScannerRefCommand extends Scoped {
  @IsUUID()
  scannerId!: string;
}

export class UpdateScannerCommand extends ScannerRefCommand {
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateScannerRequest)
  body!: UpdateScannerRequest;
}

export class ListScannerVersionsCommand extends ScannerRefCommand {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

export class ScannerVersionRefCommand extends ScannerRefCommand {
  /** The version's id or its name (`v_2`). */
  @IsString()
  @MaxLength(64)
  versionRef!: string;
}

export class UpdateScannerVersionCommand extends ScannerVersionRefCommand {
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateScannerVersionRequest)
  body!: UpdateScannerVersionRequest;
}

export class ListEvaluationsCommand extends ScannerVersionRefCommand {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(512)
  cursor?: string;
}

/** One part of a staged dataset: bytes `[part * DATASET_PART_BYTES, ...)` of the CSV, base64. */
export class StageDatasetCommand extends Scoped {
  @IsUUID()
  uploadId!: string;

  @IsInt()
  @Min(0)
  @Max(DATASET_MAX_PARTS - 1)
  part!: number;

  @IsBase64()
  @MaxLength(Math.ceil(DATASET_PART_BYTES / 3) * 4)
  data!: string;
}

/** A dataset sent in parts: how many, and the whole CSV's size and SHA-256 (hex), checked on assembly. */
export class StagedDatasetRef {
  @IsUUID()
  id!: string;

  @IsInt()
  @Min(1)
  @Max(DATASET_MAX_PARTS)
  parts!: number;

  @IsInt()
  @Min(0)
  @Max(DATASET_MAX_BYTES)
  bytes!: number;

  @Matches(/^[0-9a-f]{64}$/)
  sha256!: string;
}

/** Evaluate a version over a labelled CSV, given inline (base64) when small, else as staged parts. */
export class EvaluateDatasetCommand extends ScannerVersionRefCommand {
  @IsOptional()
  @IsBase64()
  @MaxLength(Math.ceil(DATASET_PART_BYTES / 3) * 4)
  data?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => StagedDatasetRef)
  upload?: StagedDatasetRef;
}

export class CreateProjectCommand extends Scoped {
  @IsObject()
  @ValidateNested()
  @Type(() => CreateProjectRequest)
  body!: CreateProjectRequest;
}

export class ListProjectsCommand extends Paged {}

export class GetProjectCommand extends Scoped {
  /** An id, a name, or `default`. */
  @IsString()
  @MaxLength(128)
  project!: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  configAt?: string;
}

export class ProjectIdCommand extends Scoped {
  @IsUUID()
  id!: string;
}

export class UpdateProjectCommand extends ProjectIdCommand {
  @IsObject()
  @ValidateNested()
  @Type(() => UpdateProjectRequest)
  body!: UpdateProjectRequest;
}

export const GUARDRAIL_LISTS = ['scanners', 'packages'] as const;
export type GuardrailList = (typeof GUARDRAIL_LISTS)[number];
export const PROJECT_LISTS = ['scanners', 'packages', 'providers'] as const;
export type ProjectList = (typeof PROJECT_LISTS)[number];

export class AttachGuardrailCommand extends ProjectIdCommand {
  @IsIn(GUARDRAIL_LISTS)
  list!: GuardrailList;

  @IsObject()
  @ValidateNested()
  @Type(() => GuardrailEntryInput)
  entry!: GuardrailEntryInput;
}

export class UpdateGuardrailCommand extends ProjectIdCommand {
  @IsIn(GUARDRAIL_LISTS)
  list!: GuardrailList;

  @IsUUID()
  entryId!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => GuardrailEntryChange)
  changes!: GuardrailEntryChange;
}

export class AttachProviderCommand extends ProjectIdCommand {
  @IsObject()
  @ValidateNested()
  @Type(() => ProviderEntryInput)
  entry!: ProviderEntryInput;
}

export class UpdateProviderEntryCommand extends ProjectIdCommand {
  @IsUUID()
  entryId!: string;

  @IsObject()
  @ValidateNested()
  @Type(() => ProviderEntryChange)
  changes!: ProviderEntryChange;
}

export class DetachCommand extends Scoped {
  /** The project's id or name. */
  @IsString()
  @MaxLength(128)
  id!: string;

  @IsIn(PROJECT_LISTS)
  list!: ProjectList;

  @IsUUID()
  entryId!: string;
}

/**
 * Attach by id (`POST /projects/{p}/{list}/{entryId}`): the entry starts disabled until PATCHed,
 * unless the settings say otherwise.
 */
export class AttachByIdCommand extends Scoped {
  /** The project's id or name. */
  @IsString()
  @MaxLength(128)
  id!: string;

  @IsIn(PROJECT_LISTS)
  list!: ProjectList;

  @IsUUID()
  entryId!: string;

  /** Settings of a scanner or package entry from the body, if any. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => GuardrailEntryChange)
  guardrail?: GuardrailEntryChange;

  /** Settings of a provider entry from the body, if any. */
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProviderEntryChange)
  provider?: ProviderEntryChange;
}

/** `GET /project`: the tenant's global project (a project-scoped token's own project). */
export class GlobalProjectCommand extends Scoped {}

/** From the message proxy: which tenant's project, by id, name, or `default`. Answered with a `ProjectRuntime`. */
export class ProjectRuntimeQuery {
  @IsString()
  @MaxLength(256)
  tenant!: string;

  @IsString()
  @MaxLength(128)
  project!: string;
}
