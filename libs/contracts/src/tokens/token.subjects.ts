/** Request-reply subjects of the tokens service (queue group `tokens`). */
export const TokenSubjects = {
  create: 'tokens.token.create.v1',
  replace: 'tokens.token.replace.v1',
  list: 'tokens.token.list.v1',
  get: 'tokens.token.get.v1',
  delete: 'tokens.token.delete.v1',
  setState: 'tokens.token.set-state.v1',
  health: 'tokens.health.check.v1',
} as const;

/** Domain events, published to the JetStream stream `TOKENS`. */
export const TokenEvents = {
  created: 'tokens.token.created.v1',
  replaced: 'tokens.token.replaced.v1',
  deleted: 'tokens.token.deleted.v1',
  stateChanged: 'tokens.token.state-changed.v1',
} as const;

export const TOKENS_STREAM = 'TOKENS';
export const TOKENS_QUEUE = 'tokens';
