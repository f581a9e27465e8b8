import type { Context } from '../../context.js';
import { directSql } from '../../db/direct-sql.js';
import { rowsOf } from '../../db/sql-builder.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { ISSUE_COLUMNS } from './columns.js';
import { issueListStatement, type IssueListQuery } from './list-sql.js';
import { selectionCovered } from '../core/selection.js';
import { issueLabelsCovered } from '../labels/issue-labels.js';
import { pageLabels } from '../labels/page-labels.js';

/** What the hand-written list statement can give each issue: its columns, the description and the project's key (and the labels). */
const SQL_ROW_SHAPE = { ...ISSUE_COLUMNS, description: true, project: { key: true } };

/** Whether the list statement answers this selection (else Prisma's findMany, which loads relations too). */
export function sqlListCovers(select: Prisma.IssueSelect | undefined): boolean {
  if (select === undefined) return false;
  const { labels, ...others } = select;
  // `project: true` would ask for every column of the project, not only its key.
  return (
    select.project !== true &&
    issueLabelsCovered(labels) &&
    selectionCovered(others as Record<string, unknown>, SQL_ROW_SHAPE)
  );
}

/** One page of issues through DirectSql, shaped as Prisma's findMany would give it. */
export async function listBySql(
  ctx: Context,
  query: Omit<IssueListQuery, 'description' | 'projectKey' | 'labels'> & { select: Prisma.IssueSelect | undefined },
) {
  const { select, ...rest } = query;
  const statement = issueListStatement({
    ...rest,
    description: Boolean(select?.description),
    projectKey: Boolean(select?.project),
    labels: Boolean(select?.labels),
  });
  const db = directSql(ctx.prisma);
  const rows = await rowsOf(db, statement);
  return select?.labels ? pageLabels(db, query.orgId, rows as ((typeof rows)[number] & { labels: string })[]) : rows;
}
