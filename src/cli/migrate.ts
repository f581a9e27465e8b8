// npm run db:migrate: applies the committed migrations to DATABASE_URL (default: the embedded ./data),
// through MIGRATION_DATABASE_URL when that is set (DATABASE_URL then goes through a pooler).
import { migrateDatabase } from '../db/migrations.js';
import { openCommandDatabase } from './open.js';

const { db, config } = await openCommandDatabase();
try {
  const applied = await migrateDatabase(db, config.migrationDatabaseUrl);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
process.exit(0);
