import {
  type PromptFileView,
  type PromptOutcome,
  type PromptRecordedEvent,
  type PromptResultView,
  type PromptTemplateView,
  type PromptView,
  type StoredScanView,
  type ScannerResultView,
  type ScannerVersionRef,
  type RecordedScannerResult,
  SCANNER_RESULT_TUPLE_LENGTH,
  type ScannerResultRecord,
  recordedScannerResultView,
  scannerResultFromTuple,
  scannerResultObject,
  scannerResultTuple,
} from '@bastion/contracts';
import { Prisma, type Prompt, type PromptTemplate } from '../generated/prisma/client';
import type { ScannerResultsForm } from '../config';

type Json = Prisma.InputJsonValue;
type Loose = Record<string, unknown>;

/**
 * Postgres refuses U+0000 in text and in jsonb, and an unpaired surrogate (half of an emoji cut
 * off) in jsonb. A record carrying one (a prompt can hold any character) would fail its insert on
 * every redelivery, so it is stored with U+FFFD in their place. This rewrites the rows' JSON text
 * as it goes to Postgres (JSON.stringify writes U+0000 as `\u0000` and an unpaired surrogate as
 * `\udXXX`, a pair as itself), not the rows themselves: one pass over a string the insert builds
 * anyway, and none for the records without either. An escape preceded by an escaped backslash is
 * text ("\u0000" as typed), kept.
 */
export function jsonForPostgres(json: string): string {
  if (!json.includes('u0000') && !LONE_SURROGATE_ESCAPE.test(json)) return json;
  return json.replace(UNSTORABLE_ESCAPE, (m) => ((m.length - 5) % 2 === 1 ? `${m.slice(0, -6)}\\ufffd` : m));
}

const LONE_SURROGATE_ESCAPE = /\\ud[89a-f]/;
const UNSTORABLE_ESCAPE = /\\+u(?:0000|d[89a-f][0-9a-f]{2})/g;

/** The row a prompt record is stored as: the spec's fields of the record, and nothing it did not say. */
export function promptRow(e: PromptRecordedEvent, form: ScannerResultsForm = 'arrays'): Prisma.PromptCreateManyInput {
  const r = e.result;
  return {
    id: e.id,
    tenant: e.tenant,
    projectId: e.projectId ?? null,
    userId: e.userId,
    provider: e.provider,
    providerId: e.providerId ?? null,
    input: e.input,
    memory: e.memory,
    extraInputs: e.extraInputs as Json,
    externalMetadata: e.externalMetadata as Json,
    fromTemplate: e.fromTemplate,
    templateId: e.templateId ?? null,
    parentId: e.parentId ?? null,
    preserve: e.preserve,
    type: e.type,
    source: e.source,
    receivedAt: new Date(e.receivedAt),
    outcome: r.outcome,
    response: r.response ?? null,
    files: (r.files ?? []).map((f) => fileView(f as unknown as Loose)) as unknown as Json,
    providerResult: r.providerResult
      ? (providerResultView(r.providerResult as unknown as Loose) as Json)
      : Prisma.DbNull,
    scannerResults: (r.scannerResults ?? []).map((s) =>
      form === 'arrays' ? storedResult(s) : scannerResultRow(scannerResultObject(s) as unknown as Loose),
    ) as unknown as Json,
  };
}

/** The spec's Prompt, from a stored row. */
export function promptView(p: Prompt): PromptView {
  const result: PromptResultView = {
    outcome: p.outcome as PromptOutcome,
    response: p.response,
    files: asArray(p.files).map(fileView),
    providerResult:
      p.providerResult && typeof p.providerResult === 'object' ? providerResultView(p.providerResult as Loose) : null,
    scannerResults: storedResults(p.scannerResults),
  };
  return {
    id: p.id,
    parentId: p.parentId,
    projectId: p.projectId,
    userId: p.userId,
    provider: p.provider,
    input: p.input,
    memory: p.memory,
    extraInputs: p.extraInputs as Record<string, string>,
    externalMetadata: p.externalMetadata as Record<string, unknown>,
    fromTemplate: p.fromTemplate,
    preserve: p.preserve,
    receivedAt: p.receivedAt.toISOString(),
    type: p.type,
    result,
  };
}

/** A stored scan as `GET /scans/{id}` shows it; `redactedInput` is the masked text of a redacted scan. */
export function scanView(p: Prompt): StoredScanView {
  const redacted = p.outcome === 'redacted' && p.response !== null ? p.response : p.input;
  return {
    id: p.id,
    input: p.input,
    redactedInput: redacted,
    projectId: p.projectId,
    userId: p.userId,
    receivedAt: p.receivedAt.toISOString(),
    preserve: p.preserve,
    externalMetadata: p.externalMetadata as Record<string, unknown>,
    extraInputs: p.extraInputs as Record<string, string>,
    type: 'scan',
    result: { outcome: p.outcome as PromptOutcome, scannerResults: storedResults(p.scannerResults) },
  };
}

export function templateView(t: PromptTemplate): PromptTemplateView {
  return {
    id: t.id,
    name: t.name,
    projectId: t.projectId,
    promptId: t.promptId,
    userId: t.userId,
    createdAt: t.createdAt.toISOString(),
  };
}

function asArray(value: unknown): Loose[] {
  return Array.isArray(value) ? (value.filter((v) => v !== null && typeof v === 'object') as Loose[]) : [];
}

function fileView(f: Loose): PromptFileView {
  return {
    contentType: String(f.contentType ?? ''),
    data: String(f.data ?? ''),
    id: String(f.id ?? ''),
    isBase64: f.isBase64 === true,
    name: String(f.name ?? ''),
  };
}

function providerResultView(r: Loose): NonNullable<PromptResultView['providerResult']> {
  return {
    data: String(r.data ?? ''),
    receivedDate: String(r.receivedDate ?? ''),
    sentDate: String(r.sentDate ?? ''),
    statusCode: Number(r.statusCode),
  };
}

/**
 * A scanner result as a row keeps it (PROMPTS_SCANNER_RESULTS_FORM `arrays`): the record's own
 * tuple (ScannerResultTuple), passed through as checked; a result published as an object is turned
 * into one. Rows may hold either form; both are read.
 */
function storedResult(s: RecordedScannerResult): unknown[] {
  // Only the fields this release knows: a later one's extra fields are not stored as if they were.
  if (Array.isArray(s)) return s.length > SCANNER_RESULT_TUPLE_LENGTH ? s.slice(0, SCANNER_RESULT_TUPLE_LENGTH) : s;
  return scannerResultTuple(scannerResultRow(s as unknown as Loose) as ScannerResultRecord);
}

/** The spec's scanner results of a row's `scanner_results`, in either form a row may hold. */
function storedResults(value: unknown): ScannerResultView[] {
  if (!Array.isArray(value)) return [];
  const views: ScannerResultView[] = [];
  for (const s of value as unknown[]) {
    if (Array.isArray(s)) views.push(recordedScannerResultView(scannerResultRow(scannerResultFromTuple(s))));
    else if (s !== null && typeof s === 'object') views.push(recordedScannerResultView(scannerResultRow(s as Loose)));
  }
  return views;
}

/**
 * A scanner result as stored: the spec's fields, its version as recorded (ScannerVersionRef; the
 * rest of the spec's meta is filled in, empty, when it is shown).
 */
function scannerResultRow(s: Loose): Omit<ScannerResultView, 'scannerVersionMeta'> & {
  scannerVersionMeta: ScannerVersionRef | null;
} {
  const meta = s.scannerVersionMeta as Partial<ScannerVersionRef> | null | undefined;
  return {
    scannerId: String(s.scannerId ?? ''),
    outcome: s.outcome as ScannerResultView['outcome'],
    scanDirection: s.scanDirection as ScannerResultView['scanDirection'],
    data: (s.data ?? { type: '', matches: [] }) as ScannerResultView['data'],
    message: String(s.message ?? ''),
    customConfig: s.customConfig === true,
    startedDate: String(s.startedDate ?? ''),
    completedDate: String(s.completedDate ?? ''),
    scannerVersionMeta: meta
      ? {
          id: String(meta.id ?? ''),
          name: String(meta.name ?? ''),
          published: meta.published === true,
          direction: meta.direction as ScannerVersionRef['direction'],
        }
      : null,
  };
}
