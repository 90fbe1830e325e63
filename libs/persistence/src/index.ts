export * from './db/migrator';
export * from './db/service-migrations';
export * from './prisma/prisma-errors';
export * from './pagination/cursor';
