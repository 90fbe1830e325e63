import type {
  DatasetRunView,
  PackageView,
  ScannerDirection,
  ScannerKind,
  ScannerVersionMeta,
  ScannerVersionView,
  ScannerView,
} from '@bastion/contracts';
import { packageDetectors } from '../domain/built-in-catalog';
import type { DatasetRun, Scanner, ScannerVersion } from '../generated/prisma/client';

export type LatestRuns = Map<string, { id: string; f1Score: number }>;

export function versionMeta(v: ScannerVersion, runs: LatestRuns): ScannerVersionMeta {
  const run = runs.get(v.id);
  return {
    createdAt: v.createdAt.toISOString(),
    createdBy: v.createdBy,
    description: v.description,
    direction: v.direction as ScannerDirection,
    id: v.id,
    name: v.name,
    f1Score: run ? run.f1Score : null,
    latestDatasetResult: run ? { datasetRunId: run.id, f1Score: run.f1Score } : null,
    published: v.published,
  };
}

export function versionView(v: ScannerVersion, scanner: Scanner, runs: LatestRuns): ScannerVersionView {
  return {
    ...versionMeta(v, runs),
    scannerId: v.scannerId,
    number: v.number,
    config: v.config as Record<string, unknown>,
    latest: scanner.latestVersionId === v.id,
  };
}

/** A scanner as its latest version shows it. */
export function scannerView(s: Scanner, latest: ScannerVersion, runs: LatestRuns): ScannerView {
  return {
    id: s.id,
    name: s.name,
    type: s.type,
    kind: s.kind as ScannerKind,
    description: s.description,
    config: latest.config as Record<string, unknown>,
    direction: latest.direction as ScannerDirection,
    tags: s.tags,
    published: latest.published,
    builtIn: s.builtIn,
    createdBy: s.createdBy,
    createdAt: s.createdAt.toISOString(),
    updatedAt: s.updatedAt.toISOString(),
    versionMeta: versionMeta(latest, runs),
  };
}

export function packageView(s: Scanner, latest: ScannerVersion, runs: LatestRuns): PackageView {
  return { ...scannerView(s, latest, runs), detectors: packageDetectors(s.type) };
}

export function datasetRunView(r: DatasetRun, versionName: string): DatasetRunView {
  return {
    id: r.id,
    scannerId: r.scannerId,
    versionId: r.versionId,
    versionName,
    rows: r.rows,
    accuracy: r.accuracy,
    precision: r.precision,
    recall: r.recall,
    f1Score: r.f1Score,
    confusionMatrix: {
      truePositive: r.truePositive,
      falsePositive: r.falsePositive,
      trueNegative: r.trueNegative,
      falseNegative: r.falseNegative,
    },
    durationMs: r.durationMs,
    createdBy: r.createdBy,
    createdAt: r.createdAt.toISOString(),
  };
}
