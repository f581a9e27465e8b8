// npm run db:migrate: applies the committed migrations to DATABASE_URL (default: the embedded ./data).
import { applyMigrations } from '../db/migrations.js';
import { openCommandDatabase } from './open.js';

const { db } = await openCommandDatabase();
try {
  const applied = await applyMigrations(db.adapterFactory);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
process.exit(0);
