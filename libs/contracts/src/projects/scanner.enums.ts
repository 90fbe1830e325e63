export const SCANNER_DIRECTIONS = ['request', 'response', 'both'] as const;
export type ScannerDirection = (typeof SCANNER_DIRECTIONS)[number];

export const GUARDRAIL_MODES = ['block', 'redact', 'audit'] as const;
/** (`GuardrailMode` is the message proxy's name for the same union.) */
export type GuardrailEntryMode = (typeof GUARDRAIL_MODES)[number];

export const DEPLOYMENT_STATUSES = ['draft', 'live'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** A scanner is one detector set; a package is a built-in bundle attached under `config.packages`. */
export const SCANNER_KINDS = ['scanner', 'package'] as const;
export type ScannerKind = (typeof SCANNER_KINDS)[number];

/** The `version` of a guardrail entry that follows the scanner instead of pinning one version. */
export const LATEST_VERSION = 'latest';

/** Names the service gives versions: v_1, v_2, ... */
export const AUTO_VERSION_NAME = /^v_\d+$/;
