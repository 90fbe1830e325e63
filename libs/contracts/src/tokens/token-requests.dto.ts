import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { DNS_LABEL, DNS_LABEL_MESSAGE } from '../validation/dns-label';
import { EnumNameOrNumber } from '../validation/enum-name';
import { IsStringMap } from '../validation/string-map';
import {
  GET_RESPONSE_FORMAT_NUMBERS,
  GET_RESPONSE_FORMATS,
  type GetResponseFormat,
  TOKEN_STATE_NUMBERS,
  TOKEN_STATES,
  TOKEN_TYPE_NUMBERS,
  TOKEN_TYPES,
  type TokenState,
  type TokenType,
} from './token.enums';

/** Metadata fields shared by the create and replace forms (`ObjectCreateMetaType`, `ObjectReplaceMetaType`). */
export class ObjectMetaInput {
  @ApiProperty({ example: 'edge-1', description: 'DNS label; unique per tenant and namespace.' })
  @IsString()
  @Matches(DNS_LABEL, { message: `name ${DNS_LABEL_MESSAGE}` })
  name!: string;

  @ApiPropertyOptional({ example: 'system', description: 'Ignored when the path names the namespace.' })
  @IsOptional()
  @IsString()
  namespace?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' }, example: { env: 'prod' } })
  @IsOptional()
  @IsStringMap()
  labels?: Record<string, string>;

  @ApiPropertyOptional({ type: 'object', additionalProperties: { type: 'string' } })
  @IsOptional()
  @IsStringMap()
  annotations?: Record<string, string>;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  description?: string;

  @ApiPropertyOptional({ description: 'A disabled token admits no site.' })
  @IsOptional()
  @IsBoolean()
  disable?: boolean;
}

/** The create spec: documented as empty; these optional fields are the ones real clients send. */
export class TokenCreateSpec {
  @ApiPropertyOptional({ enum: TOKEN_TYPES, description: 'NORMAL (0, default) or JWT (1); name or number.' })
  @IsOptional()
  @EnumNameOrNumber(TOKEN_TYPE_NUMBERS)
  @IsIn(TOKEN_TYPES, { message: `type must be one of ${TOKEN_TYPES.join(', ')}` })
  type?: TokenType;

  @ApiPropertyOptional({ description: 'Binds a JWT token to one site.' })
  @IsOptional()
  @IsString()
  @MaxLength(256)
  site_name?: string;

  @ApiPropertyOptional({
    format: 'date-time',
    description: 'Extension: past this instant the token moves to EXPIRED by itself and admits no site.',
  })
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expiration_timestamp must be an RFC 3339 date-time' })
  expiration_timestamp?: string;

  @ApiPropertyOptional({
    minimum: 1,
    description: 'Extension: how many sites the token may admit before it moves to EXPIRED.',
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  max_registrations?: number;
}

export class CreateTokenRequest {
  @ApiProperty({ type: ObjectMetaInput })
  @IsObject()
  @ValidateNested()
  @Type(() => ObjectMetaInput)
  metadata!: ObjectMetaInput;

  @ApiPropertyOptional({ type: TokenCreateSpec })
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => TokenCreateSpec)
  spec?: TokenCreateSpec;
}

/** Replace changes metadata only; its spec is an empty object. */
export class ReplaceTokenRequest {
  @ApiProperty({ type: ObjectMetaInput })
  @IsObject()
  @ValidateNested()
  @Type(() => ObjectMetaInput)
  metadata!: ObjectMetaInput;

  @ApiPropertyOptional({ type: 'object', properties: {} })
  @IsOptional()
  @IsObject()
  spec?: Record<string, never>;
}

export class DeleteTokenRequest {
  @ApiPropertyOptional({ description: 'Fail when other objects (site registrations) refer to the token.' })
  @IsOptional()
  @IsBoolean()
  fail_if_referred?: boolean;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  namespace?: string;
}

export class TokenStateRequest {
  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  name?: string;

  @ApiPropertyOptional()
  @IsOptional()
  @IsString()
  namespace?: string;

  @ApiProperty({
    enum: TOKEN_STATES,
    description: 'UNKNOWN (0), VALID (1) or EXPIRED (3); name or number. Default UNKNOWN.',
  })
  @IsOptional()
  @EnumNameOrNumber(TOKEN_STATE_NUMBERS)
  @IsIn(TOKEN_STATES, { message: `state must be one of ${TOKEN_STATES.join(', ')}` })
  state?: TokenState;
}

export class GetTokenQuery {
  @ApiPropertyOptional({ enum: GET_RESPONSE_FORMATS, description: 'Name or number; default GET_RSP_FORMAT_DEFAULT.' })
  @IsOptional()
  @EnumNameOrNumber(GET_RESPONSE_FORMAT_NUMBERS)
  @IsIn(GET_RESPONSE_FORMATS, { message: `response_format must be one of ${GET_RESPONSE_FORMATS.join(', ')}` })
  response_format?: GetResponseFormat;
}

export class ListTokensQuery {
  @ApiPropertyOptional({ example: 'env in (staging, testing), tier', description: 'Label selector; comma means AND.' })
  @IsOptional()
  @IsString()
  @MaxLength(4096)
  label_filter?: string;

  @ApiPropertyOptional({
    type: [String],
    description: 'Present (even bare, `?report_fields`) to fill metadata, system_metadata and get_spec.',
  })
  @IsOptional()
  report_fields?: string | string[];

  @ApiPropertyOptional({ type: [String], description: 'Present to fill status_set.' })
  @IsOptional()
  report_status_fields?: string | string[];
}
