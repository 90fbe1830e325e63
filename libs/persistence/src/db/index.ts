// Entry for the migration script, which must not load Nest or NATS.
export * from './migrator';
export * from './service-migrations';
