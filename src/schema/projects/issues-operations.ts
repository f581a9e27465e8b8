import { prismaConnectionHelpers } from '@pothos/plugin-prisma';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { directSql } from '../../db/direct-sql.js';
import { rowsOf } from '../../db/sql-builder.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { builder } from '../core/builder.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, type IssueQuery } from '../issues/operations.js';
import { defineOperation } from '../core/operation.js';
import {
  countStatement,
  issueFromRow,
  pageShape,
  pageStatement,
  type PageArgs,
  type PageRow,
  type ReadableOrgs,
} from './issues-sql.js';
import { uuid } from '../core/uuid.js';
import { viewer } from '../people/viewer.js';

/**
 * Project.issues for every project of a request at once (the GraphQL field batches its parents,
 * src/schema/projects/project.ts): one statement for the pages, one for the counts when asked for.
 */

/**
 * The organizations the caller reads in: the one a key or token is bound to (or the console's),
 * else every organization the user is a member of now, as `memberships` lists them.
 */
function readableOrgs(ctx: Context): ReadableOrgs {
  if (ctx.principal.kind === 'operator') return ctx.principal.org ? { org: ctx.principal.org.id } : null;
  const me = viewer(ctx);
  if (me.orgBound) return me.org ? { org: me.org.id } : null;
  return { memberOf: me.userId };
}

/**
 * Relay's arguments read as Pothos' prisma plugin reads them for a related connection (the
 * field's behaviour before it was batched): the same defaults, bounds, errors and cursors.
 */
const paging = prismaConnectionHelpers(builder, 'Issue', {
  cursor: 'id',
  defaultSize: PAGE_SIZE_DEFAULT,
  maxSize: PAGE_SIZE_MAX,
});

/** The page Relay's arguments ask for (Prisma's take, skip and cursor), or Pothos' error for arguments it refuses. */
export function pageArgs(
  ctx: Context,
  args: { first?: number | null; last?: number | null; after?: string | null; before?: string | null },
): PageArgs {
  return paging.getQuery(args, ctx, () => true) as PageArgs;
}

const ProjectIssuesInput = z.strictObject({
  projectIds: z.array(uuid),
  first: z.number().int().nullish(),
  last: z.number().int().nullish(),
  after: z.string().nullish(),
  before: z.string().nullish(),
});

/**
 * What a surface wants of each issue: the Prisma selection (GraphQL: the query's plan), and the
 * names of the Issue fields it will read (absent: all of them), which decide the columns loaded.
 */
export interface ProjectIssuesQuery extends IssueQuery {
  fields?: ReadonlySet<string> | null;
  /** The fields it will read of a relation (absent: all of them). */
  relationFields?: Partial<Record<'assignee', ReadonlySet<string> | null>>;
}

/** One project's page: its issues in the page's order (newest first), and whether more lie either side. */
export interface ProjectIssuePage {
  nodes: PageRow[];
  hasPreviousPage: boolean;
  hasNextPage: boolean;
}

export const listProjectIssues = defineOperation({
  name: 'listProjectIssues',
  description:
    `One page of the issues of each given project, newest first (${PAGE_SIZE_DEFAULT} by default, at most ${PAGE_SIZE_MAX}); ` +
    'projects of organizations the caller does not read in have none.',
  kind: 'read',
  access: {},
  input: ProjectIssuesInput,
  async run(ctx, { projectIds, ...args }, query: ProjectIssuesQuery): Promise<Map<string, ProjectIssuePage>> {
    const page = pageArgs(ctx, args);
    const shape = pageShape(query.select, query.fields ?? null, query.relationFields);
    const rows = await rowsOf(directSql(ctx.prisma), pageStatement(projectIds, readableOrgs(ctx), page, shape));
    const byProject = new Map<string, PageRow[]>();
    const issues: PageRow[] = [];
    const toIssue = issueFromRow(shape);
    for (const row of rows) {
      const projectId = projectIds[row.pageOf - 1]!;
      const issue = toIssue(row);
      issues.push(issue);
      const list = byProject.get(projectId);
      if (list) list.push(issue);
      else byProject.set(projectId, [issue]);
    }
    if (shape.rest && issues.length) await addRest(ctx, issues, shape.rest);
    const pages = new Map<string, ProjectIssuePage>();
    for (const id of projectIds) pages.set(id, pageOf(byProject.get(id) ?? [], args, page.take));
    return pages;
  },
});

/** What the statement cannot load (deeper relations), read by Prisma for the page's issues at once. */
async function addRest(ctx: Context, issues: PageRow[], rest: Prisma.IssueSelect): Promise<void> {
  const loaded = await ctx.prisma.issue.findMany({
    where: { id: { in: issues.map((issue) => issue.id) } },
    select: { ...rest, id: true },
  });
  const byId = new Map(loaded.map((row) => [row.id, row as Record<string, unknown>]));
  for (const issue of issues) {
    const row = byId.get(issue.id);
    if (row) for (const field of Object.keys(rest)) issue[field] = row[field];
  }
}

/** Pothos' `wrapConnectionResult`: the extra row read to learn whether more follow is dropped here. */
function pageOf(
  rows: PageRow[],
  args: { after?: string | null; before?: string | null; last?: number | null },
  take: number,
): ProjectIssuePage {
  const full = rows.length === Math.abs(take);
  const backwards = args.before != null || args.last != null;
  return {
    nodes: full ? rows.slice(take < 0 ? 1 : 0, take < 0 ? rows.length : -1) : rows,
    hasNextPage: args.before != null ? true : args.last != null ? false : full,
    hasPreviousPage: args.after != null ? true : backwards ? full : false,
  };
}

export const countProjectIssues = defineOperation({
  name: 'countProjectIssues',
  description:
    'How many issues each given project holds; projects of organizations the caller does not read in hold none.',
  kind: 'read',
  access: {},
  input: z.strictObject({ projectIds: z.array(uuid) }),
  async run(ctx, { projectIds }): Promise<Map<string, number>> {
    const rows = await rowsOf(directSql(ctx.prisma), countStatement(projectIds, readableOrgs(ctx)));
    const counts = new Map(rows.map((row) => [row.id, row.count]));
    return new Map(projectIds.map((id) => [id, counts.get(id) ?? 0]));
  },
});
