import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import {
  DEFAULT_PAGE_SIZE,
  type DatasetRunView,
  DomainError,
  type EvaluateDatasetCommand,
  type ListEvaluationsCommand,
  type Page,
  type StageDatasetCommand,
} from '@bastion/contracts';
import {
  ScanDeadline,
  ScanLimitError,
  ScannerConfigError,
  type ScannerConfig,
  sharedScannerCache,
} from '@bastion/guardrails';
import { decodeCursor, paginate } from '@bastion/persistence';
import { PROJECTS_CONFIG, type ProjectsConfig } from '../config';
import { assembleDataset } from '../domain/dataset-assembly';
import { DatasetError, parseLabelledCsv } from '../domain/labelled-csv';
import { confusionMatrix, metricsOf, type Prediction } from '../domain/metrics';
import type { ScannerVersion } from '../generated/prisma/client';
import { datasetRunView } from '../scanners/scanner.mapper';
import { ScannerService } from '../scanners/scanner.service';
import { DatasetRepository } from './dataset.repository';

/**
 * Dataset scores: a version runs over a labelled CSV (label true/1 = should block) and the run keeps
 * the confusion matrix and the metrics from it. The run belongs to the caller's tenant, also for a
 * built-in scanner.
 */
@Injectable()
export class DatasetService {
  constructor(
    private readonly datasets: DatasetRepository,
    private readonly scanners: ScannerService,
    @Inject(PROJECTS_CONFIG) private readonly config: ProjectsConfig,
  ) {}

  async stage({ principal, uploadId, part, data }: StageDatasetCommand): Promise<{ uploadId: string; part: number }> {
    const staleBefore = new Date(Date.now() - this.config.DATASET_UPLOAD_TTL_MS);
    await this.datasets.stagePart(principal.tenant, uploadId, part, Buffer.from(data, 'base64'), staleBefore);
    return { uploadId, part };
  }

  async evaluate(cmd: EvaluateDatasetCommand): Promise<{ datasetRun: DatasetRunView }> {
    const { principal, scannerId, versionRef } = cmd;
    try {
      const { version } = await this.scanners.visibleVersion(principal, scannerId, versionRef);
      const csv = await this.csvOf(cmd);
      const started = performance.now();
      const rows = parseRows(csv);
      const scan = compile(version);
      const predictions: Prediction[] = rows.map((row) => ({ expected: row.label, predicted: scan(row.prompt) }));
      const matrix = confusionMatrix(predictions);
      const run = await this.datasets.create({
        id: randomUUID(),
        tenant: principal.tenant,
        scannerId: version.scannerId,
        versionId: version.id,
        rows: rows.length,
        ...matrix,
        ...metricsOf(matrix),
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        createdBy: principal.sub,
        createdAt: new Date(),
      });
      return { datasetRun: datasetRunView(run, version.name) };
    } finally {
      if (cmd.upload) await this.datasets.dropUpload(principal.tenant, cmd.upload.id);
    }
  }

  async listEvaluations({
    principal,
    scannerId,
    versionRef,
    limit,
    cursor,
  }: ListEvaluationsCommand): Promise<Page<'datasetRuns', DatasetRunView>> {
    const { version } = await this.scanners.visibleVersion(principal, scannerId, versionRef);
    const size = limit ?? DEFAULT_PAGE_SIZE;
    const c = cursor ? decodeCursor(cursor) : undefined;
    const page = paginate(await this.datasets.page(principal.tenant, version.id, c, size), size, c);
    return { datasetRuns: page.items.map((r) => datasetRunView(r, version.name)), next: page.next, prev: page.prev };
  }

  /** The CSV text: inline when it fit one message, else reassembled from its staged parts. */
  private async csvOf({ principal, data, upload }: EvaluateDatasetCommand): Promise<string> {
    if ((data === undefined) === (upload === undefined))
      throw DomainError.invalid('send the dataset either inline or as a staged upload');
    if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
    const parts = await this.datasets.stagedParts(principal.tenant, upload!.id);
    return assembleDataset(parts, upload!).toString('utf8');
  }
}

/** A malformed CSV is a 422 whose detail names the line. */
function parseRows(csv: string) {
  try {
    return parseLabelledCsv(csv);
  } catch (err) {
    if (!(err instanceof DatasetError)) throw err;
    const loc = err.line === null ? ['body'] : ['body', 'line', String(err.line)];
    throw DomainError.invalid(err.message, [{ loc, msg: err.message, type: 'value_error' }]);
  }
}

/** Total scanning time one dataset evaluation may take, so one tenant's run cannot hold the service. */
export const DATASET_SCAN_BUDGET_MS = 30_000;

/**
 * The version as a predicate "would it trigger", compiled once per process (the shared cache the
 * proxy uses too) and scanning the same canonical text the proxy scans. A prompt over a per-scan
 * cap counts as triggered: a scan fails closed, so the proxy would refuse that prompt too. A run
 * past the evaluation's total budget stops with an error rather than a partial score.
 */
function compile(
  version: ScannerVersion,
  deadline = new ScanDeadline(DATASET_SCAN_BUDGET_MS),
): (text: string) => boolean {
  const config = version.config as unknown as ScannerConfig;
  if (config.type === 'custom') {
    throw DomainError.failedPrecondition(
      'custom scanners are judged by a model, which this service does not call: they cannot be evaluated here',
    );
  }
  const scanner = sharedScannerCache.get({ id: version.scannerId, version: version.id, config });
  if (scanner instanceof ScannerConfigError) {
    throw DomainError.failedPrecondition(
      `version ${version.name} was saved under older limits and no longer compiles (${scanner.message}): save a new version`,
    );
  }
  if (scanner instanceof Error) throw scanner;
  return (text) => {
    try {
      return scanner.scan(text, { deadline }).outcome === 'failed';
    } catch (err) {
      if (err instanceof ScanLimitError && err.limit === 'budget') {
        throw DomainError.failedPrecondition(
          `the evaluation took longer than its ${DATASET_SCAN_BUDGET_MS} ms scanning budget and stopped: evaluate a smaller dataset`,
        );
      }
      if (err instanceof ScanLimitError) return true;
      throw err;
    }
  };
}
