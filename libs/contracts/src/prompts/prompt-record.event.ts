import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsISO8601,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  ValidateNested,
} from 'class-validator';

export const PROMPT_OUTCOMES = ['cleared', 'flagged', 'redacted', 'blocked'] as const;
export type PromptOutcome = (typeof PROMPT_OUTCOMES)[number];

/** The spec's Scanner version meta (also a scanner's `versionMeta`). */
export interface ScannerVersionMeta {
  createdAt: string;
  createdBy: string;
  description: string;
  direction: 'request' | 'response' | 'both';
  id: string;
  name: string;
  /** The latest dataset run's F1; null before the version was evaluated. */
  f1Score: number | null;
  latestDatasetResult: { datasetRunId: string; f1Score: number } | null;
  published: boolean;
}

/** The spec's Scanner result: one scanner's verdict on one direction of one prompt. */
export class ScannerResultRecord {
  @IsString()
  scannerId!: string;

  @IsIn(['passed', 'failed'])
  outcome!: 'passed' | 'failed';

  @IsIn(['request', 'response'])
  scanDirection!: 'request' | 'response';

  @IsObject()
  data!: { type: string; matches: unknown[] };

  @IsString()
  message!: string;

  @IsBoolean()
  customConfig!: boolean;

  @IsISO8601()
  startedDate!: string;

  @IsISO8601()
  completedDate!: string;

  @IsOptional()
  @IsObject()
  scannerVersionMeta?: ScannerVersionMeta | null;
}

export class ProviderResultRecord {
  @IsString()
  data!: string;

  @IsInt()
  statusCode!: number;

  @IsISO8601()
  sentDate!: string;

  @IsISO8601()
  receivedDate!: string;
}

export class PromptResultRecord {
  @IsIn(PROMPT_OUTCOMES)
  outcome!: PromptOutcome;

  /** The model's answer as the caller received it (redacted when redacted); null when blocked. */
  @IsOptional()
  @IsString()
  response!: string | null;

  @IsArray()
  files!: { contentType: string; data: string; id: string; isBase64: boolean; name: string }[];

  @IsOptional()
  @ValidateNested()
  @Type(() => ProviderResultRecord)
  providerResult!: ProviderResultRecord | null;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ScannerResultRecord)
  scannerResults!: ScannerResultRecord[];
}

/**
 * `proxy.prompt.recorded.v1`: one finished prompt (message proxy, POST /prompts or POST /scans),
 * published to JetStream by the proxy and stored exactly once by the prompts service (keyed by `id`).
 */
export class PromptRecordedEvent {
  @IsUUID()
  id!: string;

  @IsString()
  tenant!: string;

  @IsOptional()
  @IsString()
  projectId!: string | null;

  @IsString()
  userId!: string;

  /** The provider's name; empty for a scan with no model call. */
  @IsString()
  provider!: string;

  @IsOptional()
  @IsString()
  providerId!: string | null;

  /** The user input as received (before redaction). */
  @IsString()
  input!: string;

  /** Earlier turns of the conversation, oldest first. */
  @IsArray()
  @IsString({ each: true })
  memory!: string[];

  @IsObject()
  extraInputs!: Record<string, string>;

  @IsObject()
  externalMetadata!: Record<string, unknown>;

  @IsBoolean()
  fromTemplate!: boolean;

  @IsOptional()
  @IsUUID()
  templateId!: string | null;

  @IsOptional()
  @IsString()
  parentId!: string | null;

  @IsBoolean()
  preserve!: boolean;

  /** `prompt` for model calls, `scan` for POST /scans. */
  @IsIn(['prompt', 'scan'])
  type!: 'prompt' | 'scan';

  /** Which entry point: the vendor route, the OpenAI route, POST /prompts or POST /scans. */
  @IsIn(['vendor', 'openai', 'prompts', 'scans'])
  source!: 'vendor' | 'openai' | 'prompts' | 'scans';

  @IsISO8601()
  receivedAt!: string;

  @ValidateNested()
  @Type(() => PromptResultRecord)
  result!: PromptResultRecord;
}
