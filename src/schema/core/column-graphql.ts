import type { FieldOf, TableDeclaration } from './column-declaration.js';
import { column } from './column-fields.js';
import { textCost } from './list-bounds.js';

/**
 * The GraphQL fields of a table's declared columns (src/schema/core/column-declaration.ts): the
 * object's fields of the columns GraphQL shows, and the create and update input types' fields
 * of the written ones.
 */

/** The GraphQL type of each kind of column every table may have; a table with kinds of its own gives theirs. */
const SCALAR_TYPES = { uuid: 'ID', uuids: ['ID'], int: 'Int', text: 'String', time: 'DateTime' } as const;

type KindOf<Table extends TableDeclaration> = Table[FieldOf<Table>]['kind'];
type OwnKind<Table extends TableDeclaration> = Exclude<KindOf<Table>, keyof typeof SCALAR_TYPES>;
type RestrictedFieldOf<Table extends TableDeclaration, Name extends FieldOf<Table>> = {
  [F in Name]: Table[F] extends { graphql: { restricted: true } } ? F : never;
}[Name];

/** Whether the caller may see a restricted field of this row (`row`: the object's parent, `ctx`: the request's context). */
type VisibilityRule = (row: never, ctx: never) => boolean;

/**
 * The GraphQL types of a table's own kinds, and the rule of each restricted field among those
 * named: required where there are any, so a restricted field without its rule does not compile.
 */
type ColumnFieldOptions<Table extends TableDeclaration, Name extends FieldOf<Table>> = ([OwnKind<Table>] extends [never]
  ? { types?: undefined }
  : { types: Record<OwnKind<Table>, unknown> }) &
  ([RestrictedFieldOf<Table, Name>] extends [never]
    ? { rules?: undefined }
    : { rules: { [F in RestrictedFieldOf<Table, Name>]: VisibilityRule } });
type Options<Table extends TableDeclaration, Name extends FieldOf<Table>> =
  object extends ColumnFieldOptions<Table, Name>
    ? [options?: ColumnFieldOptions<Table, Name>]
    : [options: ColumnFieldOptions<Table, Name>];

function graphqlType(kind: string, types: Record<string, unknown> | undefined): unknown {
  const type = types?.[kind] ?? SCALAR_TYPES[kind as keyof typeof SCALAR_TYPES];
  if (!type) throw new Error(`No GraphQL type for the column kind ${kind}.`);
  return type;
}

/**
 * The object's fields of the declared columns that GraphQL shows, among `names`, in their order.
 * A column loaded with every row is a plain field (`column`); another selects its column when a
 * query asks for it; a restricted one answers null to the callers its rule turns away.
 */
export function columnFields<
  Fields extends { field(options: never): unknown },
  Table extends TableDeclaration,
  Name extends FieldOf<Table>,
>(t: Fields, table: Table, names: readonly Name[], ...[options]: Options<Table, Name>) {
  const { types, rules } = (options ?? {}) as {
    types?: Record<string, unknown>;
    rules?: Record<string, VisibilityRule>;
  };
  const fields: Record<string, ReturnType<Fields['field']>> = {};
  for (const name of names) {
    const declared = table[name]!;
    if (!declared.graphql) continue;
    const { description, textCost: maxLength, restricted } = declared.graphql;
    const rule = restricted ? rules?.[name] : undefined;
    if (restricted && !rule) throw new Error(`The restricted field ${name} needs a rule.`);
    const resolve = rule
      ? (row: Record<string, unknown>, _args: unknown, ctx: unknown) =>
          rule(row as never, ctx as never) ? row[name] : null
      : (row: Record<string, unknown>) => row[name];
    const options = {
      type: graphqlType(declared.kind, types),
      nullable: declared.nullable || !!restricted,
      description,
      ...(maxLength ? { complexity: textCost(maxLength) } : {}),
      ...(declared.loaded ? { resolve: rule ? resolve : column(name) } : { select: { [name]: true }, resolve }),
    };
    // Each field's type follows from its declared kind, which the option types cannot follow through the loop.
    fields[name] = t.field(options as never) as ReturnType<Fields['field']>;
  }
  return fields;
}

/** The input type's fields of the written columns (their `write` declarations), in declaration order. */
export function inputFields<Fields extends { field(options: never): unknown }, Table extends TableDeclaration>(
  t: Fields,
  table: Table,
  step: 'create' | 'update',
  ...[options]: Options<Table, never>
) {
  const types = options?.types as Record<string, unknown> | undefined;
  const fields: Record<string, ReturnType<Fields['field']>> = {};
  for (const [name, declared] of Object.entries(table)) {
    const written = declared.write?.[step];
    if (!written) continue;
    const required = 'required' in written && written.required === true;
    // As in columnFields: the type follows from the declared kind, which the option types cannot follow.
    fields[name] = t.field({
      type: graphqlType(declared.kind, types),
      required,
      description: written.description,
    } as never) as ReturnType<Fields['field']>;
  }
  return fields;
}
