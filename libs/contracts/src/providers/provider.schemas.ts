import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

/** OpenAPI response schemas of the provider routes (the routes answer the views of `provider.views.ts`). */

const STRING_MAP = { type: 'object', additionalProperties: { type: 'string' } } as const;

export class ProviderIdResponseSchema {
  @ApiProperty({ format: 'uuid' }) id!: string;
}

export class ProviderSchema {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) projectId!: string | null;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) systemProviderId!: string | null;
  @ApiProperty() tag!: string;
  @ApiProperty() type!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) authTemplate!: Record<
    string,
    unknown
  > | null;
  @ApiProperty({
    type: 'object',
    properties: { global: { type: 'boolean' }, projectIds: { type: 'array', items: { type: 'string' } } },
  })
  availability!: { global: boolean; projectIds: string[] };
  @ApiProperty({ type: [String] }) capabilities!: string[];
  @ApiProperty() hasLogo!: boolean;
  @ApiProperty() redTeam!: boolean;
  @ApiProperty() siem!: boolean;
  @ApiProperty(STRING_MAP) inputs!: Record<string, string>;
  @ApiProperty({ ...STRING_MAP, description: 'Masked values.' }) secrets!: Record<string, string>;
  @ApiProperty({ nullable: true, type: Number }) maxRequestsPerSecond!: number | null;
  @ApiProperty({
    type: 'object',
    nullable: true,
    properties: { requests: { type: 'number' }, decayPerSecond: { type: 'number' } },
  })
  requestConcurrencyLimit!: { requests: number; decayPerSecond: number } | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'A request template (`type: request`) or a workflow (`type: workflow`, `stages`, `outputs`).',
  })
  template!: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

export class ProviderResponseSchema {
  @ApiProperty({ type: ProviderSchema }) provider!: ProviderSchema;
}

export class ProviderTestRequestSchema {
  @ApiProperty() method!: string;
  @ApiProperty() url!: string;
  @ApiProperty(STRING_MAP) headers!: Record<string, string>;
  @ApiProperty(STRING_MAP) queryParams!: Record<string, string>;
  @ApiProperty({ nullable: true, type: String }) body!: string | null;
}

export class ProviderTestResponseSchema {
  @ApiProperty() statusCode!: number;
  @ApiProperty(STRING_MAP) headers!: Record<string, string>;
  @ApiProperty() body!: string;
}

export class ProviderTestExchangeSchema {
  @ApiProperty({ type: ProviderTestRequestSchema }) request!: ProviderTestRequestSchema;
  @ApiPropertyOptional({ type: ProviderTestResponseSchema, nullable: true })
  response!: ProviderTestResponseSchema | null;
}

export class ProviderTestFileSchema {
  @ApiProperty() contentType!: string;
  @ApiProperty() data!: string;
  @ApiProperty() isBase64!: boolean;
  @ApiProperty() name!: string;
}

export class ProviderTestResultSchema {
  @ApiProperty({ nullable: true, type: String }) content!: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Why the test failed (secrets blanked); null when it passed.',
  })
  error!: string | null;
  @ApiProperty({ type: [ProviderTestFileSchema] }) files!: ProviderTestFileSchema[];
  @ApiProperty({
    type: 'object',
    additionalProperties: { $ref: '#/components/schemas/ProviderTestExchangeSchema' },
    description:
      'The exchange under the capability tested (`chat`); a workflow adds one per stage and attempt (`stage 1`, `stage 2 attempt 1`, ...).',
  })
  requests!: Record<string, ProviderTestExchangeSchema>;
  @ApiProperty({ nullable: true, type: Number }) statusCode!: number | null;
}
