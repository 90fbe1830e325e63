export * from './cpu-time';
export * from './fakes';
export * from './fixtures';
export * from './infra';
export * from './local-infra';
export * from './tokens';
export * from './wait';
export * from './contracts';
