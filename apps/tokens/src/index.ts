// What tests and tooling may import from the tokens service.
export { TokensConfig } from './config';
export { TokensModule, TOKENS_STREAM_SPEC } from './tokens.module';
