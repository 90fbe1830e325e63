// What tests and tooling may import from the message proxy.
export { ProxyConfig } from './config';
export { ProxyModule } from './proxy.module';
