/** Request-reply subjects of the tokens service (queue group `tokens`). */
export const TokenSubjects = {
  create: 'tokens.token.create.v1',
  replace: 'tokens.token.replace.v1',
  list: 'tokens.token.list.v1',
  get: 'tokens.token.get.v1',
  delete: 'tokens.token.delete.v1',
  setState: 'tokens.token.set-state.v1',
  cloudInit: 'tokens.cloud-init.get.v1',
  register: 'tokens.site.register.v1',
  listRegistrations: 'tokens.registration.list.v1',
  registrationsByToken: 'tokens.registration.by-token.v1',
  deleteRegistration: 'tokens.registration.delete.v1',
  jwks: 'tokens.keys.jwks.v1',
  health: 'tokens.health.check.v1',
} as const;

/** Token events, in the JetStream stream `TOKENS`; admission events, in `TOKENS_ADMISSIONS`. */
export const TokenEvents = {
  created: 'tokens.token.created.v1',
  replaced: 'tokens.token.replaced.v1',
  deleted: 'tokens.token.deleted.v1',
  stateChanged: 'tokens.token.state-changed.v1',
  siteAdmitted: 'tokens.site.admitted.v1',
  siteRefused: 'tokens.site.refused.v1',
} as const;

export const TOKENS_STREAM = 'TOKENS';
/** Admission events come at the rate sites register: a stream of their own, bounded in age and size. */
export const TOKENS_ADMISSIONS_STREAM = 'TOKENS_ADMISSIONS';
export const TOKENS_QUEUE = 'tokens';
