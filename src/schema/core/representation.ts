import { z } from 'zod';

/**
 * One field of a REST representation: its JSON Schema (a zod type, documented in OpenAPI),
 * the Prisma selection it needs and how its value is read from the row.
 */
export interface Field<Row> {
  schema: z.ZodType;
  select?: Record<string, unknown>;
  value(row: Row): unknown;
  /** Left out of the JSON when the value is null (instead of written as null). */
  omitNull?: boolean;
}

/** A column shown as it is: `column('projectId', z.uuid())`. */
export function column<Row, K extends keyof Row & string>(name: K, schema: z.ZodType): Field<Row> {
  return { schema, select: { [name]: true }, value: (row) => row[name] };
}

/** A timestamp column, in ISO 8601 UTC with milliseconds. */
export function timeColumn<Row, K extends keyof Row & string>(
  name: K,
  description: string,
  nullable = false,
): Field<Row> {
  const schema = time(description);
  return {
    schema: nullable ? schema.nullable() : schema,
    select: { [name]: true },
    value: (row) => (row[name] as Date | null)?.toISOString() ?? null,
  };
}

export interface Representation<Row> {
  name: string;
  /** Exactly these fields, each always present (unless `omitNull`): what OpenAPI documents. */
  schema: z.ZodType;
  /** The Prisma selection that loads every field. */
  select: Record<string, unknown>;
  /** The row as the spec's JSON, fields in the declared order. */
  present(row: Row): Record<string, unknown>;
  fields: Record<string, Field<Row>>;
}

/** Merges Prisma selections: `{ project: { select: { key: true } } }` and `{ project: { select: { id: true } } }`. */
function mergeSelect(into: Record<string, unknown>, more: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(more)) {
    const current = into[key];
    if (current && typeof current === 'object' && value && typeof value === 'object') {
      into[key] = {
        select: mergeSelect(
          { ...(current as { select: Record<string, unknown> }).select },
          (value as { select: Record<string, unknown> }).select,
        ),
      };
    } else {
      into[key] = value;
    }
  }
  return into;
}

/**
 * A resource as the REST API shows it, declared once: the OpenAPI schema, the database
 * selection and the JSON all come from this list of fields, so a field added here appears in
 * all three (and in the field tables of docs/api.md, `npm run docs:tables`).
 */
export function representation<Row>(
  name: string,
  description: string,
  fields: Record<string, Field<Row>>,
): Representation<Row> {
  const shape = Object.fromEntries(
    Object.entries(fields).map(([key, field]) => [key, field.omitNull ? field.schema.optional() : field.schema]),
  );
  const entries = Object.entries(fields);
  return {
    name,
    schema: z.strictObject(shape).meta({ id: name, description }),
    select: entries.reduce(
      (select, [, field]) => mergeSelect(select, field.select ?? {}),
      {} as Record<string, unknown>,
    ),
    present(row) {
      const json: Record<string, unknown> = {};
      for (const [key, field] of entries) {
        const value = field.value(row);
        if (value === null && field.omitNull) continue;
        json[key] = value;
      }
      return json;
    },
    fields,
  };
}

// Field schemas several representations share.

/** A UUID, described. */
export const uuid = (description?: string) => (description ? z.uuid().meta({ description }) : z.uuid());
/** Text of at most `max` characters: the limit of the operation that writes it. */
export const text = (max: number, description?: string) =>
  description ? z.string().max(max).meta({ description }) : z.string().max(max);
/** A time as the representations answer it: ISO 8601 in UTC, with milliseconds. */
export const time = (description: string) => z.iso.datetime().meta({ description });
/** PostgreSQL's int4: issue numbers and counts. */
export const INT4_MAX = 2 ** 31 - 1;
