import { loadConfig, type Config } from '../config.js';
import { DatabaseInUseError, openDatabase, type Database } from '../db/client.js';
import { applyMigrations } from '../db/migrations.js';
import { preflight } from '../ops/preflight.js';
import { StartupError } from '../ops/startup-error.js';

/**
 * DATABASE_URL opened for a command, after the same start-up checks as the server (Redis aside:
 * commands that use it report its failures themselves). A mistake an operator can fix ends the
 * command with its one-line message and exit status 1.
 */
export async function openCommandDatabase(options: CommandOptions = {}): Promise<{ db: Database; config: Config }> {
  let config: Config | undefined;
  try {
    config = loadConfig();
    await preflight(config, { migrate: true, redis: false });
    return { db: await openDatabase(config.databaseUrl), config };
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    const message =
      error instanceof DatabaseInUseError && config ? inUseMessage(error, config, options.whileRunning) : error.message;
    process.stderr.write(`${message}\n`);
    process.exit(1);
  }
}

export interface CommandOptions {
  /**
   * What to do instead while the service runs on the embedded database, which only one process
   * may open (the web page that does the same, say).
   */
  whileRunning?: (baseUrl: string) => string;
}

/** The embedded database is open in the running service: say so, and what to do now. */
function inUseMessage(error: DatabaseInUseError, config: Config, whileRunning: CommandOptions['whileRunning']): string {
  return [
    `The service is running on the embedded database at ${error.dir}${error.holder}; only one process may open it, so this command cannot run beside it.`,
    ...(whileRunning ? [whileRunning(config.baseUrl)] : []),
    'Or stop the service, run this command again, then start the service. (On PostgreSQL, DATABASE_URL=postgres://..., commands run beside the service.)',
  ].join('\n');
}

/**
 * Opens DATABASE_URL for a command, migrated, and closes it when `work` is done.
 * Commands end with process.exit(code) afterwards: PGlite's runtime resets process.exitCode on close.
 */
export async function withDatabase<T>(
  work: (db: Database, config: Config) => Promise<T>,
  options: CommandOptions = {},
): Promise<T> {
  const { db, config } = await openCommandDatabase(options);
  try {
    await applyMigrations(db.adapterFactory);
    return await work(db, config);
  } finally {
    await db.close();
  }
}
