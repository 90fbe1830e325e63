// What tests and tooling may import from the message proxy.
export { laneFilter, ProxyConfig } from './config';
export { ProxyModule } from './proxy.module';
