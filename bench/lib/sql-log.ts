// A bench-only copy of src/db/query-counter.ts that also records the SQL text, and counts the
// BEGIN that @prisma/adapter-pg sends on its own inside startTransaction (it never passes
// through queryRaw/executeRaw; the COMMIT does, as executeRaw, so Database.queries counts it).
import { PrismaPg } from '@prisma/adapter-pg';
import type {
  SqlDriverAdapter,
  SqlMigrationAwareDriverAdapterFactory,
  SqlQuery,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { Database } from '../../src/db/client.js';
import { DirectSql, registerDirectSql } from '../../src/db/direct-sql.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';

export interface SqlLog {
  /** Same meaning as Database.queries.count: statements through queryRaw / executeRaw. */
  count: number;
  /** BEGINs sent inside startTransaction (not in `count`). */
  txControl: number;
  statements: string[];
  /** Arguments of each statement (same index as `statements`). */
  args: unknown[][];
}

function logOn<T extends SqlQueryable>(target: T, log: SqlLog): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value = Reflect.get(obj, prop, receiver);
      if (typeof value !== 'function') return value;
      if (prop === 'queryRaw' || prop === 'executeRaw') {
        return (query: SqlQuery, ...rest: unknown[]) => {
          log.count++;
          log.statements.push(query.sql);
          log.args.push(query.args);
          return value.apply(obj, [query, ...rest]);
        };
      }
      if (prop === 'startTransaction') {
        return async (...args: unknown[]) => {
          log.txControl++;
          log.statements.push('BEGIN');
          log.args.push([]);
          return logOn((await value.apply(obj, args)) as Transaction, log);
        };
      }
      return value.bind(obj);
    },
  });
}

function logQueries(
  factory: SqlMigrationAwareDriverAdapterFactory,
  log: SqlLog,
): SqlMigrationAwareDriverAdapterFactory {
  return {
    provider: factory.provider,
    adapterName: factory.adapterName,
    connect: async () => logOn<SqlDriverAdapter>(await factory.connect(), log),
    connectToShadowDb: () => factory.connectToShadowDb(),
  };
}

/** A PostgreSQL Database (the shape openDatabase returns, DirectSql included) whose statements are logged. */
export async function openLoggedPostgres(url: string): Promise<{ db: Database; log: SqlLog }> {
  const log: SqlLog = { count: 0, txControl: 0, statements: [], args: [] };
  const pool = new pg.Pool({ connectionString: url });
  const adapterFactory = logQueries(new PrismaPg(pool), log);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  // DirectSql's statements logged as the adapter's are (its counter is the log).
  const run = (text: string, values: unknown[]) => {
    log.statements.push(text);
    log.args.push(values);
    return pool.query(text, values);
  };
  registerDirectSql(prisma, new DirectSql(run, log));
  return {
    log,
    db: {
      prisma,
      adapterFactory,
      kind: 'postgres',
      queries: log,
      async close() {
        await prisma.$disconnect();
        await pool.end();
      },
    },
  };
}
