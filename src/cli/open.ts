import { ConfigError, loadConfig, type Config } from '../config.js';
import { DatabaseInUseError, openDatabase, type Database } from '../db/client.js';
import { applyMigrations } from '../db/migrations.js';
import { preflight } from '../ops/preflight.js';
import { StartupError } from '../ops/startup-error.js';

/**
 * DATABASE_URL opened for a command, after the same start-up checks as the server (Redis aside:
 * commands that use it report its failures themselves). A mistake an operator can fix ends the
 * command with its one-line message and exit status 1.
 */
export async function openCommandDatabase(): Promise<{ db: Database; config: Config }> {
  try {
    const config = loadConfig();
    await preflight(config, { migrate: true, redis: false });
    return { db: await openDatabase(config.databaseUrl), config };
  } catch (error) {
    if (!(error instanceof ConfigError || error instanceof StartupError || error instanceof DatabaseInUseError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/**
 * Opens DATABASE_URL for a command, migrated, and closes it when `work` is done.
 * Commands end with process.exit(code) afterwards: PGlite's runtime resets process.exitCode on close.
 */
export async function withDatabase<T>(work: (db: Database, config: Config) => Promise<T>): Promise<T> {
  const { db, config } = await openCommandDatabase();
  try {
    await applyMigrations(db.adapterFactory);
    return await work(db, config);
  } finally {
    await db.close();
  }
}
