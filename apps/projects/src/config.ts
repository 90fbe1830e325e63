import { DatabaseConfig } from '@bastion/platform';
import { IsInt, Max, Min } from 'class-validator';

export class ProjectsConfig extends DatabaseConfig {
  /** Parts of a dataset upload older than this (ms) are deleted: an evaluation that never came. */
  @IsInt()
  @Min(10_000)
  @Max(7 * 24 * 3600 * 1000)
  DATASET_UPLOAD_TTL_MS = 3600 * 1000;
}

export const PROJECTS_CONFIG = Symbol('PROJECTS_CONFIG');
