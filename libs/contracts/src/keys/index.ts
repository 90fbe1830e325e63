export * from './api-key-format';
export * from './api-key.dto';
export * from './api-key.subjects';
export * from './api-key.views';
export * from './api-key.contracts';
