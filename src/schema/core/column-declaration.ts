import type { z } from 'zod';

/**
 * One column of a table, declared once: the tables' declarations (src/schema/issues/columns.ts,
 * src/schema/projects/columns.ts, src/schema/people/columns.ts) hold one entry per field of the
 * Prisma model, and every list of a table's fields follows from them: the Prisma selection rows
 * are loaded with (below), the select lists of hand-written statements (src/schema/core/column-select.ts),
 * the REST JSON and its OpenAPI schema (src/schema/core/column-json.ts), the GraphQL object's
 * plain fields and input types (src/schema/core/column-graphql.ts), the operations' inputs
 * (src/schema/core/column-input.ts) and the fields history records.
 */
export interface ColumnDeclaration<Column extends string = string, Kind extends string = string> {
  /** The SQL column. */
  column: Column;
  /** The column's type, from which its GraphQL type and its JSON value follow. */
  kind: Kind;
  nullable: boolean;
  /**
   * Loaded with every row (the GraphQL object's base selection, resolved as plain fields);
   * false: loaded only when a query asks for it, or never shown.
   */
  loaded: boolean;
  /** The field of the JSON representation (REST, webhooks' `data`, pages); absent: not shown. */
  json?: { name: string; schema: z.ZodType; example: unknown };
  /**
   * The GraphQL field of the column's name; absent: not shown. `textCost`: its length counts in
   * a query's cost. `restricted`: shown only to the callers a rule of the object admits (null for
   * the others, so nullable in GraphQL); the object passes the rule (src/schema/core/column-graphql.ts).
   */
  graphql?: { description: string; textCost?: number; restricted?: true };
  /**
   * Written by the table's create and update operations, on every surface; absent: the service
   * sets it. `rule` checks a value, the same on create and update; a nullable column also takes
   * null (none). The descriptions are those of GraphQL's input types, where the table has them.
   */
  write?: {
    rule: z.ZodType;
    /** On create: required, or the default a left-out field takes (neither: optional, none when left out). */
    create: { description?: string; required?: true; default?: string };
    /** On update (absent: fixed once created); a history records the changes of these fields. */
    update?: { description?: string };
  };
}

/** A table's declaration: an entry per field of its model (Prisma's name, camelCase), in the order the representations list them. */
export type TableDeclaration = Readonly<Record<string, ColumnDeclaration>>;

/** The fields of a declaration. */
export type FieldOf<Table extends TableDeclaration> = keyof Table & string;

/** The fields every row of the table is loaded with. */
export type LoadedFieldOf<Table extends TableDeclaration> = {
  [F in FieldOf<Table>]: Table[F]['loaded'] extends true ? F : never;
}[FieldOf<Table>];

/** The fields in declaration order. */
export const fieldsOf = <Table extends TableDeclaration>(table: Table) => Object.keys(table) as FieldOf<Table>[];

/** The fields every row is loaded with, in declaration order. */
export const loadedFieldsOf = <Table extends TableDeclaration>(table: Table) =>
  fieldsOf(table).filter((field) => table[field]!.loaded) as LoadedFieldOf<Table>[];

/** Those as a Prisma selection: the base selection of the table's GraphQL object. */
export const loadedColumnsOf = <Table extends TableDeclaration>(table: Table) =>
  Object.fromEntries(loadedFieldsOf(table).map((field) => [field, true])) as {
    readonly [F in LoadedFieldOf<Table>]: true;
  };

/** The fields the table's create operation writes (`create`) or its update changes (`update`), in declaration order. */
export const writtenFieldsOf = <Table extends TableDeclaration>(table: Table, step: 'create' | 'update') =>
  fieldsOf(table).filter((field) => (step === 'create' ? table[field]!.write : table[field]!.write?.update));
