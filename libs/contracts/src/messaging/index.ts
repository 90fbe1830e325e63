export * from './contract';
export * from './health';
