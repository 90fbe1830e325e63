import { DatabaseConfig } from '@bastion/platform';
import { IsIn, IsInt, Max, Min } from 'class-validator';

export const SCANNER_RESULTS_FORMS = ['arrays', 'objects'] as const;
export type ScannerResultsForm = (typeof SCANNER_RESULTS_FORMS)[number];

export class PromptsConfig extends DatabaseConfig {
  /**
   * How many of a template's prompts GET /prompts/templates/{id} shows (newest first). The spec's
   * answer has no cursor, and a reply must fit in one NATS message.
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  PROMPTS_TEMPLATE_PROMPTS_LIMIT = 100;

  /**
   * How a stored prompt keeps its scanner results: `arrays` (each result one array of its fields,
   * ScannerResultTuple, the form the proxy publishes) or `objects` (the form of releases before 2026-11-27). Every
   * release since reads both; a release before reads only objects, and shows the scanner results
   * of rows stored as arrays empty. Upgrading a running deployment, keep `objects` until no replica
   * of an earlier release runs and no rollback to one is wanted, then switch.
   */
  @IsIn(SCANNER_RESULTS_FORMS)
  PROMPTS_SCANNER_RESULTS_FORM: ScannerResultsForm = 'arrays';
}

export const PROMPTS_CONFIG = Symbol('PROMPTS_CONFIG');
export const PROMPTS_LOGGER = Symbol('PROMPTS_LOGGER');
