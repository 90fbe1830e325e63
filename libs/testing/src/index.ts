export * from './cpu-time';
export * from './infra';
export * from './local-infra';
export * from './tokens';
export * from './wait';
