export * from './redact';
export * from './render-request';
export * from './run-provider';
export * from './transport';
export * from './outbound-transport';
export * from './run-workflow';
export * from './destination-binding';
