export * from './infra';
export * from './tokens';
export * from './wait';
export * from './contracts';
