import type { FieldViolation } from '../errors/domain-error';
import type { ScannerVersionMeta } from '../prompts/prompt-record.event';
import type { DeploymentStatus, GuardrailEntryMode, ScannerDirection, ScannerKind } from './scanner.enums';

/** Response shapes of the scanner and project API (`/backend/v1`), as the spec names them. */

/**
 * Versions are described by the spec's "Scanner version meta" (`ScannerVersionMeta`, shared with
 * prompt records): its dataset fields come from the caller's tenant's latest run of the version.
 */

/** A version as listed: its meta, its config, and whether it is the scanner's latest. */
export interface ScannerVersionView extends ScannerVersionMeta {
  scannerId: string;
  number: number;
  config: Record<string, unknown>;
  latest: boolean;
}

/** A scanner; config, direction and published are those of its latest version. */
export interface ScannerView {
  id: string;
  name: string;
  type: string;
  kind: ScannerKind;
  description: string;
  config: Record<string, unknown>;
  direction: ScannerDirection;
  tags: string[];
  published: boolean;
  builtIn: boolean;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  versionMeta: ScannerVersionMeta;
}

export interface PackageDetectorView {
  id: string;
  name: string;
  description: string;
}

/** A built-in package, attached under a project's `config.packages`. */
export interface PackageView extends ScannerView {
  detectors: PackageDetectorView[];
}

export interface ConfusionMatrix {
  /** Labelled block, and the scanner triggered. */
  truePositive: number;
  falsePositive: number;
  trueNegative: number;
  falseNegative: number;
}

export interface DatasetMetrics {
  accuracy: number;
  precision: number;
  recall: number;
  f1Score: number;
}

export interface DatasetRunView extends DatasetMetrics {
  id: string;
  scannerId: string;
  versionId: string;
  versionName: string;
  rows: number;
  confusionMatrix: ConfusionMatrix;
  durationMs: number;
  createdBy: string;
  createdAt: string;
}

/** The spec's "Guardrail entry": one scanner or package in a project. */
export interface GuardrailEntry {
  id: string;
  /** The pinned version's name, or `latest` (follow the scanner). */
  version: string;
  enabled: boolean;
  blocking: boolean;
  force: boolean;
  mode: GuardrailEntryMode;
  flagMessage: string;
  direction: ScannerDirection;
}

export interface ProviderEntry {
  id: string;
  name: string;
  type: string;
  capabilities: string[];
  default: boolean;
  enabled: boolean;
}

export interface ProjectConfigView {
  /** The config revision's id: changes with every config change. */
  id: string;
  revision: number;
  /** When this config took effect. */
  validFrom: string;
  packages: GuardrailEntry[];
  scanners: GuardrailEntry[];
  providers: ProviderEntry[];
  /** How the proxy treats content it cannot scan; absent: the defaults. */
  guard?: { unreadableContent?: 'refuse' | 'flag'; scanToolDescriptions?: boolean };
}

export interface ProjectView {
  id: string;
  friendlyId: string;
  name: string;
  type: string;
  botType: string;
  chatbotId: string;
  adminRoleId: string;
  memberRoleId: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  /** Role holders live in the identity provider, sessions in no service: these three are 0. */
  adminCount: number;
  agentSessionCount: number;
  memberCount: number;
  providerCount: number;
  scannerCount: number;
  /** The project's API keys (`/backend/v1/tokens` with its projectId). */
  tokenCount: number;
  deploymentStatus: DeploymentStatus;
  config: ProjectConfigView;
}

export interface ScannerCreateResponse {
  id: string;
  /**
   * Present when the saved config is valid but has a limit worth knowing, e.g. a pattern that
   * allows matches longer than the stream hold-back cap (`type: "match_length_warning"`).
   */
  warnings?: FieldViolation[];
}

export interface ScannerUpdateResponse {
  message: string;
  versionMeta: ScannerVersionMeta;
  /** As in ScannerCreateResponse, for the config of the new version. */
  warnings?: FieldViolation[];
}

export interface MessageResponse {
  message: string;
}
