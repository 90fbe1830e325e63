import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import {
  DEPLOYMENT_STATUSES,
  type DeploymentStatus,
  GUARDRAIL_MODES,
  type GuardrailEntryMode,
  SCANNER_DIRECTIONS,
  type ScannerDirection,
} from './scanner.enums';

export const PROJECT_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,127}$/;
export const PROJECT_NAME_MESSAGE =
  'name must be 1-128 letters, digits, spaces, ".", "_" or "-", starting with a letter or digit';
/** Entries per list (scanners, packages, providers) of one project. */
export const MAX_PROJECT_ENTRIES = 100;

/** The settings of a guardrail entry (a scanner or package in a project), all optional. */
export class GuardrailEntryChange {
  @ApiPropertyOptional({
    example: 'v_2',
    description: 'A published version (name or id) to pin, or "latest" (default) to follow the scanner.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  version?: string;

  @ApiPropertyOptional({ default: true, description: 'A disabled entry does nothing.' })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @ApiPropertyOptional({ default: true, description: 'In block mode, false only flags.' })
  @IsOptional()
  @IsBoolean()
  blocking?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Carried to the message proxy: the entry applies even where a request asks to skip scanners.',
  })
  @IsOptional()
  @IsBoolean()
  force?: boolean;

  @ApiPropertyOptional({ enum: GUARDRAIL_MODES, default: 'block' })
  @IsOptional()
  @IsIn(GUARDRAIL_MODES)
  mode?: GuardrailEntryMode;

  @ApiPropertyOptional({ maxLength: 1024, description: 'Told to the caller when the entry flags or blocks.' })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  flagMessage?: string;

  @ApiPropertyOptional({ enum: SCANNER_DIRECTIONS, description: "Defaults to the scanner version's direction." })
  @IsOptional()
  @IsIn(SCANNER_DIRECTIONS)
  direction?: ScannerDirection;
}

export class GuardrailEntryInput extends GuardrailEntryChange {
  @ApiProperty({ format: 'uuid', description: 'The scanner (or, under packages, the package).' })
  @IsUUID()
  id!: string;
}

export class ProviderEntryChange {
  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  name?: string;

  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  type?: string;

  @ApiPropertyOptional({ type: [String], example: ['chat'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(20)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  capabilities?: string[];

  @ApiPropertyOptional({
    default: false,
    description: 'At most one provider is the default: setting it clears the others.',
  })
  @IsOptional()
  @IsBoolean()
  default?: boolean;

  @ApiPropertyOptional({ default: true })
  @IsOptional()
  @IsBoolean()
  enabled?: boolean;
}

export class ProviderEntryInput extends ProviderEntryChange {
  @ApiProperty({ format: 'uuid', description: 'A provider of the providers service (checked as a UUID only).' })
  @IsUUID()
  id!: string;
}

/** Whole lists: each given list replaces the project's list; an absent one is kept. */
/** How the message proxy treats what it cannot scan (see GuardSettings in the proxy contracts). */
export class GuardSettingsInput {
  @ApiPropertyOptional({
    enum: ['refuse', 'flag'],
    description:
      'refuse: images, binary documents and unknown types are refused; flag: they pass and the prompt is flagged. Unset: binary content passes flagged, unknown types are refused.',
  })
  @IsOptional()
  @IsIn(['refuse', 'flag'])
  unreadableContent?: 'refuse' | 'flag';

  @ApiPropertyOptional({ description: 'Scan the descriptions and schemas of the tools a request declares.' })
  @IsOptional()
  @IsBoolean()
  scanToolDescriptions?: boolean;
}

export class ProjectConfigInput {
  @ApiPropertyOptional({ type: [GuardrailEntryInput] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PROJECT_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => GuardrailEntryInput)
  packages?: GuardrailEntryInput[];

  @ApiPropertyOptional({ type: [GuardrailEntryInput] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PROJECT_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => GuardrailEntryInput)
  scanners?: GuardrailEntryInput[];

  @ApiPropertyOptional({ type: [ProviderEntryInput] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_PROJECT_ENTRIES)
  @ValidateNested({ each: true })
  @Type(() => ProviderEntryInput)
  providers?: ProviderEntryInput[];

  @ApiPropertyOptional({ type: GuardSettingsInput })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => GuardSettingsInput)
  guard?: GuardSettingsInput;
}

class ProjectFields {
  @ApiPropertyOptional({ maxLength: 64, default: 'app' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  type?: string;

  @ApiPropertyOptional({ maxLength: 64 })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  botType?: string;

  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  chatbotId?: string;

  @ApiPropertyOptional({
    maxLength: 128,
    description: "The identity provider's role (or group) whose holders administer the project.",
  })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  adminRoleId?: string;

  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  memberRoleId?: string;

  @ApiPropertyOptional({
    enum: DEPLOYMENT_STATUSES,
    default: 'draft',
    description: 'Only a live project enforces its scanners.',
  })
  @IsOptional()
  @IsIn(DEPLOYMENT_STATUSES)
  deploymentStatus?: DeploymentStatus;

  @ApiPropertyOptional({ type: ProjectConfigInput })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ProjectConfigInput)
  config?: ProjectConfigInput;
}

export class CreateProjectRequest extends ProjectFields {
  @ApiProperty({ example: 'support-bot', maxLength: 128, description: 'Unique in the tenant; not a UUID.' })
  @IsString()
  @Matches(PROJECT_NAME, { message: PROJECT_NAME_MESSAGE })
  name!: string;
}

export class UpdateProjectRequest extends ProjectFields {
  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @Matches(PROJECT_NAME, { message: PROJECT_NAME_MESSAGE })
  name?: string;
}

export class GetProjectQuery {
  @ApiPropertyOptional({
    example: '2026-11-21T10:00:00Z',
    description:
      'ISO 8601 instant (a date alone is midnight UTC; a time needs Z or an offset): the config as it was then.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  configAt?: string;
}
