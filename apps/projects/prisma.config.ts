import { defineConfig } from 'prisma/config';

// Prisma 7 reads the connection from here, not from schema.prisma. Only `prisma generate` uses this
// file; migrations are applied by the platform's own runner (`pnpm db:migrate`).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres' },
});
