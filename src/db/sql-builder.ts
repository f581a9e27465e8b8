import {
  type CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import type { DB } from '../generated/kysely/types.js';
import type { SqlStatement, SqlValue } from './direct-sql.js';

/**
 * Kysely as a query builder only: it compiles typed statements to PostgreSQL text and values,
 * and never opens a connection (its driver is Kysely's DummyDriver). The statements run through
 * DirectSql (src/db/direct-sql.ts) on the same pool or PGlite instance as Prisma, counted and
 * timed like every other statement, so there is no second pool and no second dialect to tune.
 *
 * `Database` is the table types, generated from prisma/schema.prisma by prisma-kysely
 * (src/generated/kysely, written by `npm run generate`): tables and columns by their SQL names.
 */
export type Database = DB;

export const builder = new Kysely<Database>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

/** A compiled Kysely statement as DirectSql runs it. */
export function compiled(query: CompiledQuery | { compile(): CompiledQuery }): SqlStatement {
  const { sql, parameters } = 'compile' in query ? query.compile() : query;
  return { text: sql, values: parameters as SqlValue[] };
}
