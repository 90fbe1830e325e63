import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { SCANNER_DIRECTIONS, type ScannerDirection } from './scanner.enums';

const VERSION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const CONFIG_DESCRIPTION =
  'The scanner config, checked when saved: `{type: "regex", pattern | patterns}` (RE2 syntax: no lookaround, no backreferences), ' +
  '`{type: "keyword", words, caseSensitive?, wholeWord?}`, `{type: "pii" | "secrets", detectors?}` or `{type: "custom", ...}`.';

/** The version an update makes (or, when it makes none, the latest version). */
export class ScannerVersionInput {
  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  description?: string;

  @ApiPropertyOptional({
    example: 'v_2',
    description: 'Defaults to v_<n>. Only a new version takes a name; names are unique per scanner.',
  })
  @IsOptional()
  @IsString()
  @Matches(VERSION_NAME, {
    message: 'name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
  })
  name?: string;

  @ApiPropertyOptional({ description: 'Publish (or unpublish) the version.' })
  @IsOptional()
  @IsBoolean()
  published?: boolean;

  @ApiPropertyOptional({
    default: false,
    description: 'Make the new version the latest: what the scanner shows and what unpinned project entries follow.',
  })
  @IsOptional()
  @IsBoolean()
  push?: boolean;
}

export class CreateScannerRequest {
  @ApiProperty({ example: 'US SSN', maxLength: 128 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  name!: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { type: 'regex', pattern: '\\d{3}-\\d{2}-\\d{4}' },
    description: CONFIG_DESCRIPTION,
  })
  @IsObject()
  config!: Record<string, unknown>;

  @ApiPropertyOptional({ enum: SCANNER_DIRECTIONS, default: 'both' })
  @IsOptional()
  @IsIn(SCANNER_DIRECTIONS)
  direction?: ScannerDirection;

  @ApiPropertyOptional({ type: [String], example: ['pii'] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ default: false, description: 'Publish the first version.' })
  @IsOptional()
  @IsBoolean()
  published?: boolean;

  @ApiPropertyOptional({
    type: ScannerVersionInput,
    description: 'Description and name of the first version (push does not apply).',
  })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ScannerVersionInput)
  version?: ScannerVersionInput;
}

/** The spec's "Update guardrail" body. Every field is optional. */
export class UpdateScannerRequest {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: `${CONFIG_DESCRIPTION} A change makes a new version; null or absent keeps the config.`,
  })
  @IsOptional()
  @IsObject()
  config?: Record<string, unknown> | null;

  @ApiPropertyOptional({ enum: SCANNER_DIRECTIONS, description: 'A change makes a new version.' })
  @IsOptional()
  @IsIn(SCANNER_DIRECTIONS)
  direction?: ScannerDirection;

  @ApiPropertyOptional({ maxLength: 128 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  name?: string;

  @ApiPropertyOptional({ description: 'Publish (or unpublish) the latest version, as it is after this update.' })
  @IsOptional()
  @IsBoolean()
  published?: boolean;

  @ApiPropertyOptional({ type: [String] })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  tags?: string[];

  @ApiPropertyOptional({ type: ScannerVersionInput })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ScannerVersionInput)
  version?: ScannerVersionInput;
}

/** Changes to one existing version: its description, publication, and whether it becomes the latest. */
export class UpdateScannerVersionRequest {
  @ApiPropertyOptional({ maxLength: 2048 })
  @IsOptional()
  @IsString()
  @MaxLength(2048)
  description?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  published?: boolean;

  @ApiPropertyOptional({ description: 'true makes this version the latest (also to roll back to an older one).' })
  @IsOptional()
  @IsBoolean()
  push?: boolean;
}
