import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { PrincipalDto } from '../auth/principal.dto';
import { PageQuery } from '../backend/page-query.dto';

/** `?outcomes=a,b` and `?outcomes=a&outcomes=b` alike arrive as a list. */
const asList = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

/**
 * `GET /backend/v1/prompts` query. The filters travel to the prompts service as text, which checks
 * them (outcome names, ISO 8601 times) and answers 422 naming the parameter.
 */
export class ListPromptsQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Only prompts of this project.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  projectId?: string;

  @ApiPropertyOptional({
    description: 'cleared, flagged, redacted, blocked: comma-separated or repeated.',
    type: [String],
    example: 'flagged,blocked',
  })
  @IsOptional()
  @Transform(asList)
  @IsArray()
  @IsString({ each: true })
  outcomes?: string[];

  @ApiPropertyOptional({
    description: 'ISO 8601: only prompts received after this time.',
    example: '2026-01-01T00:00:00Z',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  after?: string;

  @ApiPropertyOptional({ description: 'ISO 8601: only prompts received before this time.' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  before?: string;
}

class Scoped {
  @ValidateNested()
  @Type(() => PrincipalDto)
  principal!: PrincipalDto;
}

export class ListPromptsCommand extends Scoped {
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @IsString()
  cursor?: string;

  @IsOptional()
  @IsString()
  @MaxLength(128)
  projectId?: string;

  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  outcomes?: string[];

  @IsOptional()
  @IsString()
  @MaxLength(64)
  after?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  before?: string;
}

/** A prompt or a prompt template, by id. */
export class PromptIdParams {
  @ApiProperty({ format: 'uuid' })
  @IsUUID()
  id!: string;
}

export class PromptRefCommand extends Scoped {
  @IsUUID()
  id!: string;
}

/** `POST /backend/v1/prompts/templates`: keep a prompt for reuse. */
export class CreatePromptTemplateRequest {
  @ApiProperty({ example: 'weekly summary' })
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  name!: string;

  @ApiProperty({ format: 'uuid', description: 'The prompt whose input the template keeps.' })
  @IsUUID()
  promptId!: string;

  @ApiPropertyOptional({ description: "Defaults to the prompt's project." })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  projectId?: string;
}

export class CreatePromptTemplateCommand extends Scoped {
  @IsObject()
  @ValidateNested()
  @Type(() => CreatePromptTemplateRequest)
  body!: CreatePromptTemplateRequest;
}

/** From the message proxy: a template's input, within a tenant. */
export class TemplateInputQuery {
  @IsString()
  tenant!: string;

  @IsUUID()
  templateId!: string;

  /** The caller's project when its key or token is scoped to one: another project's template is then not found. */
  @IsOptional()
  @IsString()
  project?: string;
}
