export * from './migrations-list';
export * from './schema-engine';
export * from './wasm-engine';
