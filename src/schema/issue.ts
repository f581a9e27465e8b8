import { z } from 'zod';
import { Prisma } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { NotFoundError, ValidationError } from './errors.js';
import { nonEmpty } from './selection.js';
import { validate } from './validate.js';
import { activeOrgId } from './viewer.js';
import {
  DEFAULT_PRIORITY,
  DEFAULT_STATUS,
  DESCRIPTION_MAX,
  ISSUE_PRIORITIES,
  ISSUE_STATUSES,
  TITLE_MAX,
} from './workflow.js';

builder.prismaObject('Issue', {
  fields: (t) => ({
    id: t.exposeID('id'),
    projectId: t.exposeID('projectId'),
    number: t.exposeInt('number', { description: 'Sequence number within the project (the 123 of KEY-123).' }),
    title: t.exposeString('title'),
    status: t.exposeString('status', { description: `One of: ${ISSUE_STATUSES.join(', ')}.` }),
    priority: t.exposeString('priority', { description: `One of: ${ISSUE_PRIORITIES.join(', ')}.` }),
    description: t.exposeString('description', { nullable: true }),
    assigneeId: t.exposeID('assigneeId', { nullable: true }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
    project: t.relation('project'),
    assignee: t.relation('assignee', { nullable: true }),
  }),
});

const uuid = z.uuid({ error: 'must be a UUID' });
const oneOf = (values: readonly string[]) => ({ error: `must be one of: ${values.join(', ')}` });

builder.queryField('issueStatuses', (t) =>
  t.stringList({ description: 'Allowed issue statuses, in workflow order.', resolve: () => [...ISSUE_STATUSES] }),
);
builder.queryField('issuePriorities', (t) =>
  t.stringList({ description: 'Allowed issue priorities, most urgent first.', resolve: () => [...ISSUE_PRIORITIES] }),
);

const ListArgs = z.object({
  projectId: uuid.optional(),
  first: z.number().int().min(1, 'must be between 1 and 100').max(100, 'must be between 1 and 100').optional(),
  after: uuid.optional(),
});

builder.queryField('issues', (t) =>
  t.prismaConnection({
    type: 'Issue',
    cursor: 'id',
    defaultSize: 50,
    maxSize: 100,
    description: 'Issues of the organization, newest first; of one project when projectId is given.',
    authScopes: { role: 'viewer' },
    args: { projectId: t.arg.id({ required: false }) },
    resolve: async (query, _root, args, ctx) => {
      const orgId = activeOrgId(ctx);
      const cursorId = (query as { cursor?: { id?: string } }).cursor?.id;
      const { projectId } = validate(ListArgs, {
        projectId: args.projectId ?? undefined,
        first: args.first ?? undefined,
        after: cursorId,
      });
      const issues = await ctx.prisma.issue.findMany({
        ...query,
        where: { orgId, ...(projectId ? { projectId } : {}) },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      });
      // Only an empty page needs to tell "no issues yet" from "no such project here".
      if (projectId && issues.length === 0) {
        const project = await ctx.prisma.project.findFirst({ where: { id: projectId, orgId }, select: { id: true } });
        if (!project) throw new NotFoundError('project');
      }
      return issues;
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

const CreateIssue = z.object({
  projectId: uuid,
  title: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(TITLE_MAX, `must be at most ${TITLE_MAX} characters`),
  status: z.enum(ISSUE_STATUSES, oneOf(ISSUE_STATUSES)).default(DEFAULT_STATUS),
  priority: z.enum(ISSUE_PRIORITIES, oneOf(ISSUE_PRIORITIES)).default(DEFAULT_PRIORITY),
  description: z.string().max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`).nullish(),
  assigneeId: uuid.nullish(),
});

builder.mutationField('createIssue', (t) =>
  t.prismaField({
    type: 'Issue',
    description: 'Creates an issue, numbered next in its project.',
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
      if (input.assigneeId) {
        const member = await ctx.prisma.membership.findUnique({
          where: { orgId_userId: { orgId, userId: input.assigneeId } },
          select: { id: true },
        });
        if (!member) throw new ValidationError([{ field: 'assigneeId', message: 'must be a member of the organization' }]);
      }
      try {
        return await ctx.prisma.$transaction(async (tx) => {
          // The row lock taken by this increment serialises concurrent creates in one
          // project, so numbers have no gaps and no duplicates.
          const project = await tx.project.update({
            where: { orgId_id: { orgId, id: input.projectId } },
            data: { issueCount: { increment: 1 } },
            select: { issueCount: true },
          });
          return tx.issue.create({
            ...nonEmpty(query),
            data: {
              orgId,
              projectId: input.projectId,
              number: project.issueCount,
              title: input.title,
              status: input.status,
              priority: input.priority,
              description: input.description ?? null,
              assigneeId: input.assigneeId ?? null,
            },
          });
        });
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') {
          throw new NotFoundError('project');
        }
        throw error;
      }
    },
  }),
);
