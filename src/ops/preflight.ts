import { accessSync, constants, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import pg from 'pg';
import { isPostgresUrl, type Config } from '../config.js';
import { APPLIED_MIGRATIONS_SQL, type AppliedMigration, committedMigrationNames } from '../db/migrations.js';
import { connectRedis } from '../redis/connect.js';
import { redisAddress } from '../redis/redis-url.js';
import { errorCode, StartupError } from './startup-error.js';

/** How long a start-up check waits for PostgreSQL or Redis to answer. */
const CONNECT_TIMEOUT_MS = 5_000;

const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

const WHY_NOT_A_DIRECTORY: Record<string, string> = {
  ENOTDIR: 'a part of the path is a file, not a directory',
  EEXIST: 'it is a file, not a directory',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
};

/** The embedded database's directory exists (or can be made) and is writable. */
function checkDataDirectory(url: string): void {
  const dir = resolve(url.slice('file:'.length));
  try {
    mkdirSync(dir, { recursive: true });
    accessSync(dir, constants.W_OK);
  } catch (error) {
    const code = errorCode(error) ?? 'error';
    const why = WHY_NOT_A_DIRECTORY[code] ?? (error as Error).message;
    throw new StartupError(
      `DATABASE_URL=${url}: cannot use ${dir} as the data directory (${code}: ${why}). Point DATABASE_URL at a writable directory (file:./data), or at PostgreSQL.`,
    );
  }
}

function postgresTarget(url: string) {
  const u = new URL(url);
  return {
    where: `${u.hostname || 'localhost'}:${u.port || '5432'}`,
    database: decodeURIComponent(u.pathname.slice(1)) || decodeURIComponent(u.username) || 'postgres',
    user: decodeURIComponent(u.username) || process.env.USER || 'postgres',
  };
}

function postgresConnectFailure(error: unknown, url: string, setting: string): StartupError | unknown {
  const { where, database, user } = postgresTarget(url);
  const code = errorCode(error);
  const message = error instanceof Error ? error.message : String(error);
  if ((code && UNREACHABLE.has(code)) || /timeout/i.test(message)) {
    return new StartupError(
      `${setting}: cannot reach PostgreSQL at ${where} (${code ?? 'timeout'}). Start PostgreSQL there, or fix the host and port in ${setting}.`,
    );
  }
  if (code === '3D000') {
    return new StartupError(
      `${setting}: PostgreSQL at ${where} has no database "${database}". Create it (createdb ${database}), or name an existing database in ${setting}.`,
    );
  }
  if (code === '28P01' || code === '28000') {
    return new StartupError(
      `${setting}: PostgreSQL at ${where} refused user "${user}" (${message}). Fix the user name and password in ${setting}.`,
    );
  }
  if (code && /^[0-9A-Z]{5}$/.test(code)) {
    return new StartupError(
      `${setting}: PostgreSQL at ${where} refused the connection (${code}: ${message}). Fix ${setting}.`,
    );
  }
  return error;
}

/**
 * PostgreSQL answers, and the migrations still to apply can be applied: the user may create
 * tables, and MIGRATE_ON_START allows it. Read-only: nothing is changed here. `setting` names the
 * variable in messages; `migrates` is false for DATABASE_URL when MIGRATION_DATABASE_URL does
 * the migrating (its user need not create tables).
 */
async function checkPostgres(url: string, migrate: boolean, setting = 'DATABASE_URL', migrates = true): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (error) {
    throw postgresConnectFailure(error, url, setting);
  }
  try {
    const { rows } = await client.query<{
      user: string;
      database: string;
      schema: string | null;
      can_create: boolean | null;
      tracked: boolean;
    }>(
      `SELECT current_user AS "user", current_database() AS database, current_schema() AS schema,
              has_schema_privilege(current_schema(), 'CREATE') AS can_create,
              to_regclass('_prisma_migrations') IS NOT NULL AS tracked`,
    );
    const facts = rows[0]!;
    const applied = facts.tracked
      ? new Set((await client.query<AppliedMigration>(APPLIED_MIGRATIONS_SQL)).rows.map((r) => r.migration_name))
      : new Set<string>();
    const pending = (await committedMigrationNames()).filter((name) => !applied.has(name));
    if (pending.length === 0) return;
    if (!migrate) {
      throw new StartupError(
        `MIGRATE_ON_START=false, but ${pending.length} migrations are not applied to the database in DATABASE_URL (from ${pending[0]}). Run npm run db:migrate, or set MIGRATE_ON_START=true, then start again.`,
      );
    }
    if (!facts.can_create && migrates) {
      const schema = facts.schema ?? 'public';
      throw new StartupError(
        `${setting}: user "${facts.user}" cannot create tables in schema "${schema}" of database "${facts.database}", and ${pending.length} migrations are pending. ` +
          `Grant it (GRANT CREATE ON SCHEMA ${schema} TO "${facts.user}"), or apply them once as the owner (npm run db:migrate), then start again.`,
      );
    }
  } finally {
    await client.end().catch(() => {});
  }
}

/** Redis answers a PING (REDIS_URL set means the operator wants limits shared: start without it is a mistake). */
async function checkRedis(url: string): Promise<void> {
  const where = redisAddress(url);
  const redis = connectRedis(url, {
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // ioredis rejects connect() with "Connection is closed."; the cause comes through 'error'.
  let cause: unknown;
  redis.on('error', (error) => {
    cause = error;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    const code = errorCode(cause ?? error);
    const message = error instanceof Error ? error.message : String(error);
    if (/^(NOAUTH|WRONGPASS)/.test(message)) {
      throw new StartupError(
        `REDIS_URL: Redis at ${where} refused the credentials (${message.split(' ')[0]}). Fix the user name and password in REDIS_URL.`,
      );
    }
    throw new StartupError(
      `REDIS_URL: cannot reach Redis at ${where} (${code ?? message}). Start Redis there, fix REDIS_URL, or unset it to keep rate limits in this process (one instance only).`,
    );
  } finally {
    redis.disconnect();
  }
}

/**
 * Checks, before anything is opened for real or changed, what commonly stops a start: the
 * data directory, PostgreSQL (reachable, database present, credentials, privileges for the
 * pending migrations), Redis. Each mistake is a StartupError with one line naming the setting
 * and the fix. (The embedded database's lock is checked when it is opened: DatabaseInUseError.)
 */
export async function preflight(config: Config, options: { migrate: boolean; redis?: boolean }): Promise<void> {
  const url = config.databaseUrl;
  if (url.startsWith('file:')) checkDataDirectory(url);
  else if (isPostgresUrl(url)) {
    const direct = config.migrationDatabaseUrl;
    await checkPostgres(url, options.migrate, 'DATABASE_URL', !direct);
    if (direct) await checkPostgres(direct, options.migrate, 'MIGRATION_DATABASE_URL');
  }
  if (config.redisUrl && options.redis !== false) await checkRedis(config.redisUrl);
}
