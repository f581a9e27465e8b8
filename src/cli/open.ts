import { loadConfig, type Config } from '../config.js';
import { openDatabase, type Database } from '../db/client.js';
import { applyMigrations } from '../db/migrations.js';

/**
 * Opens DATABASE_URL for a command, migrated, and closes it when `work` is done.
 * Commands end with process.exit(code) afterwards: PGlite's runtime resets process.exitCode on close.
 */
export async function withDatabase<T>(work: (db: Database, config: Config) => Promise<T>): Promise<T> {
  let config: Config;
  let db: Database;
  try {
    config = loadConfig();
    db = await openDatabase(config.databaseUrl);
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  }
  try {
    await applyMigrations(db.adapterFactory);
    return await work(db, config);
  } finally {
    await db.close();
  }
}
