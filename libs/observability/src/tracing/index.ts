export * from './tracing';
export * from './spans';
export * from './testing';
