// npm run db:migration -- <name>: writes the next migration from the changes in prisma/schema.prisma.
import { relative } from 'node:path';
import { createMigration } from '../src/db/migrations.js';

const name = process.argv[2];
if (!name || !/^[a-z0-9_]+$/.test(name)) {
  console.error('usage: npm run db:migration -- <name>   (lowercase letters, digits and _)');
  process.exit(2);
}
const dir = await createMigration(name);
console.log(
  dir
    ? `wrote ${relative(process.cwd(), dir)}/migration.sql`
    : 'schema.prisma matches the migrations: nothing to write',
);
