import type { ArgType, SqlDriverAdapter, SqlDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { ColumnTypeEnum } from '@prisma/driver-adapter-utils';
import type { PrismaClient } from '../generated/prisma/client.js';

/** A statement and its values, in order ($1, $2, ...). A Date is sent as ISO 8601 text: cast it (`$1::timestamptz`). */
export interface SqlStatement {
  text: string;
  values: (string | number | boolean | Date | null)[];
}

/**
 * Statements of the hottest paths, sent straight to the driver adapter that Prisma runs on: the
 * same connection pool (PostgreSQL) or the same PGlite instance, counted and timed like every
 * other statement (src/db/query-counter.ts), but without Prisma's client around them. For one
 * row that client costs about 110 µs of CPU against 25 µs here; for a 100-issue page about
 * 300 µs (bench/SUMMARY.md). Only statements that stand alone come here (a read, or a write that
 * is one statement and so its own transaction); a statement that belongs to an interactive
 * transaction goes through that transaction's Prisma client. Every statement sent this way
 * replaces a Prisma call behind the same operation, with a test that compares the two.
 */
export class DirectSql {
  private constructor(private readonly adapter: SqlDriverAdapter) {}

  static async connect(factory: SqlDriverAdapterFactory): Promise<DirectSql> {
    return new DirectSql(await factory.connect());
  }

  /**
   * The rows as objects keyed by column name, a dotted name (`"project.key"`) making a nested
   * object as Prisma gives a selected relation; timestamps as Dates, 64-bit integers as numbers
   * (counts here never pass 2^53), every other value as the driver adapter gives it.
   */
  async rows<T>(statement: SqlStatement): Promise<T[]> {
    // Dates as text with their zone: the adapters would write them without one, for the session's zone to read.
    const args = statement.values.map((value) => (value instanceof Date ? value.toISOString() : value));
    const argTypes: ArgType[] = args.map(() => ({ scalarType: 'unknown', arity: 'scalar' }));
    const result = await this.adapter.queryRaw({ sql: statement.text, args, argTypes });
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

/** The DirectSql of each client that src/db/client.ts opened. */
const byClient = new WeakMap<PrismaClient, DirectSql>();

export function registerDirectSql(prisma: PrismaClient, sql: DirectSql): void {
  byClient.set(prisma, sql);
}

/**
 * The DirectSql over the same database as `prisma` (operations receive the client in their
 * context; this travels with it rather than as one more field every context must carry).
 */
export function directSql(prisma: PrismaClient): DirectSql {
  const sql = byClient.get(prisma);
  if (!sql) throw new Error('this Prisma client was not opened by openDatabase (src/db/client.ts): it has no DirectSql');
  return sql;
}
