import { parseCursorConnectionArgs } from '@pothos/plugin-relay';
import { z } from 'zod';
import { writeWithEvents } from '../../events/record.js';
import { definedFields, issueChange, lockIssue } from '../../events/subjects.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { NotFoundError } from '../core/errors.js';
import { ISSUE_COLUMNS, type IssueRow } from './columns.js';
import { insertIssue } from './create.js';
import { IssueFilter, issueFilterWhere } from './filter.js';
import { checkAssignee, CreateIssue, UpdateIssue } from './input.js';
import { issueIdOf, issueWhere } from './lookup.js';
import { listBySql, sqlListCovers } from './list.js';
import { IssueOrder, IssueOrderArgs, keysetWhere } from './order.js';
import { optionalProjectIdOf, projectIdOf, projectRef } from '../projects/lookup.js';
import { defineOperation } from '../core/operation.js';
import { nonEmpty, selectionCovered } from '../core/selection.js';
import { activeOrgId } from '../people/viewer.js';

/** The Prisma selection a surface wants for each issue (GraphQL: what the query asks for; REST: its representation). */
export interface IssueQuery {
  select?: Prisma.IssueSelect;
}

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 100;
const PAGE_SIZE_MESSAGE = `must be between 1 and ${PAGE_SIZE_MAX}`;
export const pageSize = z
  .number({ error: PAGE_SIZE_MESSAGE })
  .int(PAGE_SIZE_MESSAGE)
  .min(1, PAGE_SIZE_MESSAGE)
  .max(PAGE_SIZE_MAX, PAGE_SIZE_MESSAGE);

/** `IssueId`: an issue's id or its key (WEB-12, any case). */
const idOrKey = z.string().min(1, 'is required');

/*
 * Edges and page info are class instances, never object literals with getters: each literal
 * `{ get cursor() { ... } }` gives V8 a new accessor pair and closure per object, which stay
 * reachable from V8's own structures until a full collection. Every row of a page would then
 * survive the young generation and be copied into the old one: measured, the REST list's
 * collector time is 14% of its CPU that way (7x the raw baseline's) and near the baseline's with
 * these classes (bench/SUMMARY.md). test/no-literal-accessors.test.ts keeps src/ free of them.
 */

/** An edge whose cursor is encoded only when read. */
class IssueEdge {
  constructor(
    readonly node: IssueRow,
    private readonly order: IssueOrder,
  ) {}
  get cursor(): string {
    return this.order.cursorOf(this.node);
  }
}

/** Relay's page info, its cursors encoded only when read; `fallback`: the cursor an empty page answers with. */
class IssuePageInfo {
  constructor(
    private readonly nodes: IssueRow[],
    private readonly order: IssueOrder,
    private readonly fallback: string,
    readonly hasPreviousPage: boolean,
    readonly hasNextPage: boolean,
  ) {}
  get startCursor(): string {
    return this.cursorAt(0);
  }
  get endCursor(): string {
    return this.cursorAt(this.nodes.length - 1);
  }
  private cursorAt(i: number): string {
    const node = this.nodes[i];
    return node ? this.order.cursorOf(node) : this.fallback;
  }
}

export const listIssues = defineOperation({
  name: 'listIssues',
  description:
    'Issues of the organization (of one project when projectId is given), filtered by `filter`, ' +
    `in the order of \`orderBy\` (newest first by default), at most ${PAGE_SIZE_MAX} per page.`,
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({
    projectId: projectRef.nullish(),
    filter: IssueFilter.nullish(),
    orderBy: IssueOrderArgs.nullish(),
    first: pageSize.nullish(),
    last: pageSize.nullish(),
    after: z.string().nullish(),
    before: z.string().nullish(),
  }),
  async run(ctx, input, query: IssueQuery) {
    const orgId = activeOrgId(ctx);
    const args = { ...input, projectId: await optionalProjectIdOf(ctx.prisma, orgId, input.projectId) };
    const order = new IssueOrder(args.orderBy);
    // Prisma's conditions, built only where Prisma runs (the list's findMany, totalCount).
    const matching = (): Prisma.IssueWhereInput[] => [
      { orgId },
      ...(args.filter ? issueFilterWhere(args.filter) : []),
      ...(args.projectId ? [{ projectId: args.projectId }] : []),
    ];
    const { before, after, limit, inverted, expectedSize, hasPreviousPage, hasNextPage } = parseCursorConnectionArgs({
      args,
      defaultSize: PAGE_SIZE_DEFAULT,
      maxSize: PAGE_SIZE_MAX,
    });
    const seeks = [...(after ? [order.seek(after, 'after')] : []), ...(before ? [order.seek(before, 'before')] : [])];
    const issues = sqlListCovers(query.select)
      ? await listBySql(ctx, {
          orgId,
          projectId: args.projectId,
          filter: args.filter,
          order: order.sortKeys(inverted),
          seeks,
          take: limit,
          select: query.select,
        })
      : await ctx.prisma.issue.findMany({
          // Every column (the cursors are made of the sort keys), whatever the surface asks for.
          select: { ...query.select, ...ISSUE_COLUMNS },
          where: { AND: [...matching(), ...seeks.map(keysetWhere)] },
          orderBy: order.orderBy(inverted),
          take: limit,
        });
    // Only an empty page needs to tell "no issues yet" from "no such project here".
    if (args.projectId && issues.length === 0) {
      const project = await ctx.prisma.project.findFirst({
        where: { id: args.projectId, orgId },
        select: { id: true },
      });
      if (!project) throw new NotFoundError('project');
    }
    const nodes = issues.slice(0, expectedSize);
    if (inverted) nodes.reverse();
    // Relay's connection (what resolveCursorConnection builds), with each cursor made when it is
    // read: a REST page reads only the last one, a GraphQL query only those it selects, and
    // encoding a cursor for each of 100 rows would cost 7% of a REST page's CPU.
    const page = {
      edges: nodes.map((node) => new IssueEdge(node, order)),
      pageInfo: new IssuePageInfo(
        nodes,
        order,
        args.after ?? args.before ?? '',
        hasPreviousPage(issues.length),
        hasNextPage(issues.length),
      ),
    };
    // Counted only when a surface calls it (GraphQL: when `totalCount` is selected).
    return { ...page, totalCount: () => ctx.prisma.issue.count({ where: { AND: matching() } }) };
  },
});

export const getIssue = defineOperation({
  name: 'getIssue',
  description: "One issue of the caller's organization, by id or by key (WEB-12); NOT_FOUND for any other.",
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({ id: idOrKey }),
  async run(ctx, { id }, query: IssueQuery) {
    const issue = await ctx.prisma.issue.findFirst({ ...query, where: issueWhere(activeOrgId(ctx), id) });
    if (!issue) throw new NotFoundError('issue');
    return issue;
  },
});

export const createIssue = defineOperation({
  name: 'createIssue',
  description: 'Creates an issue, numbered next in its project. Needs the role member or above.',
  kind: 'write',
  access: { role: 'member' },
  input: CreateIssue,
  async run(ctx, input, query: IssueQuery) {
    const orgId = activeOrgId(ctx);
    const issue = await insertIssue(ctx, orgId, {
      ...input,
      projectId: await projectIdOf(ctx.prisma, orgId, input.projectId),
    });
    // The written row answers the usual selections (every column and the key); relations are read.
    if (selectionCovered(query.select, issue)) return issue;
    return ctx.prisma.issue.findUniqueOrThrow({ ...query, where: { id: issue.id } });
  },
});

export const updateIssue = defineOperation({
  name: 'updateIssue',
  description: 'Changes an issue (by id or key). Needs the role member or above.',
  kind: 'write',
  access: { role: 'member' },
  input: UpdateIssue.extend({ id: idOrKey }),
  async run(ctx, { id: idOrKeyValue, ...input }, query: IssueQuery) {
    const orgId = activeOrgId(ctx);
    const id = await issueIdOf(ctx.prisma, orgId, idOrKeyValue);
    await checkAssignee(ctx.prisma, orgId, input.assigneeId);
    const { result } = await writeWithEvents(ctx, orgId, async (tx) => {
      const before = await lockIssue(tx, orgId, id);
      if (!before) throw new NotFoundError('issue');
      // The time is set here, not by Prisma, so the webhook payload shows the one written.
      const data = { ...definedFields(input), updatedAt: new Date() };
      const issue = await tx.issue.update({ ...nonEmpty(query), where: { id, orgId }, data });
      return { result: issue, changes: [issueChange('issue.updated', before, { ...before, ...data })] };
    });
    return result;
  },
});

export const deleteIssue = defineOperation({
  name: 'deleteIssue',
  description:
    'Deletes an issue (by id or key) and returns its id. Needs the role manager or above: members cancel issues instead.',
  kind: 'write',
  access: { role: 'manager' },
  input: z.strictObject({ id: idOrKey }),
  async run(ctx, { id: idOrKeyValue }) {
    const orgId = activeOrgId(ctx);
    const id = await issueIdOf(ctx.prisma, orgId, idOrKeyValue);
    await writeWithEvents(ctx, orgId, async (tx) => {
      const before = await lockIssue(tx, orgId, id);
      if (!before) throw new NotFoundError('issue');
      await tx.issue.delete({ where: { id }, select: { id: true } });
      return { result: id, changes: [issueChange('issue.deleted', before, null)] };
    });
    return id;
  },
});
