import { DatabaseConfig } from '@bastion/platform';

export class TokensConfig extends DatabaseConfig {}

export const TOKENS_CONFIG = Symbol('TOKENS_CONFIG');
