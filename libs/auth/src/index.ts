export * from './auth-config';
export * from './claims';
export * from './current-principal.decorator';
export * from './dev-key';
export * from './extract-token';
export * from './jwt-verifier';
export * from './sign-dev-token';
