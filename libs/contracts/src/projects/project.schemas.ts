import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { DEPLOYMENT_STATUSES, GUARDRAIL_MODES, SCANNER_DIRECTIONS, SCANNER_KINDS } from './scanner.enums';

/**
 * OpenAPI response schemas of the project and package routes: the shapes of `projects.views.ts`
 * as the document describes them (the routes answer the views; these classes only document them).
 */

export class GuardrailEntrySchema {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty({ example: 'latest', description: "The pinned version's name, or `latest`." }) version!: string;
  @ApiProperty() enabled!: boolean;
  @ApiProperty() blocking!: boolean;
  @ApiProperty() force!: boolean;
  @ApiProperty({ enum: GUARDRAIL_MODES }) mode!: string;
  @ApiProperty() flagMessage!: string;
  @ApiProperty({ enum: SCANNER_DIRECTIONS }) direction!: string;
}

export class ProviderEntrySchema {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() type!: string;
  @ApiProperty({ type: [String] }) capabilities!: string[];
  @ApiProperty() default!: boolean;
  @ApiProperty() enabled!: boolean;
}

export class ProjectConfigSchema {
  @ApiProperty({ format: 'uuid', description: "The config revision's id." }) id!: string;
  @ApiProperty() revision!: number;
  @ApiProperty({ format: 'date-time' }) validFrom!: string;
  @ApiProperty({ type: [GuardrailEntrySchema] }) packages!: GuardrailEntrySchema[];
  @ApiProperty({ type: [GuardrailEntrySchema] }) scanners!: GuardrailEntrySchema[];
  @ApiProperty({ type: [ProviderEntrySchema] }) providers!: ProviderEntrySchema[];
}

export class ProjectSchema {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() friendlyId!: string;
  @ApiProperty() name!: string;
  @ApiProperty() type!: string;
  @ApiProperty() botType!: string;
  @ApiProperty() chatbotId!: string;
  @ApiProperty() adminRoleId!: string;
  @ApiProperty() memberRoleId!: string;
  @ApiProperty() createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty() adminCount!: number;
  @ApiProperty() agentSessionCount!: number;
  @ApiProperty() memberCount!: number;
  @ApiProperty() providerCount!: number;
  @ApiProperty() scannerCount!: number;
  @ApiProperty() tokenCount!: number;
  @ApiProperty({ enum: DEPLOYMENT_STATUSES }) deploymentStatus!: string;
  @ApiProperty({ type: ProjectConfigSchema }) config!: ProjectConfigSchema;
}

export class ProjectResponseSchema {
  @ApiProperty({ type: ProjectSchema }) project!: ProjectSchema;
}

export class PackageDetectorSchema {
  @ApiProperty() id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() description!: string;
}

export class PackageSchema {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() name!: string;
  @ApiProperty() type!: string;
  @ApiProperty({ enum: SCANNER_KINDS }) kind!: string;
  @ApiProperty() description!: string;
  @ApiProperty({ type: 'object', additionalProperties: true }) config!: Record<string, unknown>;
  @ApiProperty({ enum: SCANNER_DIRECTIONS }) direction!: string;
  @ApiProperty({ type: [String] }) tags!: string[];
  @ApiProperty() published!: boolean;
  @ApiProperty() builtIn!: boolean;
  @ApiProperty() createdBy!: string;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: "The latest version's meta (id, name, direction, published, f1Score, ...).",
  })
  versionMeta!: Record<string, unknown>;
  @ApiProperty({ type: [PackageDetectorSchema] }) detectors!: PackageDetectorSchema[];
}

export class PackagePageSchema {
  @ApiProperty({ type: [PackageSchema] }) packages!: PackageSchema[];
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Cursor of the next page.' }) next!: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, description: 'Cursor of the previous page.' }) prev!:
    string | null;
}
