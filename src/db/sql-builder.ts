import {
  type Compilable,
  CompiledQuery,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type RawBuilder,
} from 'kysely';
import type { DB } from '../generated/kysely/types.js';
import type { DirectSql, SqlStatement, SqlValue } from './direct-sql.js';

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

/** A Kysely statement: a query builder's, or a statement written with the `sql` tag (RawBuilder). */
export type Statement<Row> = Compilable<Row> | RawBuilder<Row>;

/** A compiled Kysely statement as DirectSql runs it. */
export function compiled(query: CompiledQuery | Statement<unknown>): SqlStatement {
  const { sql, parameters } = 'compile' in query ? query.compile(builder) : query;
  return { text: sql, values: parameters as SqlValue[] };
}

/** A statement compiled once (`prepared`): its text, and a call with new values. */
export interface Prepared<Values extends SqlValue[], Row> {
  text: string;
  with: (...values: Values) => CompiledQuery<Row>;
}

/**
 * A statement of one fixed shape, compiled once: each call passes new values to the kept text.
 * Building and compiling a statement costs tens of microseconds, which the statements run on
 * every request of their kind (the key lookup, GET /me, the create) do not pay. `build` takes
 * the values and binds each where the statement needs it: once, in several places (each place
 * is a parameter of its own), or not at all (a form of a statement that has no use for it).
 * Every parameter must be one of the values (checked here with distinct markers): anything else
 * bound would be kept in the text's parameters for every call, so a constant is written as a
 * literal (`eb.lit`, `sql.lit`).
 */
export function prepared<Values extends SqlValue[], Row>(
  build: (...values: Values) => Compilable<Row>,
  arity: Values['length'],
): Prepared<Values, Row> {
  const markers = Array.from({ length: arity }, (_, i) => `\u0000value ${i}`);
  const { sql: text, parameters } = build(...(markers as Values)).compile();
  const places = parameters.map((parameter) => markers.indexOf(parameter as string));
  if (places.includes(-1)) throw new Error('a prepared statement must bind nothing but its values');
  // Each value bound once, in order (most statements): the values are the parameters as given.
  const asGiven = places.length === arity && places.every((place, i) => place === i);
  return {
    text,
    with: asGiven
      ? (...values) => CompiledQuery.raw(text, values) as CompiledQuery<Row>
      : (...values) =>
          CompiledQuery.raw(
            text,
            places.map((place) => values[place]),
          ) as CompiledQuery<Row>,
  };
}

/**
 * A statement of several forms (its SQL differs with what a request asks for, not with its
 * values), each prepared the first time it is asked for. The forms come from requests, so at
 * most `max` are kept, the oldest dropped first.
 */
export class PreparedForms<Values extends SqlValue[], Row> {
  private readonly forms = new Map<string, Prepared<Values, Row>>();

  constructor(
    private readonly arity: Values['length'],
    private readonly max: number,
  ) {}

  /** The form `key` names (every choice that changes the SQL), built by `build` if it is not kept. */
  get(key: string, build: (...values: Values) => Compilable<Row>): Prepared<Values, Row> {
    let form = this.forms.get(key);
    if (!form) {
      form = prepared(build, this.arity);
      if (this.forms.size >= this.max) this.forms.delete(this.forms.keys().next().value!);
      this.forms.set(key, form);
    }
    return form;
  }
}

/** The rows of a Kysely statement, sent through DirectSql, typed as the builder infers them. */
export function rowsOf<Row>(sql: DirectSql, query: Statement<Row> | CompiledQuery<Row>): Promise<Row[]> {
  return sql.rows<Row>(compiled(query));
}

/** A Prisma client inside an interactive transaction, which runs a statement's text and values. */
export interface RawQueries {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
}

/** The rows of a Kysely statement run inside an interactive transaction (through its Prisma client), typed as the builder infers them. */
export function transactionRowsOf<Row>(tx: RawQueries, query: Statement<Row> | CompiledQuery<Row>): Promise<Row[]> {
  const { text, values } = compiled(query);
  return tx.$queryRawUnsafe<Row[]>(text, ...values);
}
