import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { isPostgresUrl, redactUrl } from '../config.js';
import { StartupError } from '../ops/startup-error.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { DataDirInUseError, lockDataDir as lockDir } from './data-dir-lock.js';
import { countQueries, type QueryCounter } from './query-counter.js';
import { nodePostgresTypes, pgliteParsers } from './timestamps.js';
import { DirectSql, registerDirectSql, type RunStatement } from './direct-sql.js';

export type Db = PrismaClient;

/**
 * PGlite's settings: its data directory's postgresql.conf asks for PostgreSQL's 128 MB of
 * shared buffers, which PGlite allocates and touches inside its WebAssembly memory at start,
 * about 120 MB of an idle instance. 16 MB holds the hot pages of a small installation; reads
 * past it come from the operating system's file cache.
 */
const pgliteOptions = {
  startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'],
};

export interface Database {
  prisma: PrismaClient;
  /** The adapter the client runs on; the migration runner binds to the same one. */
  adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  kind: 'pglite' | 'postgres';
  /** SQL statements sent to the driver so far (tests and benchmarks read it). */
  queries: QueryCounter;
  close(): Promise<void>;
}

/** The embedded database's directory is held by another process: a start-up mistake the operator fixes. */
export class DatabaseInUseError extends StartupError {
  constructor(
    readonly dir: string,
    readonly holder = '',
  ) {
    super(
      `The embedded database in ${dir} is already open in another process${holder}. ` +
        'PGlite allows one process per data directory: stop the other process, ' +
        'or point DATABASE_URL at another directory or at PostgreSQL.',
    );
    this.name = 'DatabaseInUseError';
  }
}

/**
 * Opens the database named by `url`:
 * `file:<dir>` (embedded PGlite on disk), `memory://` (embedded, in memory),
 * `postgres://` / `postgresql://` (PostgreSQL through node-postgres).
 */
export async function openDatabase(url: string): Promise<Database> {
  if (isPostgresUrl(url)) {
    // One pool for Prisma and DirectSql (src/db/direct-sql.ts).
    const pool = new pg.Pool({ connectionString: url });
    return wrap(
      new PrismaPg(pool),
      'postgres',
      (text, values) => pool.query({ text, values, types: nodePostgresTypes }),
      () => pool.end(),
    );
  }
  if (url.startsWith('memory://')) {
    const pg = await PGlite.create(pgliteOptions);
    return wrap(
      new PrismaPGlite(pg),
      'pglite',
      (text, values) => pg.query(text, values, { parsers: pgliteParsers }),
      () => pg.close(),
    );
  }
  if (url.startsWith('file:')) {
    const dir = resolve(url.slice('file:'.length));
    mkdirSync(dir, { recursive: true });
    const release = await lockDataDir(dir);
    try {
      const pg = await PGlite.create(dir, pgliteOptions);
      return wrap(
        new PrismaPGlite(pg),
        'pglite',
        (text, values) => pg.query(text, values, { parsers: pgliteParsers }),
        async () => {
          await pg.close();
          await release();
        },
      );
    } catch (error) {
      await release();
      throw error;
    }
  }
  throw new Error(`Unsupported DATABASE_URL: ${redactUrl(url)}`);
}

/**
 * PGlite is a single-process database: two processes writing one directory corrupt it.
 * The lock (data-dir-lock.ts) turns that into a clear error, and is taken over at once when
 * its holder has died.
 */
export async function lockDataDir(dir: string): Promise<() => Promise<void>> {
  try {
    return lockDir(dir);
  } catch (error) {
    if (error instanceof DataDirInUseError)
      throw new DatabaseInUseError(dir, error.holder ? ` (pid ${error.holder.pid} on ${error.holder.host})` : '');
    throw error;
  }
}

function wrap(
  factory: SqlMigrationAwareDriverAdapterFactory,
  kind: Database['kind'],
  run: RunStatement,
  closeDriver: () => Promise<void>,
): Database {
  const queries: QueryCounter = { count: 0, timers: new Set() };
  const adapterFactory = countQueries(factory, queries);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  registerDirectSql(prisma, new DirectSql(run, queries));
  return {
    prisma,
    adapterFactory,
    kind,
    queries,
    async close() {
      await prisma.$disconnect();
      await closeDriver();
    },
  };
}
