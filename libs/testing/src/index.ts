export * from './infra';
export * from './tokens';
export * from './wait';
