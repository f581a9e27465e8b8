import { Prisma } from '../generated/prisma/client.js';
import type { IssueFilterShape } from './issue-filter.js';
import { escapeLike } from './search-text.js';

type Sql = Prisma.Sql;

/**
 * The SQL conditions of a validated issue filter, on the columns of `issues` (AND-ed by the
 * caller), condition for condition the same as `issueFilterWhere` (src/schema/issue-filter.ts).
 *
 * Why a second translation: the aggregates (src/schema/issue-aggregates.ts) group the filtered
 * issues in one statement (GROUPING SETS, weeks by date_trunc), which Prisma's query API cannot
 * express, and Prisma cannot hand out the SQL of a `where`. The property test of
 * test/issue-aggregates.test.ts checks that both translations select the same issues (the
 * counts equal those obtained by paging through the list) over random data and filters.
 * A filter field added to one translation must be added to the other: the test's arbitrary
 * filter lists every field, so it fails until both are.
 */
export function issueFilterSql(filter: IssueFilterShape): Sql[] {
  const where: Sql[] = [];
  if (filter.status) where.push(Prisma.sql`status = ANY(${filter.status}::text[])`);
  if (filter.priority) where.push(Prisma.sql`priority = ANY(${filter.priority}::text[])`);
  if (filter.assigneeId) where.push(filter.assigneeId === 'none' ? Prisma.sql`assignee_id IS NULL` : Prisma.sql`assignee_id = ${filter.assigneeId}::uuid`);
  if (filter.q) {
    const pattern = `%${escapeLike(filter.q)}%`;
    where.push(Prisma.sql`(title ILIKE ${pattern} OR description ILIKE ${pattern})`);
  }
  if (filter.title?.equals) where.push(Prisma.sql`title ILIKE ${escapeLike(filter.title.equals)}`);
  if (filter.title?.contains) where.push(Prisma.sql`title ILIKE ${`%${escapeLike(filter.title.contains)}%`}`);
  if (filter.title?.startsWith) where.push(Prisma.sql`title ILIKE ${`${escapeLike(filter.title.startsWith)}%`}`);
  if (filter.number) {
    const { eq, gt, gte, lt, lte } = filter.number;
    if (eq != null) where.push(Prisma.sql`number = ${eq}`);
    if (gt != null) where.push(Prisma.sql`number > ${gt}`);
    if (gte != null) where.push(Prisma.sql`number >= ${gte}`);
    if (lt != null) where.push(Prisma.sql`number < ${lt}`);
    if (lte != null) where.push(Prisma.sql`number <= ${lte}`);
    if (filter.number.in) where.push(Prisma.sql`number = ANY(${filter.number.in}::int[])`);
  }
  if (filter.createdAfter) where.push(Prisma.sql`created_at > ${filter.createdAfter}::timestamptz`);
  if (filter.createdBefore) where.push(Prisma.sql`created_at < ${filter.createdBefore}::timestamptz`);
  if (filter.updatedAfter) where.push(Prisma.sql`updated_at > ${filter.updatedAfter}::timestamptz`);
  if (filter.updatedBefore) where.push(Prisma.sql`updated_at < ${filter.updatedBefore}::timestamptz`);
  if (filter.and?.length) where.push(all(filter.and.map((f) => all(issueFilterSql(f)))));
  if (filter.or?.length) where.push(Prisma.sql`(${Prisma.join(filter.or.map((f) => all(issueFilterSql(f))), ' OR ')})`);
  if (filter.not) where.push(Prisma.sql`NOT ${all(issueFilterSql(filter.not))}`);
  return where;
}

/** Every condition (Prisma's empty AND, which holds for every row, is TRUE here too). */
export function all(conditions: Sql[]): Sql {
  return conditions.length ? Prisma.sql`(${Prisma.join(conditions, ' AND ')})` : Prisma.sql`TRUE`;
}
