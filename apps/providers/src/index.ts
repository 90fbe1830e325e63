// What tests and tooling may import from the providers service.
export { ProvidersConfig } from './config';
export { ProvidersModule, PROVIDERS_STREAM_SPEC } from './providers.module';
