/** Request-reply subjects of the projects service's scanners (queue group `projects`). */
export const ScannerSubjects = {
  create: 'projects.scanner.create.v1',
  list: 'projects.scanner.list.v1',
  get: 'projects.scanner.get.v1',
  update: 'projects.scanner.update.v1',
  delete: 'projects.scanner.delete.v1',
  listVersions: 'projects.scanner.list-versions.v1',
  getVersion: 'projects.scanner.get-version.v1',
  updateVersion: 'projects.scanner.update-version.v1',
  /** One part of a dataset CSV too large for one NATS message (see `DATASET_PART_BYTES`). */
  stageDataset: 'projects.scanner.stage-dataset.v1',
  evaluate: 'projects.scanner.evaluate.v1',
  listEvaluations: 'projects.scanner.list-evaluations.v1',
  listPackages: 'projects.scanner.list-packages.v1',
} as const;

/** Request-reply subjects of the projects service's projects. */
export const ProjectSubjects = {
  create: 'projects.project.create.v1',
  list: 'projects.project.list.v1',
  get: 'projects.project.get.v1',
  update: 'projects.project.update.v1',
  delete: 'projects.project.delete.v1',
  attachGuardrail: 'projects.project.attach-guardrail.v1',
  updateGuardrail: 'projects.project.update-guardrail.v1',
  attachProvider: 'projects.project.attach-provider.v1',
  updateProvider: 'projects.project.update-provider.v1',
  detach: 'projects.project.detach.v1',
  attachById: 'projects.project.attach-by-id.v1',
  global: 'projects.project.global.v1',
  /** For the message proxy: a project's effective config with every scanner version resolved. */
  runtime: 'projects.project.runtime.v1',
  health: 'projects.health.check.v1',
} as const;

/** Events in the JetStream stream `PROJECTS` (listed one by one: no wildcard captures a request subject). */
export const ProjectEvents = {
  projectChanged: 'projects.project.changed.v1',
  scannerChanged: 'projects.scanner.changed.v1',
} as const;

export const PROJECTS_STREAM = 'PROJECTS';
export const PROJECTS_QUEUE = 'projects';

/** The project every tenant has, made on first use: what a project-less request goes through. */
export const DEFAULT_PROJECT_NAME = 'default';

/** Largest dataset CSV an evaluation takes (bytes). */
export const DATASET_MAX_BYTES = 10 * 1024 * 1024;
/**
 * A dataset travels to the service in parts of at most this many bytes, base64-encoded (about
 * 700 KB per NATS message), so it fits NATS's default 1 MB max_payload with room to spare.
 */
export const DATASET_PART_BYTES = 512 * 1024;
export const DATASET_MAX_PARTS = Math.ceil(DATASET_MAX_BYTES / DATASET_PART_BYTES);
