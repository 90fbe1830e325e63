/** Request-reply subjects of the providers service (queue group `providers`). */
export const ProviderSubjects = {
  listSystem: 'providers.system.list.v1',
  getSystem: 'providers.system.get.v1',
  create: 'providers.provider.create.v1',
  list: 'providers.provider.list.v1',
  get: 'providers.provider.get.v1',
  update: 'providers.provider.update.v1',
  delete: 'providers.provider.delete.v1',
  test: 'providers.provider.test.v1',
  /** For the message proxy: the provider with its secrets, by id or name. */
  runtime: 'providers.provider.runtime.v1',
  health: 'providers.health.check.v1',
} as const;

export const ProviderEvents = {
  changed: 'providers.provider.changed.v1',
} as const;

export const PROVIDERS_STREAM = 'PROVIDERS';
export const PROVIDERS_QUEUE = 'providers';
