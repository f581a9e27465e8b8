import type { PrismaClient } from '../generated/prisma/client.js';
import { inSpan, tracingOn } from '../ops/tracing.js';
import { counted, type QueryCounter } from './query-counter.js';

/**
 * A value of a statement. A Date is sent as ISO 8601 text: cast it (`$1::timestamptz`); an array
 * as an array (`$1::uuid[]`); a Buffer as bytea (node-postgres sends another Uint8Array as text).
 */
export type SqlValue = string | number | boolean | Date | Buffer | null | readonly string[] | readonly number[];

/** A statement and its values, in order ($1, $2, ...). */
export interface SqlStatement {
  text: string;
  values: SqlValue[];
}

/** Sends one statement to the database driver (node-postgres' pool, or the PGlite instance) and gives its rows as objects. */
export type RunStatement = (text: string, values: unknown[]) => Promise<{ rows: Record<string, unknown>[] }>;

/**
 * Statements of the hottest paths, sent straight to the database driver that Prisma's adapter
 * runs on (the same node-postgres pool, or the same PGlite instance), counted and timed like
 * every other statement (src/db/query-counter.ts), without Prisma's client and adapter around
 * them: for one row those cost about 110 µs of CPU against 25 µs here; for a 100-issue page
 * about 300 µs (bench/SUMMARY.md). Only statements that stand alone come here (a read, or a
 * write that is one statement and so its own transaction); a statement that belongs to an
 * interactive transaction goes through that transaction's Prisma client. Every statement sent
 * this way replaces a Prisma call behind the same operation, with a test that compares the two.
 *
 * Rows come as both drivers parse them: timestamps as Dates, json as objects, int4 as numbers.
 * They disagree on int8 (node-postgres gives text), so a statement casts counts to int.
 */
export class DirectSql {
  constructor(
    private readonly run: RunStatement,
    private readonly counter: QueryCounter,
  ) {}

  async rows<T>(statement: SqlStatement): Promise<T[]> {
    // Dates as text with their zone, for no session setting to reinterpret.
    const values = statement.values.map((value) => (value instanceof Date ? value.toISOString() : value));
    const send = () => counted(this.counter, () => this.run(statement.text, values));
    // Prisma's instrumentation does not see these statements: with tracing on, each is a span of its own.
    const result = await (tracingOn()
      ? inSpan(spanName(statement.text), spanAttributes(statement.text), send)
      : send());
    return result.rows as T[];
  }
}

/** The statement's first keyword (SELECT, INSERT, WITH, ...): the span's name, as database instrumentations name theirs. */
const keyword = (text: string) => /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL';
const spanName = (text: string) => `direct-sql ${keyword(text)}`;
/** The statement's text has placeholders ($1, ...), never its values. */
const spanAttributes = (text: string) => ({
  'db.system.name': 'postgresql',
  'db.operation.name': keyword(text),
  'db.query.text': text,
});

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
  if (!sql)
    throw new Error('this Prisma client was not opened by openDatabase (src/db/client.ts): it has no DirectSql');
  return sql;
}
