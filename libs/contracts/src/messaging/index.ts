export * from './contract';
export * from './health';
export * from './fast-check';
