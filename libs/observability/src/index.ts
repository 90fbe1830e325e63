export * from './logging/logger';
export * from './logging/request-context';
export * from './tracing';
export * from './metrics/metrics';
export * from './outage/outage-log';
export * from './health/health';
