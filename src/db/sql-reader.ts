import type { ArgType, SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import type { PrismaClient } from '../generated/prisma/client.js';

/** A statement and its values, in order ($1, $2, ...): strings, numbers, booleans or null. */
export interface SqlStatement {
  text: string;
  values: (string | number | boolean | null)[];
}

/**
 * Reads for the hottest paths, sent straight to the driver adapter that Prisma runs on: the same
 * connection pool (PostgreSQL) or the same PGlite instance, counted and timed like every other
 * statement (src/db/query-counter.ts), but without Prisma's client around them. For one row that
 * client costs about 110 µs of CPU against 25 µs here; for a 100-issue page about 300 µs
 * (bench/SUMMARY.md). Only reads outside transactions come here: a statement that belongs to a
 * transaction goes through its Prisma transaction client. Every statement written for this
 * reader replaces a Prisma call behind the same operation, with a test that runs both over the
 * same data and compares the rows.
 */
export class SqlReader {
  private constructor(private readonly adapter: SqlDriverAdapter) {}

  static async connect(factory: SqlDriverAdapterFactory): Promise<SqlReader> {
    return new SqlReader(await factory.connect());
  }

  /**
   * The rows as objects keyed by column name, a dotted name (`"project.key"`) making a nested
   * object as Prisma gives a selected relation; timestamps as Dates, 64-bit integers as numbers
   * (counts here never pass 2^53), every other value as the driver adapter gives it.
   */
  async rows<T>(statement: SqlStatement): Promise<T[]> {
    const argTypes: ArgType[] = statement.values.map(() => ({ scalarType: 'unknown', arity: 'scalar' }));
    const result = await this.adapter.queryRaw({ sql: statement.text, args: statement.values, argTypes });
    const columns = result.columnNames.map((name, i) => {
      const type = result.columnTypes[i];
      const convert = type === ColumnTypeEnum.DateTime ? toDate : type === ColumnTypeEnum.Int64 ? toNumber : undefined;
      const dot = name.indexOf('.');
      return { name: dot < 0 ? name : name.slice(dot + 1), parent: dot < 0 ? undefined : name.slice(0, dot), convert };
    });
    return result.rows.map((values) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < columns.length; i++) {
        const { name, parent, convert } = columns[i]!;
        const value = values[i] === null || !convert ? values[i] : convert(values[i]);
        if (parent === undefined) row[name] = value;
        else ((row[parent] ??= {}) as Record<string, unknown>)[name] = value;
      }
      return row as T;
    });
  }

  dispose(): Promise<void> {
    return this.adapter.dispose();
  }
}

const toDate = (value: unknown) => new Date(value as string);
const toNumber = (value: unknown) => Number(value);

/** The reader of each client that src/db/client.ts opened. */
const readers = new WeakMap<PrismaClient, SqlReader>();

export function registerReader(prisma: PrismaClient, reader: SqlReader): void {
  readers.set(prisma, reader);
}

/**
 * The reader over the same database as `prisma` (operations receive the client in their
 * context; the reader travels with it rather than as one more field every context must carry).
 */
export function readerOf(prisma: PrismaClient): SqlReader {
  const reader = readers.get(prisma);
  if (!reader) throw new Error('this Prisma client was not opened by openDatabase (src/db/client.ts): it has no SQL reader');
  return reader;
}
