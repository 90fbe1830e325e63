/** Request-reply subjects of the API keys, kept by the projects service (queue group `projects`). */
export const ApiKeySubjects = {
  create: 'projects.api-key.create.v1',
  list: 'projects.api-key.list.v1',
  get: 'projects.api-key.get.v1',
  delete: 'projects.api-key.delete.v1',
  /** For the gateway: a key's scope and hash, by its id, on a cache miss (a use only if the secret matches). */
  resolve: 'projects.api-key.resolve.v1',
} as const;

/**
 * A key was revoked (deleted, or its project deleted): every gateway drops it from its cache. In the
 * PROJECTS stream, and every gateway replica also hears it on plain NATS.
 */
export const ApiKeyEvents = {
  revoked: 'projects.api-key.revoked.v1',
} as const;

/** How long a gateway trusts a resolved key without hearing of it (ms): the backstop if an event is lost. */
export const API_KEY_CACHE_TTL_MS = 30_000;
