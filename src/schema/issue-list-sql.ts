import { sqlStatement, type SqlStatement } from '../db/direct-sql.js';
import { Prisma } from '../generated/prisma/client.js';
import type { IssueFilterShape } from './issue-filter.js';
import type { SeekKey } from './issue-order.js';
import { escapeLike } from './search-text.js';

/**
 * The issue list as one hand-written statement, for DirectSql (src/db/direct-sql.ts): the
 * same conditions, order and keyset as the Prisma query of `listIssues`, which it replaces when
 * the caller asks for nothing but the issue's own columns and its project's key (the REST list,
 * and GraphQL lists that select no other relation). Each function here mirrors one in
 * issue-filter.ts or issue-order.ts; test/issue-list-sql.test.ts runs both over the same
 * generated filters, orders and cursors, on both databases, and compares the rows.
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
const ilike = (column: Sql, pattern: string) => sql`${column} ILIKE ${pattern}`;
const all = (conditions: Sql[]) => (conditions.length === 1 ? conditions[0]! : join(conditions, ' AND ', '(', ')'));
const INT8 = raw('::int8');

/** The conditions of a validated filter (AND-ed by the caller): issueFilterWhere, in SQL. */
function filterConditions(filter: IssueFilterShape): Sql[] {
  const where: Sql[] = [];
  if (filter.status) where.push(oneOf(sql`i.status`, filter.status));
  if (filter.priority) where.push(oneOf(sql`i.priority`, filter.priority));
  if (filter.assigneeId) where.push(filter.assigneeId === 'none' ? sql`i.assignee_id IS NULL` : sql`i.assignee_id = ${filter.assigneeId}::uuid`);
  if (filter.q) {
    const pattern = `%${escapeLike(filter.q)}%`;
    where.push(sql`(${ilike(sql`i.title`, pattern)} OR ${ilike(sql`i.description`, pattern)})`);
  }
  if (filter.title?.equals) where.push(ilike(sql`i.title`, escapeLike(filter.title.equals)));
  if (filter.title?.contains) where.push(ilike(sql`i.title`, `%${escapeLike(filter.title.contains)}%`));
  if (filter.title?.startsWith) where.push(ilike(sql`i.title`, `${escapeLike(filter.title.startsWith)}%`));
  if (filter.number) {
    const { eq, gt, gte, lt, lte } = filter.number;
    if (eq != null) where.push(sql`i.number = ${eq}::int8`);
    if (gt != null) where.push(sql`i.number > ${gt}::int8`);
    if (gte != null) where.push(sql`i.number >= ${gte}::int8`);
    if (lt != null) where.push(sql`i.number < ${lt}::int8`);
    if (lte != null) where.push(sql`i.number <= ${lte}::int8`);
    if (filter.number.in) where.push(oneOf(sql`i.number`, filter.number.in, INT8));
  }
  if (filter.createdAfter) where.push(sql`i.created_at > ${time(filter.createdAfter)}`);
  if (filter.createdBefore) where.push(sql`i.created_at < ${time(filter.createdBefore)}`);
  if (filter.updatedAfter) where.push(sql`i.updated_at > ${time(filter.updatedAfter)}`);
  if (filter.updatedBefore) where.push(sql`i.updated_at < ${time(filter.updatedBefore)}`);
  // The empty-branch rules of issueFilterWhere: a branch without conditions holds for every issue.
  if (filter.and?.length) {
    const branches = filter.and.map(filterConditions).filter((branch) => branch.length > 0);
    if (branches.length) where.push(all(branches.map(all)));
  }
  if (filter.or?.length) {
    const branches = filter.or.map(filterConditions);
    if (branches.every((branch) => branch.length > 0)) where.push(join(branches.map(all), ' OR ', '(', ')'));
  }
  if (filter.not) {
    const negated = filterConditions(filter.not);
    where.push(negated.length ? sql`NOT ${all(negated)}` : sql`FALSE`);
  }
  return where;
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
  if (query.filter) where.push(...filterConditions(query.filter));
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
