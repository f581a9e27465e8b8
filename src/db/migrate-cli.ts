// npm run db:migrate: applies the committed migrations to DATABASE_URL (default: the embedded ./data).
import { openCommandDatabase } from '../cli/open.js';
import { applyMigrations } from './migrations.js';

const { db } = await openCommandDatabase();
try {
  const applied = await applyMigrations(db.adapterFactory);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
process.exit(0);
