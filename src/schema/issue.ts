import { queryFromInfo } from '@pothos/plugin-prisma';
import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { NodeRef } from './node.js';
import { ISSUE_COLUMNS, type IssueRow } from './issue-columns.js';
import { NotFoundError, ValidationError } from './errors.js';
import { insertIssue } from './issue-create.js';
import { checkAssignee, CreateIssue, UpdateIssue } from './issue-input.js';
import { IssueFilter, IssueFilterInput, issueFilterWhere } from './issue-filter.js';
import { issueIdOf, issueWhere } from './issue-lookup.js';
import { IssueOrder, IssueOrderInput } from './issue-order.js';
import { nonEmpty, selectionCovered } from './selection.js';
import { uuid } from './uuid.js';
import { validate } from './validate.js';
import { activeOrgId } from './viewer.js';
import { DEFAULT_PRIORITY, DEFAULT_STATUS, ISSUE_PRIORITIES, ISSUE_STATUSES } from './workflow.js';

export const IssueRef = builder.prismaObject('Issue', {
  interfaces: [NodeRef],
  // Every row is loaded with its short columns (every list shows most of them); the description
  // and the relations are loaded only when a query asks for them. The columns are plain fields,
  // not `t.expose*`: in select mode Pothos tracks an exposed field's selection on every row it
  // resolves, which cost more CPU than the whole query on a 100-issue page.
  select: ISSUE_COLUMNS,
  fields: (t) => ({
    id: t.exposeID('id'),
    key: t.string({
      description: 'The human key: project key and number, e.g. WEB-12.',
      // Selected with the issue (a join in the same statement), so a list costs no extra query.
      select: { project: { select: { key: true } } },
      resolve: (issue) => `${issue.project.key}-${issue.number}`,
    }),
    projectId: t.id({ resolve: (issue) => issue.projectId }),
    number: t.int({ description: 'Sequence number within the project (the 123 of KEY-123).', resolve: (issue) => issue.number }),
    title: t.string({ resolve: (issue) => issue.title }),
    status: t.string({ description: `One of: ${ISSUE_STATUSES.join(', ')}.`, resolve: (issue) => issue.status }),
    priority: t.string({ description: `One of: ${ISSUE_PRIORITIES.join(', ')}.`, resolve: (issue) => issue.priority }),
    description: t.string({ nullable: true, select: { description: true }, resolve: (issue) => issue.description }),
    assigneeId: t.id({ nullable: true, resolve: (issue) => issue.assigneeId }),
    createdAt: t.field({ type: 'DateTime', resolve: (issue) => issue.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (issue) => issue.updatedAt }),
    project: t.relation('project'),
    assignee: t.relation('assignee', { nullable: true }),
  }),
});

builder.queryField('issueStatuses', (t) =>
  t.stringList({ description: 'Allowed issue statuses, in workflow order.', resolve: () => [...ISSUE_STATUSES] }),
);
builder.queryField('issuePriorities', (t) =>
  t.stringList({ description: 'Allowed issue priorities, most urgent first.', resolve: () => [...ISSUE_PRIORITIES] }),
);

builder.queryField('issue', (t) =>
  t.prismaField({
    type: 'Issue',
    description: "One issue of the caller's organization, by id or by key (WEB-12); NOT_FOUND for any other.",
    authScopes: { role: 'viewer' },
    args: { id: t.arg.id({ required: true, description: 'The id or the key.' }) },
    resolve: async (query, _root, args, ctx) => {
      const issue = await ctx.prisma.issue.findFirst({ ...query, where: issueWhere(activeOrgId(ctx), args.id) });
      if (!issue) throw new NotFoundError('issue');
      return issue;
    },
  }),
);

const pageSize = z.number().int().min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100').optional();
const ListArgs = z.object({
  projectId: uuid.optional(),
  first: pageSize,
  last: pageSize,
  filter: IssueFilter.nullish(),
});

builder.queryField('issues', (t) =>
  t.connection({
    type: IssueRef,
    description:
      'Issues of the organization (of one project when projectId is given), filtered by `filter`, ' +
      'in the order of `orderBy` (newest first by default), at most 100 per page.',
    authScopes: { role: 'viewer' },
    args: {
      projectId: t.arg.id({ required: false }),
      filter: t.arg({ type: IssueFilterInput, required: false }),
      orderBy: t.arg({ type: IssueOrderInput, required: false }),
    },
    resolve: (_root, args, ctx, info) => {
      const orgId = activeOrgId(ctx);
      const order = new IssueOrder(args.orderBy);
      return resolveCursorConnection<Promise<IssueRow[]>>(
        { args, defaultSize: 50, maxSize: 100, toCursor: (issue) => order.cursorOf(issue) },
        // Runs after the connection arguments' own checks (a negative `first` is refused there).
        async ({ after, before, limit, inverted }): Promise<IssueRow[]> => {
          const { projectId, filter } = validate(ListArgs, {
            projectId: args.projectId ?? undefined,
            first: args.first ?? undefined,
            last: args.last ?? undefined,
            filter: args.filter,
          });
          const where: Prisma.IssueWhereInput[] = [{ orgId }, ...(filter ? issueFilterWhere(filter) : [])];
          if (projectId) where.push({ projectId });
          if (after) where.push(order.seek(after, 'after'));
          if (before) where.push(order.seek(before, 'before'));
          const query = queryFromInfo({ context: ctx, info, path: ['edges', 'node'] });
          const issues = await ctx.prisma.issue.findMany({
            // Every column (the cursors are made of the sort keys), whatever the query asks for.
            ...query,
            select: { ...query.select, ...ISSUE_COLUMNS },
            where: { AND: where },
            orderBy: order.orderBy(inverted),
            take: limit,
          });
          // Only an empty page needs to tell "no issues yet" from "no such project here".
          if (projectId && issues.length === 0) {
            const project = await ctx.prisma.project.findFirst({ where: { id: projectId, orgId }, select: { id: true } });
            if (!project) throw new NotFoundError('project');
          }
          return issues;
        },
      );
    },
  }),
);

const CreateIssueInput = builder.inputType('CreateIssueInput', {
  fields: (t) => ({
    projectId: t.id(),
    title: t.string(),
    status: t.string({ required: false, description: `Default ${DEFAULT_STATUS}.` }),
    priority: t.string({ required: false, description: `Default ${DEFAULT_PRIORITY}.` }),
    description: t.string({ required: false }),
    assigneeId: t.id({ required: false, description: 'A member of the organization.' }),
  }),
});

builder.mutationField('createIssue', (t) =>
  t.prismaField({
    type: 'Issue',
    description: 'Creates an issue, numbered next in its project. Needs the role member or above.',
    authScopes: { role: 'member' },
    errors: { types: [ValidationError, NotFoundError] },
    args: { input: t.arg({ type: CreateIssueInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const orgId = activeOrgId(ctx);
      const input = validate(CreateIssue, {
        ...args.input,
        status: args.input.status ?? undefined,
        priority: args.input.priority ?? undefined,
      });
      const issue = await insertIssue(ctx.prisma, orgId, input);
      // The written row answers the usual selections (every column and the key); relations are read.
      if (selectionCovered(query.select, issue)) return issue;
      return ctx.prisma.issue.findUniqueOrThrow({ ...query, where: { id: issue.id } });
    },
  }),
);

const UpdateIssueInput = builder.inputType('UpdateIssueInput', {
  description: 'Fields left out stay as they are; null clears description and assigneeId (and is refused for the others).',
  fields: (t) => ({
    title: t.string({ required: false }),
    status: t.string({ required: false }),
    priority: t.string({ required: false }),
    description: t.string({ required: false }),
    assigneeId: t.id({ required: false, description: 'A member of the organization.' }),
  }),
});

builder.mutationField('updateIssue', (t) =>
  t.prismaField({
    type: 'Issue',
    description: 'Changes an issue (by id or key). Needs the role member or above.',
    authScopes: { role: 'member' },
    errors: { types: [ValidationError, NotFoundError] },
    args: { id: t.arg.id({ required: true, description: 'The id or the key.' }), input: t.arg({ type: UpdateIssueInput, required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const orgId = activeOrgId(ctx);
      const input = validate(UpdateIssue, args.input);
      const id = await issueIdOf(ctx.prisma, orgId, args.id);
      await checkAssignee(ctx.prisma, orgId, input.assigneeId);
      try {
        return await ctx.prisma.issue.update({ ...nonEmpty(query), where: { id, orgId }, data: input });
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') throw new NotFoundError('issue');
        throw error;
      }
    },
  }),
);

builder.mutationField('deleteIssue', (t) =>
  t.field({
    type: 'ID',
    description: 'Deletes an issue (by id or key) and returns its id. Needs the role manager or above: members cancel issues instead.',
    authScopes: { role: 'manager' },
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true, description: 'The id or the key.' }) },
    resolve: async (_root, args, ctx) => {
      const orgId = activeOrgId(ctx);
      const id = await issueIdOf(ctx.prisma, orgId, args.id);
      const { count } = await ctx.prisma.issue.deleteMany({ where: { id, orgId } });
      if (count === 0) throw new NotFoundError('issue');
      return id;
    },
  }),
);
