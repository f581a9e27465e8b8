import { defineConfig } from 'prisma/config';

// Used by the Prisma CLI where its native engines exist (e.g. `prisma studio`);
// this project's own scripts (scripts/generate.ts, src/db/migrate.ts) do not need it.
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://localhost/postgres' },
});
