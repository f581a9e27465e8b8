import { sql, type AliasedRawBuilder, type RawBuilder } from 'kysely';
import type { Issue } from '../../generated/prisma/client.js';
import { ISSUE_TABLE, type IssueField } from './columns.js';

/** One selected column, typed as Prisma types the field (a union over the fields, so each keeps its own type). */
type Selected<F extends IssueField> = { [K in F]: AliasedRawBuilder<Issue[K], K> }[F];

/**
 * The select list of a Kysely statement for issue `fields` of the issues table aliased `alias`,
 * from the column declaration: `"i"."project_id" as "projectId"`, so that the rows have Prisma's
 * field names and types. `uuidAsText`: uuid columns cast to text, for statements sent through
 * Prisma's `$queryRawUnsafe`, which answers a uuid column in its own form.
 */
export function issueSelection<F extends IssueField>(
  alias: string,
  fields: readonly F[],
  { uuidAsText = false } = {},
): Selected<F>[] {
  return fields.map((field) => {
    const { column, kind } = ISSUE_TABLE[field];
    const ref = sql.ref(`${alias}.${column}`);
    return (uuidAsText && kind === 'uuid' ? sql`${ref}::text` : ref).as(field) as Selected<F>;
  });
}

/** `alias.column` references, made once: a reference parses its text, which costs more than the rest of a condition. */
const references = new Map<string, RawBuilder<unknown>>();

/** A column qualified by an alias, as an expression (`sqlColumn('i', 'org_id')`). */
export function sqlColumn(alias: string, column: string): RawBuilder<unknown> {
  const name = `${alias}.${column}`;
  let reference = references.get(name);
  if (!reference) {
    reference = sql.ref(name);
    references.set(name, reference);
  }
  return reference;
}

/** The SQL column of an issue field, qualified by `alias`, as an expression. */
export const issueColumn = (alias: string, field: IssueField) => sqlColumn(alias, ISSUE_TABLE[field].column);
