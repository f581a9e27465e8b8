import { sql, type RawBuilder } from 'kysely';
import type { Issue } from '../../generated/prisma/client.js';
import { declaredSelection } from '../core/column-select.js';
import { ISSUE_TABLE, type IssueField } from './columns.js';

/**
 * The select list of a Kysely statement for issue `fields` of the issues table aliased `alias`
 * (src/schema/core/column-select.ts): `"i"."project_id" as "projectId"`.
 */
export const issueSelection = declaredSelection<Issue>(ISSUE_TABLE);

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
