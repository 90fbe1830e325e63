/** Injection token of the service's pino logger. */
export const TOKENS_LOGGER = Symbol('TOKENS_LOGGER');
