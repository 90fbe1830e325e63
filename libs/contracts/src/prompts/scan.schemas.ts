import { ApiProperty } from '@nestjs/swagger';

/** OpenAPI response schemas of `GET /backend/v1/scans/{id}` (the route answers a `StoredScanView`). */

export class ScannerResultSchema {
  @ApiProperty() scannerId!: string;
  @ApiProperty({ enum: ['passed', 'failed'], description: '`failed`: the scanner triggered.' }) outcome!: string;
  @ApiProperty({ enum: ['request', 'response'] }) scanDirection!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, description: '{type, matches}' }) data!: Record<
    string,
    unknown
  >;
  @ApiProperty() message!: string;
  @ApiProperty() customConfig!: boolean;
  @ApiProperty({ format: 'date-time' }) startedDate!: string;
  @ApiProperty({ format: 'date-time' }) completedDate!: string;
  @ApiProperty({ type: 'object', additionalProperties: true, nullable: true }) scannerVersionMeta!: Record<
    string,
    unknown
  > | null;
}

export class ScanResultSchema {
  @ApiProperty({ enum: ['cleared', 'flagged', 'redacted', 'blocked'] }) outcome!: string;
  @ApiProperty({ type: [ScannerResultSchema] }) scannerResults!: ScannerResultSchema[];
}

export class ScanSchema {
  @ApiProperty({ format: 'uuid' }) id!: string;
  @ApiProperty() input!: string;
  @ApiProperty({
    description: 'The input with matches masked when the outcome is `redacted`; the input itself otherwise.',
  })
  redactedInput!: string;
  @ApiProperty({ format: 'uuid', nullable: true, type: String }) projectId!: string | null;
  @ApiProperty() userId!: string;
  @ApiProperty({ format: 'date-time' }) receivedAt!: string;
  @ApiProperty() preserve!: boolean;
  @ApiProperty({ type: 'object', additionalProperties: true }) externalMetadata!: Record<string, unknown>;
  @ApiProperty({ type: 'object', additionalProperties: { type: 'string' } }) extraInputs!: Record<string, string>;
  @ApiProperty({ enum: ['scan'] }) type!: string;
  @ApiProperty({ type: ScanResultSchema }) result!: ScanResultSchema;
}

export class ScanResponseSchema {
  @ApiProperty({ type: ScanSchema }) scan!: ScanSchema;
}
