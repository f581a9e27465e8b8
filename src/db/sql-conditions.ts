import {
  type ColumnDataType,
  type Expression,
  type ExpressionWrapper,
  expressionBuilder,
  type RawBuilder,
  type SqlBool,
  sql,
} from 'kysely';
import type { Database } from './sql-builder.js';

/**
 * Conditions of the hand-written statements, with Kysely's `sql` tag: values become bind
 * parameters, numbered only when the whole statement is compiled, so a condition left out (an
 * OR with a branch that holds for every row) leaves no parameter behind.
 */
type Condition = Expression<SqlBool>;

/** `column IN (...)`; an empty list holds for no row, as Prisma reads `in: []`. `cast` follows each value (`::int8`). */
export function oneOf(column: Expression<unknown>, values: readonly (string | number)[], cast = ''): Condition {
  if (!values.length) return sql<SqlBool>`FALSE`;
  const castText = sql.raw(cast);
  return sql<SqlBool>`${column} IN (${sql.join(values.map((value) => sql`${value}${castText}`))})`;
}

/** Every condition; one alone as it is. */
export function all(conditions: Condition[]): Condition {
  return conditions.length === 1 ? conditions[0]! : sql<SqlBool>`(${sql.join(conditions, sql` AND `)})`;
}

/** Any of the conditions. */
export function any(conditions: Condition[]): Condition {
  return sql<SqlBool>`(${sql.join(conditions, sql` OR `)})`;
}

/** An instant as a timestamptz value (sent as ISO 8601 text with its zone, for no session setting to reinterpret). */
export function instant(value: Date): RawBuilder<Date> {
  return sql<Date>`${value.toISOString()}::timestamptz`;
}

const values = expressionBuilder<Database>();

/**
 * A value bound as a parameter of SQL type `type`. The drivers send each value as text of no
 * type, which PostgreSQL reads as text where nothing around it says otherwise (a select list,
 * `IS NULL`, a function's argument). A type Kysely has no name for (an array) is a `sql` piece.
 */
export function typedValue<T>(
  value: T,
  type: ColumnDataType | Expression<unknown>,
): ExpressionWrapper<Database, never, T> {
  return values.cast<T>(values.val(value), type);
}
