import { sql as kysely, type Expression, type SqlBool } from 'kysely';
import { sqlStatement, type SqlStatement } from '../db/direct-sql.js';
import { builder } from '../db/sql-builder.js';
import { Prisma } from '../generated/prisma/client.js';
import type { IssueFilterShape } from './issue-filter.js';
import { issueFilterConditions } from './issue-filter-sql.js';
import type { SeekKey } from './issue-order.js';

/**
 * The issue list as one hand-written statement, for DirectSql (src/db/direct-sql.ts): the
 * same conditions, order and keyset as the Prisma query of `listIssues`, which it replaces when
 * the caller asks for nothing but the issue's own columns and its project's key (the REST list,
 * and GraphQL lists that select no other relation). The filter's conditions are the filter's SQL
 * (issue-filter-sql.ts); each function here mirrors one in issue-order.ts. test/hand-written-sql.test.ts
 * runs both over the same generated filters, orders and cursors, on both databases, and compares the rows.
 */

const { sql, join, raw, empty } = Prisma;
type Sql = Prisma.Sql;

// Fragments are Prisma's SQL template tags: values become bind parameters, numbered only when
// the whole statement is put together, so a fragment left out (an OR with a branch that holds
// for every issue) leaves no parameter behind.

/** `column IN (...)`; an empty list holds for no row, as Prisma reads `in: []`. */
const oneOf = (column: Sql, values: readonly (string | number)[], cast: Sql = empty) =>
  values.length ? sql`${column} IN (${join(values.map((v) => sql`${v}${cast}`))})` : sql`FALSE`;
const time = (value: Date) => sql`${value.toISOString()}::timestamptz`;
const all = (conditions: Sql[]) => (conditions.length === 1 ? conditions[0]! : join(conditions, ' AND ', '(', ')'));

/**
 * A Kysely condition as a fragment of this statement: its text split at its `$n` placeholders,
 * which Prisma numbers again when the statement is put together.
 */
function fragment(condition: Expression<SqlBool>): Sql {
  const { sql: text, parameters } = kysely`${condition}`.compile(builder);
  return new Prisma.Sql(text.split(/\$\d+/), parameters as unknown[]);
}

/** A sort key's column: statuses and priorities by their place in the workflow (joined tables, as Prisma's orderBy). */
const ORDER_COLUMN: Record<SeekKey['name'], Sql> = {
  createdAt: raw('i.created_at'),
  updatedAt: raw('i.updated_at'),
  title: raw('i.title'),
  id: raw('i.id'),
  status: raw('st.position'),
  priority: raw('pr.position'),
};
const VALUE_COLUMN: Record<SeekKey['name'], Sql> = { ...ORDER_COLUMN, status: raw('i.status'), priority: raw('i.priority') };

function keyValue(name: SeekKey['name'], value: Date | string): Sql {
  if (value instanceof Date) return time(value);
  return name === 'id' ? sql`${value}::uuid` : sql`${value}`;
}

/** Rows strictly after a cursor's row: the keyset condition of keysetWhere (issue-order.ts), in SQL. */
function seekCondition(keys: SeekKey[]): Sql {
  const branches = keys.map((key, i) => {
    const equal = keys.slice(0, i).map((k) => sql`${VALUE_COLUMN[k.name]} = ${keyValue(k.name, k.value)}`);
    const column = VALUE_COLUMN[key.name];
    const past = key.workflowPast ? oneOf(column, key.workflowPast) : sql`${column} ${raw(key.desc ? '<' : '>')} ${keyValue(key.name, key.value)}`;
    return all([...equal, past]);
  });
  return join(branches, ' OR ', '(', ')');
}

export interface IssueListQuery {
  orgId: string;
  projectId?: string | null;
  filter?: IssueFilterShape | null;
  /** The sort keys in reading order (already reversed for a page read backwards). */
  order: { name: SeekKey['name']; desc: boolean }[];
  /** Keyset conditions from the cursors (`after` and `before`). */
  seeks: SeekKey[][];
  take: number;
  /** Also the description and the project's key, when the caller shows them. */
  description: boolean;
  projectKey: boolean;
}

/** The statement; its rows have the columns of ISSUE_COLUMNS (camelCase), and `description` and `project: { key }` when asked for. */
export function issueListStatement(query: IssueListQuery): SqlStatement {
  const where = [sql`i.org_id = ${query.orgId}::uuid`];
  if (query.projectId) where.push(sql`i.project_id = ${query.projectId}::uuid`);
  if (query.filter) where.push(...issueFilterConditions(query.filter, 'i').map(fragment));
  where.push(...query.seeks.map(seekCondition));
  const joins: Sql[] = [];
  if (query.order.some((k) => k.name === 'status')) joins.push(sql`JOIN issue_statuses st ON st.name = i.status`);
  if (query.order.some((k) => k.name === 'priority')) joins.push(sql`JOIN issue_priorities pr ON pr.name = i.priority`);
  if (query.projectKey) joins.push(sql`JOIN projects p ON p.org_id = i.org_id AND p.id = i.project_id`);
  const columns = [
    'i.id',
    'i.project_id AS "projectId"',
    'i.number',
    'i.title',
    'i.status',
    'i.priority',
    'i.assignee_id AS "assigneeId"',
    'i.created_at AS "createdAt"',
    'i.updated_at AS "updatedAt"',
    ...(query.description ? ['i.description'] : []),
    // As Prisma gives a selected relation (the drivers parse json).
    ...(query.projectKey ? ["json_build_object('key', p.key) AS project"] : []),
  ];
  const orderBy = join(query.order.map((k) => sql`${ORDER_COLUMN[k.name]} ${raw(k.desc ? 'DESC' : 'ASC')}`), ', ');
  const statement = sql`SELECT ${raw(columns.join(', '))} FROM issues i ${joins.length ? join(joins, ' ') : empty} WHERE ${join(where, ' AND ')} ORDER BY ${orderBy} LIMIT ${query.take}`;
  return sqlStatement(statement);
}
