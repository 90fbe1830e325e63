/** Injection token of the service's pino logger. */
export const PROJECTS_LOGGER = Symbol('PROJECTS_LOGGER');
