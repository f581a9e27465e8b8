import { builder } from '../core/builder.js';
import { columnFields, inputFields } from '../core/column-graphql.js';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.js';
import { fixedList } from '../core/list-bounds.js';
import { outcome } from '../core/outcome.js';
import { LABEL_COLUMNS, LABEL_FIELD_NAMES, LABEL_TABLE } from './columns.js';
import { ISSUE_LABELS_MAX, ISSUE_LABELS_SELECT } from './issue-labels.js';
import * as ops from './operations.js';

const LabelRef = builder.prismaObject('Label', {
  description: 'A label of the organization, which its issues carry (at most 20 each).',
  // Its id, name and color come with every row: what an issue shows of its labels.
  select: LABEL_COLUMNS,
  fields: (t) => columnFields(t, LABEL_TABLE, LABEL_FIELD_NAMES),
});

// Loaded with the issue, in the statement that loads it (a subquery of the list's statement, or
// Prisma's relation query over every issue of the answer): no statement per issue.
builder.prismaObjectField('Issue', 'labels', (t) =>
  t.field({
    type: [LabelRef],
    description: `The labels it carries, by name (at most ${ISSUE_LABELS_MAX}).`,
    complexity: fixedList(ISSUE_LABELS_MAX),
    select: (_args, _ctx, nestedSelection) => ({
      labels: { select: { label: nestedSelection(true) }, orderBy: ISSUE_LABELS_SELECT.orderBy },
    }),
    resolve: (issue) => issue.labels.map((entry) => entry.label),
  }),
);

builder.queryField('labels', (t) =>
  t.prismaField({
    type: ['Label'],
    description: ops.listLabels.description,
    complexity: fixedList(ops.LABELS_PER_ORG_MAX),
    resolve: (query, _root, _args, ctx) => ops.listLabels.call(ctx, {}, query),
  }),
);

builder.queryField('label', (t) =>
  t.prismaField({
    type: 'Label',
    description: ops.getLabel.description,
    args: { id: t.arg.id({ required: true, description: 'The id or the name (any case).' }) },
    resolve: (query, _root, args, ctx) => ops.getLabel.call(ctx, args, query),
  }),
);

const CreateLabelInput = builder.inputType('CreateLabelInput', {
  description: 'A new label: its name, color and description.',
  fields: (t) => inputFields(t, LABEL_TABLE, 'create'),
});

const UpdateLabelInput = builder.inputType('UpdateLabelInput', {
  description: 'Fields left out stay as they are.',
  fields: (t) => inputFields(t, LABEL_TABLE, 'update'),
});

builder.mutationField('createLabel', (t) =>
  t.prismaField({
    type: 'Label',
    description: ops.createLabel.description,
    errors: outcome('createLabel', 'The created label.', [ValidationError, ConflictError]),
    args: { input: t.arg({ type: CreateLabelInput, required: true, description: 'Its name, color and description.' }) },
    resolve: (query, _root, args, ctx) => ops.createLabel.call(ctx, args.input, query),
  }),
);

builder.mutationField('updateLabel', (t) =>
  t.prismaField({
    type: 'Label',
    description: ops.updateLabel.description,
    errors: outcome('updateLabel', 'The label as changed.', [ValidationError, NotFoundError, ConflictError]),
    args: {
      id: t.arg.id({ required: true, description: 'The id or the name (any case).' }),
      input: t.arg({ type: UpdateLabelInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (query, _root, args, ctx) => ops.updateLabel.call(ctx, { ...args.input, id: args.id }, query),
  }),
);

builder.mutationField('deleteLabel', (t) =>
  t.field({
    type: 'ID',
    description: ops.deleteLabel.description,
    errors: outcome('deleteLabel', 'The id of the deleted label.', [NotFoundError]),
    args: { id: t.arg.id({ required: true, description: 'The id or the name (any case).' }) },
    resolve: (_root, args, ctx) => ops.deleteLabel.call(ctx, args, undefined),
  }),
);

const ISSUE_LABEL_MUTATIONS = [
  [ops.addIssueLabels, 'The labels to add: ids or names (any case).'],
  [ops.removeIssueLabels, 'The labels to take off: ids or names (any case).'],
  [ops.setIssueLabels, 'All the labels it carries now: ids or names (any case); empty: none.'],
] as const;

for (const [operation, labelsDescription] of ISSUE_LABEL_MUTATIONS) {
  builder.mutationField(operation.name, (t) =>
    t.prismaField({
      type: 'Issue',
      description: operation.description,
      errors: outcome(operation.name, 'The issue with its labels as changed.', [
        ValidationError,
        NotFoundError,
        ConflictError,
      ]),
      args: {
        id: t.arg.id({ required: true, description: 'The issue: its id or key (WEB-12).' }),
        labels: t.arg.idList({ required: true, description: `${labelsDescription} At most ${ISSUE_LABELS_MAX}.` }),
      },
      resolve: (query, _root, args, ctx) => operation.call(ctx, args, query),
    }),
  );
}
