import { sql, type Expression, type SqlBool } from 'kysely';
import { all, any } from '../../db/sql-conditions.js';
import { compileFilter, type FilterTarget, type IssueFilterShape } from './filter.js';

/**
 * The issue filter in SQL, for the statements Prisma's query API cannot write: the issue list's
 * hand-written statement (src/schema/issues/list-sql.ts) and the aggregates, which group the
 * filtered issues in one statement (GROUPING SETS) and also filter the counts the database keeps
 * (issue_counts, whose columns have the issues' names). The same entries and the same rules for
 * empty branches as the Prisma `where` (src/schema/issues/filter.ts); the property tests compare
 * both over random issues and filters on both databases.
 */

const targetOn = (alias: string): FilterTarget<Expression<SqlBool>> => ({
  conditions: (entry, value) => entry.sql(value, alias),
  all: (branches) => all(branches.map(all)),
  any: (branches) => any(branches.map(all)),
  none: (conditions) => sql<SqlBool>`NOT (${all(conditions)})`,
  never: sql<SqlBool>`FALSE`,
});

/** The conditions of a validated filter on the table aliased `alias` (AND-ed by the caller); none when it holds for every issue. */
export function issueFilterConditions(filter: IssueFilterShape, alias: string): Expression<SqlBool>[] {
  return compileFilter(filter, targetOn(alias));
}
