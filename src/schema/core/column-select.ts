import { sql, type AliasedRawBuilder } from 'kysely';
import type { ColumnDeclaration } from './column-declaration.js';

/** One selected column, typed as Prisma types the field (a union over the fields, so each keeps its own type). */
type Selected<Model, F extends keyof Model & string> = { [K in F]: AliasedRawBuilder<Model[K], K> }[F];

/**
 * The select list of a Kysely statement for `fields` of a table aliased `alias`, from the table's
 * column declaration (src/schema/core/column-declaration.ts): `"i"."project_id" as "projectId"`,
 * so that the rows have Prisma's field names and types. `uuidAsText`: uuid columns cast to text (uuid[] to text[]),
 * for statements sent through Prisma's `$queryRawUnsafe`, which answers a uuid column in its own form.
 */
export function declaredSelection<Model>(table: { readonly [F in keyof Model]: ColumnDeclaration }) {
  return <F extends keyof Model & string>(
    alias: string,
    fields: readonly F[],
    { uuidAsText = false } = {},
  ): Selected<Model, F>[] =>
    fields.map((field) => {
      const { column, kind } = table[field];
      const ref = sql.ref(`${alias}.${column}`);
      const cast =
        uuidAsText && kind === 'uuid' ? sql`${ref}::text` : uuidAsText && kind === 'uuids' ? sql`${ref}::text[]` : ref;
      return cast.as(field) as Selected<Model, F>;
    });
}
