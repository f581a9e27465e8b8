import type { Db } from '../db/client.js';
import { type DirectSql, directSql, registerDirectSql, type SqlStatement } from '../db/direct-sql.js';

/** A model's methods that only read; any other (create, update, upsert, delete, and whatever Prisma adds) may write. */
const READS = new Set([
  'findUnique',
  'findUniqueOrThrow',
  'findFirst',
  'findFirstOrThrow',
  'findMany',
  'count',
  'aggregate',
  'groupBy',
]);

/** Client methods that run statements Prisma cannot tell apart from writes. */
const WRITES = new Set(['$transaction', '$executeRaw', '$executeRawUnsafe', '$queryRaw', '$queryRawUnsafe']);

/**
 * Makes a Prisma promise (lazy: it runs when awaited) wait for `before` first, however it is
 * awaited. Kept a Prisma promise, so an array `$transaction([...])` still accepts it (that call
 * runs `before` itself, below).
 */
function after<T extends object>(promise: T, before: () => Promise<void>): T {
  const target = promise as unknown as Promise<unknown>;
  const then = target.then.bind(target);
  return Object.assign(promise, {
    // biome-ignore lint/suspicious/noThenProperty: it stays a promise, with one step before it runs
    then: (resolve?: (value: unknown) => unknown, reject?: (reason: unknown) => unknown) =>
      before().then(() => then(resolve, reject), reject),
    catch: (reject: (reason: unknown) => unknown) => before().then(() => then(undefined, reject), reject),
    finally: (done: () => void) =>
      before()
        .then(() => then(), undefined)
        .finally(done),
  });
}

/** The model's delegate with `before` run ahead of each method that may write. */
function guardedModel(model: object, before: () => Promise<void>): object {
  return new Proxy(model, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== 'function' || typeof name !== 'string' || READS.has(name)) return value;
      return (...args: unknown[]) => after(value.apply(target, args), before);
    },
  });
}

/** Statements sent through DirectSql that only read. */
const isRead = (text: string) => /^\s*select\b/i.test(text);

/**
 * `db` as the operations of a request under an Idempotency-Key see it (src/idempotency/claim.ts):
 * `before` runs ahead of anything that may write (a model's write, a transaction, raw SQL, a
 * DirectSql statement other than a SELECT), and reads pass. Why a wrapper rather than a rule for
 * each write: a write added later, or one missed, is guarded without anyone remembering to.
 */
export function guardedDb(db: Db, before: () => Promise<void>): Db {
  const models = new Map<string, object>();
  const guarded = new Proxy(db, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof name !== 'string') return value;
      if (WRITES.has(name) && typeof value === 'function') {
        return async (...args: unknown[]) => {
          await before();
          return value.apply(target, args);
        };
      }
      if (typeof value === 'function') return value.bind(target);
      if (value === null || typeof value !== 'object' || name.startsWith('$') || name.startsWith('_')) return value;
      if (!models.has(name)) models.set(name, guardedModel(value, before));
      return models.get(name);
    },
  });
  const sql = directSql(db);
  const guardedSql: DirectSql = Object.assign(Object.create(sql) as DirectSql, {
    async rows<T>(statement: SqlStatement): Promise<T[]> {
      if (!isRead(statement.text)) await before();
      return sql.rows<T>(statement);
    },
  });
  registerDirectSql(guarded, guardedSql);
  return guarded;
}
