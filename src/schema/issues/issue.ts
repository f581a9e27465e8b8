import { queryFromInfo } from '@pothos/plugin-prisma';
import { builder } from '../core/builder.js';
import { column } from '../core/column-fields.js';
import { connectionPage, FIELD_COST, fixedList } from '../core/list-bounds.js';
import { NodeRef } from '../core/node.js';
import { columnFields, inputFields } from '../core/column-graphql.js';
import { ISSUE_COLUMNS, ISSUE_FIELD_NAMES, ISSUE_TABLE, UPDATE_FIELDS } from './columns.js';
import { ConflictError, NotFoundError, RateLimitedError, ValidationError } from '../core/errors.js';
import { IssueFilterInput } from './filter.js';
import { ANSWERS_FROM_ROW } from '../core/loaded-on-row.js';
import * as ops from './operations.js';
import { bulkIssues } from './bulk.js';
import { NEW_ISSUE_LABELS_DESCRIPTION } from './input.js';
import { BULK_MAX } from '../core/bulk.js';
import { ISSUE_LABELS_MAX } from '../labels/issue-labels.js';
import { IssueOrderInput } from './order.js';
import { IssuePriorityEnum, IssueStatusEnum } from './enums.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from './workflow.js';
import { outcome } from '../core/outcome.js';

/** The GraphQL types of the issue's own kinds of column (src/schema/issues/columns.ts). */
const COLUMN_OPTIONS = { types: { status: IssueStatusEnum, priority: IssuePriorityEnum } };

export const IssueRef = builder.prismaObject('Issue', {
  description: 'A piece of work in a project: its title, status, priority and assignee.',
  interfaces: [NodeRef],
  // Every row is loaded with its short columns (every list shows most of them); the description
  // and the relations are loaded only when a query asks for them. The columns are plain fields,
  // not `t.expose*`: in select mode Pothos tracks an exposed field's selection on every row it
  // resolves, which cost more CPU than the whole query on a 100-issue page.
  select: ISSUE_COLUMNS,
  fields: (t) => ({
    ...columnFields(t, ISSUE_TABLE, ['id'], COLUMN_OPTIONS),
    key: t.string({
      description: 'The human key: project key and number, e.g. WEB-12.',
      // Selected with the issue (a join in the same statement), so a list costs no extra query.
      select: { project: { select: { key: true } } },
      resolve: (issue) => `${issue.project.key}-${issue.number}`,
    }),
    ...columnFields(
      t,
      ISSUE_TABLE,
      ISSUE_FIELD_NAMES.filter((field) => field !== 'id'),
      COLUMN_OPTIONS,
    ),
    project: t.relation('project', { description: 'The project the issue belongs to.' }),
    assignee: t.relation('assignee', {
      nullable: true,
      description: 'The user working on it; null when unassigned.',
      // Project.issues' pages join it (src/schema/core/loaded-on-row.ts).
      extensions: { [ANSWERS_FROM_ROW]: true },
    }),
  }),
});

builder.queryField('issueStatuses', (t) =>
  t.stringList({
    description: 'Allowed issue statuses, in workflow order.',
    complexity: fixedList(ISSUE_STATUSES.length),
    resolve: () => [...ISSUE_STATUSES],
  }),
);
builder.queryField('issuePriorities', (t) =>
  t.stringList({
    description: 'Allowed issue priorities, most urgent first.',
    complexity: fixedList(ISSUE_PRIORITIES.length),
    resolve: () => [...ISSUE_PRIORITIES],
  }),
);

builder.queryField('issue', (t) =>
  t.prismaField({
    type: 'Issue',
    description: ops.getIssue.description,
    args: { id: t.arg.id({ required: true, description: 'The id or the key.' }) },
    resolve: (query, _root, args, ctx) => ops.getIssue.call(ctx, args, query),
  }),
);

/**
 * One page of issues, wherever issues are listed (Query.issues, Project.issues). `totalCount`
 * is a function on the page object, called only when a query selects the field.
 */
export const IssueConnection = builder.connectionObject(
  {
    type: IssueRef,
    name: 'IssueConnection',
    description: 'One page of issues, with the links to the next and previous pages.',
    fields: (t) => ({
      totalCount: t.int({
        description: 'How many issues the whole filtered list holds (all pages); counted only when asked for.',
        resolve: (page) => {
          const counted = page as { totalCount?: number | (() => Promise<number>) };
          // Called as a method: Project.issues' connection is a class (src/schema/projects/issues-connection.ts).
          return typeof counted.totalCount === 'function' ? counted.totalCount() : (counted.totalCount ?? 0);
        },
      }),
    }),
  },
  {
    name: 'IssueEdge',
    description: 'An issue in a page, with the cursor that points at it.',
    // The relay plugin's own `node` has a resolver (`edge => edge.node`); this one is a column
    // (src/schema/core/column-fields.ts), read inline by compiled queries: one call fewer per issue.
    fields: (t) => ({ node: t.field({ type: IssueRef, description: 'The item.', resolve: column('node') }) }),
  },
);

builder.queryField('issues', (t) =>
  t.connection(
    {
      type: IssueRef,
      description: ops.listIssues.description,
      complexity: connectionPage(ops.PAGE_SIZE_DEFAULT, ops.PAGE_SIZE_MAX),
      args: {
        projectId: t.arg.id({
          required: false,
          description: 'Only the issues of this project: its id or its key (`WEB`, any case).',
        }),
        filter: t.arg({
          type: IssueFilterInput,
          required: false,
          description: 'Which issues: every given condition must hold.',
        }),
        orderBy: t.arg({
          type: IssueOrderInput,
          required: false,
          description: 'The order of the list; newest first by default.',
        }),
      },
      resolve: (_root, args, ctx, info) =>
        ops.listIssues.call(ctx, args, queryFromInfo({ context: ctx, info, path: ['edges', 'node'] })),
    },
    IssueConnection,
  ),
);

/** "a", "a and b", "a, b and c". */
const listed = (names: readonly string[]) =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;

// The columns, and the labels the create's input (src/schema/issues/input.ts) adds to them.
const CreateIssueInput = builder.inputType('CreateIssueInput', {
  description: 'A new issue. Fields left out take their defaults.',
  fields: (t) => ({
    ...inputFields(t, ISSUE_TABLE, 'create', COLUMN_OPTIONS),
    labels: t.idList({ required: false, description: NEW_ISSUE_LABELS_DESCRIPTION }),
  }),
});

builder.mutationField('createIssue', (t) =>
  t.prismaField({
    type: 'Issue',
    description: ops.createIssue.description,
    errors: outcome('createIssue', 'The created issue.', [ValidationError, NotFoundError]),
    args: { input: t.arg({ type: CreateIssueInput, required: true, description: 'The new issue.' }) },
    resolve: (query, _root, args, ctx) => ops.createIssue.call(ctx, args.input, query),
  }),
);

const UpdateIssueInput = builder.inputType('UpdateIssueInput', {
  description: `Fields left out stay as they are; null clears ${listed(UPDATE_FIELDS.filter((field) => ISSUE_TABLE[field].nullable))} (and is refused for the others).`,
  fields: (t) => inputFields(t, ISSUE_TABLE, 'update', COLUMN_OPTIONS),
});

builder.mutationField('updateIssue', (t) =>
  t.prismaField({
    type: 'Issue',
    description: ops.updateIssue.description,
    errors: outcome('updateIssue', 'The issue as changed.', [ValidationError, NotFoundError]),
    args: {
      id: t.arg.id({ required: true, description: 'The id or the key.' }),
      input: t.arg({ type: UpdateIssueInput, required: true, description: 'The changes.' }),
    },
    resolve: (query, _root, args, ctx) => ops.updateIssue.call(ctx, { ...args.input, id: args.id }, query),
  }),
);

builder.mutationField('deleteIssue', (t) =>
  t.field({
    type: 'ID',
    description: ops.deleteIssue.description,
    errors: outcome('deleteIssue', 'The id of the deleted issue.', [NotFoundError]),
    args: { id: t.arg.id({ required: true, description: 'The id or the key.' }) },
    resolve: (_root, args, ctx) => ops.deleteIssue.call(ctx, args, undefined),
  }),
);

const LabelsChangeInput = builder.inputType('LabelsChangeInput', {
  description: `Labels to add to and take off every issue, by id or name (any case), at most ${ISSUE_LABELS_MAX} each; an addition wins over a removal of the same label.`,
  fields: (t) => ({
    add: t.stringList({ required: false, description: 'Labels to add.' }),
    remove: t.stringList({ required: false, description: 'Labels to take off.' }),
  }),
});

const IssuesChangeInput = builder.inputType('IssuesChangeInput', {
  description:
    'What updateIssues sets on every issue it names: at least one field or label; fields left out stay as they are; null clears assigneeId.',
  fields: (t) => {
    const fields = inputFields(t, ISSUE_TABLE, 'update', COLUMN_OPTIONS);
    return {
      status: fields.status!,
      priority: fields.priority!,
      assigneeId: fields.assigneeId!,
      labels: t.field({ type: LabelsChangeInput, required: false, description: 'Labels added and removed.' }),
    };
  },
});

/** A bulk mutation's answer costs one issue per item it names, at most BULK_MAX. */
const itemsCost = (count: number) => ({ field: FIELD_COST, multiplier: Math.min(count, BULK_MAX) });

/**
 * The errors plugin's options of a bulk mutation: its `data` list is bounded by the mutation
 * field's own multiplier (itemsCost), so the list adds no multiplier of its own.
 */
const bulkOutcome = (field: string, data: string) => {
  const options = outcome(field, data, [ValidationError, ConflictError, RateLimitedError]);
  return { ...options, dataField: { ...options.dataField, complexity: { field: FIELD_COST, multiplier: 1 } } };
};

builder.mutationField('updateIssues', (t) =>
  t.prismaField({
    type: ['Issue'],
    description: `Changes up to ${BULK_MAX} issues the same way (status, priority, assignee, labels added and removed): all or nothing, in one transaction, with one history entry and one webhook event per issue changed; every bad item is reported at once, with its index. Needs the role member or above.`,
    errors: bulkOutcome('updateIssues', 'The changed issues, in the order of `ids`.'),
    complexity: (args) => itemsCost(args.ids.length),
    args: {
      ids: t.arg.idList({ required: true, description: `The issues: ids or keys, each once, at most ${BULK_MAX}.` }),
      change: t.arg({ type: IssuesChangeInput, required: true, description: 'The change made to each.' }),
    },
    resolve: (query, _root, args, ctx) => bulkIssues.call(ctx, { ids: args.ids, change: args.change }, query),
  }),
);

builder.mutationField('createIssues', (t) =>
  t.prismaField({
    type: ['Issue'],
    description: `Creates up to ${BULK_MAX} issues at once, all or none, as createIssue creates one; every bad item is reported with its index. Needs the role member or above.`,
    errors: bulkOutcome('createIssues', 'The created issues, in the order given.'),
    complexity: (args) => itemsCost(args.issues.length),
    args: {
      issues: t.arg({
        type: [CreateIssueInput],
        required: true,
        description: `The new issues, at most ${BULK_MAX}.`,
      }),
    },
    resolve: (query, _root, args, ctx) => bulkIssues.call(ctx, { issues: args.issues }, query),
  }),
);
