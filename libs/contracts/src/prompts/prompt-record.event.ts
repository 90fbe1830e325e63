import { Type } from 'class-transformer';
import {
  ValidateBy,
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
import { isPlainRecord } from '../messaging/fast-check';

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

/**
 * What a prompt record keeps of the scanner version that ran: the fields the proxy knows at scan
 * time. The rest of the spec's meta (dates, author, description, scores) is the projects service's
 * and is shown empty (scannerVersionMetaView); records stored before kept it empty too.
 */
export type ScannerVersionRef = Pick<ScannerVersionMeta, 'id' | 'name' | 'published' | 'direction'>;

/** A recorded scanner result as the API shows it: its version meta whole (scannerVersionMetaView). */
export function recordedScannerResultView<
  R extends { scannerVersionMeta?: ScannerVersionRef | ScannerVersionMeta | null },
>(r: R): Omit<R, 'scannerVersionMeta'> & { scannerVersionMeta: ScannerVersionMeta | null } {
  return { ...r, scannerVersionMeta: scannerVersionMetaView(r.scannerVersionMeta) };
}

/** The spec's Scanner version meta of a recorded result: the recorded fields, the rest empty. */
export function scannerVersionMetaView(
  meta: ScannerVersionRef | Partial<ScannerVersionMeta> | null | undefined,
): ScannerVersionMeta | null {
  if (!meta) return null;
  return {
    description: '',
    createdAt: '',
    createdBy: '',
    f1Score: null,
    latestDatasetResult: null,
    ...meta,
  } as ScannerVersionMeta;
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

  /** The version that ran (ScannerVersionRef; records stored before this carry the spec's whole meta). */
  @IsOptional()
  @IsObject()
  scannerVersionMeta?: ScannerVersionRef | ScannerVersionMeta | null;
}

/**
 * A scanner result as a record carries it on the bus and the prompt store keeps it in a row: its
 * fields in one array, in this order, not an object. A guarded call records a result per scanner
 * and direction (six for three scanners both ways); as objects their key names were half the
 * record's bytes, which JetStream stored and delivered and the store parsed, and most of the row,
 * which Postgres parsed into jsonb and wrote. The order is fixed: a field added later goes at the
 * end, and a shorter array is read without it.
 */
export type ScannerResultTuple = [
  scannerId: string,
  outcome: 'passed' | 'failed',
  scanDirection: 'request' | 'response',
  data: { type: string; matches: unknown[] },
  message: string,
  customConfig: boolean,
  startedDate: string,
  completedDate: string,
  versionId: string | null,
  versionName: string,
  versionPublished: boolean,
  versionDirection: ScannerVersionRef['direction'] | null,
];

/** The fields of a ScannerResultTuple: a longer array carries fields of a later release after them. */
export const SCANNER_RESULT_TUPLE_LENGTH = 12;

/** A scanner result in a record: a tuple (what the proxy publishes) or an object (records published before). */
export type RecordedScannerResult = ScannerResultRecord | ScannerResultTuple;

export function scannerResultTuple(r: ScannerResultRecord): ScannerResultTuple {
  const v = r.scannerVersionMeta;
  return [
    r.scannerId,
    r.outcome,
    r.scanDirection,
    r.data,
    r.message,
    r.customConfig,
    r.startedDate,
    r.completedDate,
    v ? v.id : null,
    v ? v.name : '',
    v ? v.published : false,
    v ? (v.direction ?? null) : null,
  ];
}

/**
 * A tuple as a result object; a stored array too short or of other types reads as empty fields and
 * never fails (rows are shown as they are; the store's check keeps bad ones off the bus).
 */
export function scannerResultFromTuple(t: readonly unknown[]): Record<string, unknown> {
  const [scannerId, outcome, scanDirection, data, message, customConfig, startedDate, completedDate] = t;
  const [versionId, name, published, direction] = t.slice(8);
  return {
    scannerId,
    outcome,
    scanDirection,
    data: isPlainRecord(data) ? data : undefined,
    message,
    customConfig,
    startedDate,
    completedDate,
    scannerVersionMeta: typeof versionId === 'string' ? { id: versionId, name, published, direction } : null,
  };
}

/** A recorded result as an object, whichever form it came in (the form of a record checked by checkPromptRecord). */
export function scannerResultObject(r: RecordedScannerResult): ScannerResultRecord {
  return Array.isArray(r) ? (scannerResultFromTuple(r) as unknown as ScannerResultRecord) : r;
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

  /** Tuples from the proxy; objects in records published before it sent tuples. */
  @IsArray()
  @ValidateBy({
    name: 'isRecordedScannerResult',
    validator: {
      validate: (v: unknown) => Array.isArray(v) && v.every((s) => checkScannerResult(s)),
      defaultMessage: () => 'each scanner result must be a scanner result tuple or object',
    },
  })
  scannerResults!: RecordedScannerResult[];
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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

const isString = (v: unknown): v is string => typeof v === 'string';
const isDate = (v: unknown): boolean => isString(v) && ISO8601.test(v) && !Number.isNaN(Date.parse(v));
const isAbsent = (v: unknown): boolean => v === null || v === undefined;

/**
 * The same rules as the class's decorators, in one pass of plain type checks: the prompt store's
 * check of records from its own publisher (the message proxy), where class-transformer and
 * class-validator cost more than storing the record. Answers the first field that breaks a rule,
 * or undefined for a record the store can write.
 */
export function checkPromptRecord(raw: unknown): string | undefined {
  if (!isPlainRecord(raw)) return 'record';
  const e = raw;
  if (!isString(e.id) || !UUID.test(e.id)) return 'id';
  for (const field of ['tenant', 'userId', 'provider', 'input'] as const) if (!isString(e[field])) return field;
  for (const field of ['projectId', 'providerId', 'parentId'] as const)
    if (!isAbsent(e[field]) && !isString(e[field])) return field;
  if (!Array.isArray(e.memory) || !e.memory.every(isString)) return 'memory';
  if (!isPlainRecord(e.extraInputs)) return 'extraInputs';
  if (!isPlainRecord(e.externalMetadata)) return 'externalMetadata';
  if (typeof e.fromTemplate !== 'boolean') return 'fromTemplate';
  if (!isAbsent(e.templateId) && !(isString(e.templateId) && UUID.test(e.templateId))) return 'templateId';
  if (typeof e.preserve !== 'boolean') return 'preserve';
  if (e.type !== 'prompt' && e.type !== 'scan') return 'type';
  if (!['vendor', 'openai', 'prompts', 'scans'].includes(e.source as string)) return 'source';
  if (!isDate(e.receivedAt)) return 'receivedAt';
  const r = e.result;
  if (!isPlainRecord(r)) return 'result';
  if (!(PROMPT_OUTCOMES as readonly unknown[]).includes(r.outcome)) return 'result.outcome';
  if (!isAbsent(r.response) && !isString(r.response)) return 'result.response';
  if (!Array.isArray(r.files)) return 'result.files';
  const p = r.providerResult;
  if (!isAbsent(p)) {
    if (
      !isPlainRecord(p) ||
      !isString(p.data) ||
      !Number.isInteger(p.statusCode) ||
      !isDate(p.sentDate) ||
      !isDate(p.receivedDate)
    )
      return 'result.providerResult';
  }
  if (!Array.isArray(r.scannerResults) || !r.scannerResults.every(checkScannerResult)) return 'result.scannerResults';
  return undefined;
}

const isOutcome = (v: unknown): boolean => v === 'passed' || v === 'failed';
const isScanDirection = (v: unknown): boolean => v === 'request' || v === 'response';
const isVersionDirection = (v: unknown): boolean => v === 'request' || v === 'response' || v === 'both';

/** Whether a recorded scanner result is one the store can write: a whole tuple, or an object with the spec's fields. */
function checkScannerResult(s: unknown): boolean {
  if (Array.isArray(s))
    return (
      s.length >= SCANNER_RESULT_TUPLE_LENGTH &&
      isString(s[0]) &&
      isOutcome(s[1]) &&
      isScanDirection(s[2]) &&
      isPlainRecord(s[3]) &&
      isString(s[4]) &&
      typeof s[5] === 'boolean' &&
      isDate(s[6]) &&
      isDate(s[7]) &&
      (s[8] === null || isString(s[8])) &&
      isString(s[9]) &&
      typeof s[10] === 'boolean' &&
      (s[11] === null || isVersionDirection(s[11]))
    );
  return (
    isPlainRecord(s) &&
    isString(s.scannerId) &&
    isOutcome(s.outcome) &&
    isScanDirection(s.scanDirection) &&
    isPlainRecord(s.data) &&
    isString(s.message) &&
    typeof s.customConfig === 'boolean' &&
    isDate(s.startedDate) &&
    isDate(s.completedDate) &&
    (isAbsent(s.scannerVersionMeta) || isPlainRecord(s.scannerVersionMeta))
  );
}
