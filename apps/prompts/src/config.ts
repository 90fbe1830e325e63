import { DatabaseConfig } from '@bastion/platform';
import { IsInt, Max, Min } from 'class-validator';

export class PromptsConfig extends DatabaseConfig {
  /**
   * How many of a template's prompts GET /prompts/templates/{id} shows (newest first). The spec's
   * answer has no cursor, and a reply must fit in one NATS message.
   */
  @IsInt()
  @Min(1)
  @Max(1000)
  PROMPTS_TEMPLATE_PROMPTS_LIMIT = 100;
}

export const PROMPTS_CONFIG = Symbol('PROMPTS_CONFIG');
export const PROMPTS_LOGGER = Symbol('PROMPTS_LOGGER');
