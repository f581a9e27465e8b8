import type { z } from 'zod';
import type { FieldOf, TableDeclaration } from './column-declaration.js';
import type { Field } from './representation.js';

/**
 * The JSON of a table's rows, from its column declaration (src/schema/core/column-declaration.ts):
 * the fields of the columns that have a `json` entry, in declaration order, which a
 * representation (src/schema/core/representation.ts) completes with the fields no column holds.
 */

type JsonOf<Declared> = Declared extends { json: infer J extends { name: string; schema: z.ZodType } } ? J : never;

/** The JSON of a row by the declaration: each shown column under its JSON name, typed by its schema. */
export type JsonShape<Table extends TableDeclaration> = {
  -readonly [F in FieldOf<Table> as JsonOf<Table[F]>['name']]: z.output<JsonOf<Table[F]>['schema']>;
};

/** The shown columns' JSON fields, in declaration order: the value as it is, a time in ISO 8601 UTC with milliseconds. */
export function jsonFieldsOf<Row>(table: TableDeclaration): Record<string, Field<Row>> {
  const fields: Record<string, Field<Row>> = {};
  for (const [field, declared] of Object.entries(table)) {
    if (!declared.json) continue;
    const read = (row: Row) => (row as Record<string, unknown>)[field];
    const value = declared.kind === 'time' ? (row: Row) => (read(row) as Date | null)?.toISOString() ?? null : read;
    fields[declared.json.name] = { schema: declared.json.schema, select: { [field]: true }, value };
  }
  return fields;
}

/** The example row of the API reference, from the declared examples, under the same JSON names. */
export function jsonExampleOf(table: TableDeclaration): Record<string, unknown> {
  return Object.fromEntries(
    Object.values(table).flatMap((declared) => (declared.json ? [[declared.json.name, declared.json.example]] : [])),
  );
}

/** `fields` with `more` placed after the field `name` (a field no column holds, where the JSON lists it). */
export function placedAfter<Value>(
  fields: Record<string, Value>,
  name: string,
  more: Record<string, Value>,
): Record<string, Value> {
  if (!Object.hasOwn(fields, name)) throw new Error(`No field ${name} to place ${Object.keys(more).join(', ')} after.`);
  return Object.fromEntries(
    Object.entries(fields).flatMap((entry) => (entry[0] === name ? [entry, ...Object.entries(more)] : [entry])),
  );
}
