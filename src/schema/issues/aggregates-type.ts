import type { z } from 'zod';
import { builder } from '../core/builder.js';
import type { Context } from '../../context.js';
import { fixedList } from '../core/list-bounds.js';
import {
  aggregateIssues,
  type AggregateIssuesInput,
  GROUPS_MAX,
  WEEKS_DEFAULT,
  WEEKS_MAX,
  type IssueAggregates,
  type IssueGrouping,
  type WeekCount,
} from './aggregates.js';
import { IssuePriorityEnum, IssueStatusEnum } from './enums.js';
import { IssueFilterInput } from './filter.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from './workflow.js';

/**
 * The aggregates of one `issueAggregates` field: its sub-fields say which groupings they need,
 * and the first one to ask waits a turn of the event loop so that its siblings can ask too
 * (whatever aliases and fragments the query uses); then one statement computes them all.
 * Groupings nobody selected are not computed.
 */
class AggregatesRequest {
  private readonly wanted = new Set<IssueGrouping>();
  private result: Promise<IssueAggregates> | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly input: z.output<typeof AggregateIssuesInput>,
  ) {}

  load(grouping?: IssueGrouping): Promise<IssueAggregates> {
    if (grouping) this.wanted.add(grouping);
    this.result ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      aggregateIssues.run(this.ctx, { ...this.input, groupBy: [...this.wanted] }, undefined),
    );
    return this.result;
  }
}

const countField = { description: 'How many issues.' } as const;

const StatusCount = builder.objectRef<{ status: string; count: number }>('IssueStatusCount').implement({
  description: 'How many issues have a status.',
  fields: (t) => ({
    status: t.field({ type: IssueStatusEnum, description: 'The status.', resolve: (group) => group.status as never }),
    count: t.exposeInt('count', countField),
  }),
});

const PriorityCount = builder.objectRef<{ priority: string; count: number }>('IssuePriorityCount').implement({
  description: 'How many issues have a priority.',
  fields: (t) => ({
    priority: t.field({
      type: IssuePriorityEnum,
      description: 'The priority.',
      resolve: (group) => group.priority as never,
    }),
    count: t.exposeInt('count', countField),
  }),
});

const AssigneeCount = builder.objectRef<{ assigneeId: string | null; count: number }>('IssueAssigneeCount').implement({
  description: 'How many issues a person is assigned (or how many are unassigned).',
  fields: (t) => ({
    assigneeId: t.id({
      nullable: true,
      description: 'The assignee; null for the unassigned issues.',
      resolve: (group) => group.assigneeId,
    }),
    // Prisma batches the findUnique calls of one tick into one query.
    assignee: t.prismaField({
      type: 'User',
      nullable: true,
      description: 'The assignee; null for the unassigned issues.',
      resolve: (query, group, _args, ctx) =>
        group.assigneeId ? ctx.prisma.user.findUnique({ ...query, where: { id: group.assigneeId } }) : null,
    }),
    count: t.exposeInt('count', countField),
  }),
});

const ProjectCount = builder.objectRef<{ projectId: string; count: number }>('IssueProjectCount').implement({
  description: 'How many issues a project has.',
  fields: (t) => ({
    projectId: t.id({ description: 'The project.', resolve: (group) => group.projectId }),
    // The counts come from the caller's organization only, so the project is one of its own.
    project: t.prismaField({
      type: 'Project',
      description: 'The project.',
      resolve: (query, group, _args, ctx) =>
        ctx.prisma.project.findUniqueOrThrow({ ...query, where: { id: group.projectId } }),
    }),
    count: t.exposeInt('count', countField),
  }),
});

const WeekCountType = builder.objectRef<WeekCount>('IssueWeekCount').implement({
  description: 'How many issues in one week (ISO weeks, Monday to Sunday, UTC).',
  fields: (t) => ({
    weekStart: t.field({
      type: 'DateTime',
      description: 'Monday 00:00 UTC, the start of the week.',
      resolve: (week) => week.weekStart,
    }),
    count: t.exposeInt('count', countField),
  }),
});

const IssueAggregatesType = builder.objectRef<AggregatesRequest>('IssueAggregates').implement({
  description:
    'Counts of the issues matching a filter, for dashboards. Ask for any of the groupings in one request: ' +
    'they are computed together, in the database, and only those selected.',
  fields: (t) => ({
    total: t.int({ description: 'How many issues match.', resolve: async (request) => (await request.load()).total }),
    byStatus: t.field({
      type: [StatusCount],
      description: 'Per status, every status in workflow order (zeros included).',
      complexity: fixedList(ISSUE_STATUSES.length),
      resolve: async (request) => (await request.load('status')).byStatus!,
    }),
    byPriority: t.field({
      type: [PriorityCount],
      description: 'Per priority, most urgent first (zeros included).',
      complexity: fixedList(ISSUE_PRIORITIES.length),
      resolve: async (request) => (await request.load('priority')).byPriority!,
    }),
    byAssignee: t.field({
      type: [AssigneeCount],
      description: `Per assignee, most issues first (the ${GROUPS_MAX} with the most); the unassigned issues have a null assignee.`,
      complexity: fixedList(GROUPS_MAX),
      resolve: async (request) => (await request.load('assignee')).byAssignee!,
    }),
    byProject: t.field({
      type: [ProjectCount],
      description: `Per project, most issues first (the ${GROUPS_MAX} with the most).`,
      complexity: fixedList(GROUPS_MAX),
      resolve: async (request) => (await request.load('project')).byProject!,
    }),
    createdPerWeek: t.field({
      type: [WeekCountType],
      description: 'Issues created per week, over the last `weeks` weeks (the current one last, zeros included).',
      complexity: fixedList(WEEKS_MAX),
      resolve: async (request) => (await request.load('createdWeek')).createdPerWeek!,
    }),
    completedPerWeek: t.field({
      type: [WeekCountType],
      description:
        'Issues moved to Done per week (from the issue history), over the last `weeks` weeks, zeros included. The filter applies to the issues as they are now.',
      complexity: fixedList(WEEKS_MAX),
      resolve: async (request) => (await request.load('completedWeek')).completedPerWeek!,
    }),
  }),
});

builder.queryField('issueAggregates', (t) =>
  t.field({
    type: IssueAggregatesType,
    description: aggregateIssues.description,
    args: {
      projectId: t.arg.id({
        required: false,
        description: 'Only the issues of this project: its id or its key (`WEB`, any case).',
      }),
      filter: t.arg({ type: IssueFilterInput, required: false, description: "Which issues: the issue list's filter." }),
      weeks: t.arg.int({
        required: false,
        defaultValue: WEEKS_DEFAULT,
        description: `How many weeks the weekly series cover, 1 to ${WEEKS_MAX}, ending with the current week.`,
      }),
    },
    // Authorization, the operation's bucket and the input are checked here, so that their
    // errors belong to this field; the counting waits for the selected sub-fields.
    resolve: async (_root, args, ctx) => {
      await aggregateIssues.admit(ctx);
      return new AggregatesRequest(ctx, aggregateIssues.parse(args));
    },
  }),
);
