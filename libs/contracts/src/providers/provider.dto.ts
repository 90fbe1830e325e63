import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { IsStringMap } from '../validation/string-map';

export const PROVIDER_CAPABILITIES = ['chat', 'completion', 'embedding', 'image'] as const;

/** Caps requests in flight; each slot decays at `decayPerSecond` (a leaky bucket). */
export class RequestConcurrencyLimit {
  @ApiProperty({ example: 10 })
  @IsInt()
  @Min(1)
  @Max(100_000)
  requests!: number;

  @ApiProperty({ example: 1 })
  @IsNumber()
  @Min(0.001)
  @Max(100_000)
  decayPerSecond!: number;
}

export class ProviderAvailability {
  @ApiProperty()
  @IsBoolean()
  global!: boolean;

  @ApiProperty({ type: [String] })
  @IsArray()
  @IsUUID('all', { each: true })
  projectIds!: string[];
}

const isRequest = (o: { type?: string }) => o.type !== 'workflow';

/**
 * A provider's template, with `{{ expr }}` placeholders (see libs/templates): one HTTP request
 * (`type: request`), or a workflow of stages (`type: workflow`). Its exact shape is checked by the
 * template validator, which names the stage and place of each problem; here only the outline.
 */
export class ProviderTemplateDto {
  @ApiProperty({ enum: ['request', 'workflow'], example: 'request' })
  @IsIn(['request', 'workflow'])
  type!: 'request' | 'workflow';

  @ApiPropertyOptional({ example: 'POST', description: 'type request.' })
  @ValidateIf(isRequest)
  @IsString()
  @MaxLength(16)
  method!: string;

  @ApiPropertyOptional({ example: '{{ baseUrl }}/v1/chat/completions', description: 'type request.' })
  @ValidateIf(isRequest)
  @IsString()
  @MaxLength(4096)
  url!: string;

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'object', additionalProperties: true },
    description:
      'type workflow: stages run in order, each a request ({type: "request", method, url, headers, queryParams, body | json, timeout, outputs}) or a retry ' +
      '({type: "retry", attempts, backoff: "{{ 2 * attempt }}", when: "{{ expr }}", block: <request>}). A stage\'s outputs are in scope for later stages; ' +
      "the workflow's outputs must yield content.",
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10)
  @IsObject({ each: true })
  stages?: Record<string, unknown>[];

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsStringMap()
  headers?: Record<string, string>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsStringMap()
  queryParams?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Raw body (string with placeholders).' })
  @IsOptional()
  @IsString()
  body?: string;

  @ApiPropertyOptional({ description: 'JSON body: any JSON whose strings may hold placeholders.' })
  @IsOptional()
  json?: unknown;

  @ApiPropertyOptional({ description: "Seconds: the request's timeout; for a workflow, the whole run's." })
  @IsOptional()
  @IsNumber()
  @Min(0.1)
  @Max(600)
  timeout?: number;

  @ApiPropertyOptional({ description: '{accessKey, secretKey, region, service, token?}: SigV4-sign the request.' })
  @IsOptional()
  @IsObject()
  awsAuth?: Record<string, string>;

  @ApiPropertyOptional({ description: '{keyId, privateKeyPem, passphrase?}: OCI-sign the request.' })
  @IsOptional()
  @IsObject()
  ociAuth?: Record<string, string>;

  @ApiPropertyOptional({ description: 'Names (content, statusCode, ...) to expressions over `response`.' })
  @IsOptional()
  @IsObject()
  outputs?: Record<string, unknown>;
}

/** How a provider is reached: its request template, its auth template, its inputs and secrets. */
class ProviderConnection {
  @ApiPropertyOptional({ type: ProviderTemplateDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => ProviderTemplateDto)
  template?: ProviderTemplateDto;

  @ApiPropertyOptional({ nullable: true })
  @IsOptional()
  @IsObject()
  authTemplate?: Record<string, unknown> | null;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsStringMap()
  inputs?: Record<string, string>;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    description: 'Stored encrypted, returned masked.',
  })
  @IsOptional()
  @IsStringMap()
  secrets?: Record<string, string>;
}

class ProviderFields extends ProviderConnection {
  @ApiPropertyOptional({ format: 'uuid' })
  @IsOptional()
  @IsUUID()
  projectId?: string;

  @ApiPropertyOptional({ minimum: 0.001 })
  @IsOptional()
  @IsNumber()
  @Min(0.001)
  @Max(100_000)
  maxRequestsPerSecond?: number;

  @ApiPropertyOptional({ type: RequestConcurrencyLimit })
  @IsOptional()
  @ValidateNested()
  @Type(() => RequestConcurrencyLimit)
  requestConcurrencyLimit?: RequestConcurrencyLimit;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(128)
  tag?: string;

  @ApiPropertyOptional({ type: ProviderAvailability })
  @IsOptional()
  @ValidateNested()
  @Type(() => ProviderAvailability)
  availability?: ProviderAvailability;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  redTeam?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsBoolean()
  siem?: boolean;

  @ApiPropertyOptional({ type: [String], enum: PROVIDER_CAPABILITIES })
  @IsOptional()
  @IsIn(PROVIDER_CAPABILITIES, { each: true })
  capabilities?: string[];

  @ApiPropertyOptional({
    default: false,
    description:
      'Test the connection before saving (with `inputs.prompt` as the test prompt when given): a failed test is a 422 saying why, and nothing is saved.',
  })
  @IsOptional()
  @IsBoolean()
  test?: boolean;
}

/** From a system provider (`systemProvider`, its id or name) or from a raw `template`. */
export class CreateProviderRequest extends ProviderFields {
  @ApiProperty({ example: 'openai-prod' })
  @IsString()
  @MaxLength(128)
  name!: string;

  @ApiPropertyOptional({ description: 'A system provider id or name.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  systemProvider?: string;

  @ApiPropertyOptional({ example: 'custom' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  type?: string;
}

/** Partial update. A secret sent back as its masked value is kept; a secret set to "" is removed. */
export class UpdateProviderRequest extends ProviderFields {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(128)
  name?: string;
}

export class TestProviderRequest extends ProviderConnection {
  @ApiPropertyOptional({ description: 'A system provider id or name, instead of `template`.' })
  @IsOptional()
  @IsString()
  @MaxLength(128)
  systemProvider?: string;

  @ApiPropertyOptional({ example: 'chat', default: 'chat' })
  @IsOptional()
  @IsString()
  capability?: string;

  @ApiPropertyOptional({
    description:
      'Alias of `inputs.prompt`, which wins when both are given: the prompt sent in the test; default "Say hello."',
  })
  @IsOptional()
  @IsString()
  @MaxLength(10_000)
  prompt?: string;
}
