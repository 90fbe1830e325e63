export * from './config/load-config';
export * from './config/platform-config';
export * from './crypto/secret-box';
export * from './crypto/dev-encryption-keys';
export * from './config/validation-metadata-cache';
