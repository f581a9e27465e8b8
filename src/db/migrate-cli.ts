// npm run db:migrate: applies the committed migrations to DATABASE_URL (default: the embedded ./data).
import { loadConfig } from '../config.js';
import { openDatabase } from './client.js';
import { applyMigrations } from './migrations.js';

const config = loadConfig();
const db = await openDatabase(config.databaseUrl);
try {
  const applied = await applyMigrations(db.adapterFactory);
  console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
} finally {
  await db.close();
}
