import { z } from 'zod';
import { LABEL_NAME_MAX } from '../../schema/labels/columns.js';
import { ISSUE_LABELS_MAX, labelSummaries } from '../../schema/labels/issue-labels.js';
import * as ops from '../../schema/labels/operations.js';
import { LABEL_EXAMPLE, LABELS_EXAMPLE, LabelJson, LabelSummaryJson } from '../../schema/labels/representation.js';
import { ISSUE_LABELS_SELECT, type IssueLabels } from '../../schema/labels/issue-labels.js';
import { camelKeys, ID_MAX, snakeBody } from '../inputs.js';
import { route } from '../route.js';

const TAG = 'Labels';

const LabelId = z.object({
  id: z
    .string()
    .min(1)
    .meta({ maxLength: ID_MAX + LABEL_NAME_MAX, description: 'The label id or its name (any case).', example: 'bug' }),
});

const IssueId = z.object({
  id: z.string().min(1).meta({
    maxLength: ID_MAX,
    description: "The issue id or its key (`WEB-12`, any case). Another organization's issue is a 404.",
    example: 'WEB-12',
  }),
});

/** The labels of an issue, as the issue label routes answer (GitHub's shape: the labels it carries now). */
const IssueLabelsJson = z
  .array(LabelSummaryJson.schema)
  .max(ISSUE_LABELS_MAX)
  .meta({ description: 'The labels the issue carries now, by name.' });
const issueLabelsQuery = { select: { labels: ISSUE_LABELS_SELECT } };
const presentIssueLabels = (issue: unknown) =>
  labelSummaries((issue as { labels: IssueLabels }).labels).map((label) => LabelSummaryJson.present(label));

export const labelRoutes = [
  route({
    method: 'get',
    path: '/labels',
    operationId: 'listLabels',
    tool: { name: 'list_labels', toolsets: ['issues'] },
    summary: 'Labels',
    description: 'Any role.',
    tag: TAG,
    operation: ops.listLabels,
    success: {
      status: 200,
      description: 'The labels of the organization, by name.',
      schema: z.array(LabelJson.schema).max(ops.LABELS_PER_ORG_MAX),
      examples: { labels: [LABEL_EXAMPLE] },
    },
    async handle(ctx) {
      const labels = await ops.listLabels.run(ctx, {}, { select: LabelJson.select });
      return { body: labels.map((label) => LabelJson.present(label as never)) };
    },
  }),
  route({
    method: 'post',
    path: '/labels',
    operationId: 'createLabel',
    tool: { name: 'create_label', toolsets: ['issues'] },
    summary: 'Create a label',
    description: 'Manager or above.',
    tag: TAG,
    operation: ops.createLabel,
    body: snakeBody(ops.createLabel.input),
    success: {
      status: 201,
      description: 'The created label.',
      schema: LabelJson.schema,
      headers: ['Location'],
      examples: { created: LABEL_EXAMPLE },
    },
    errors: {
      409: `Another label has that name, whatever the case, or the organization has ${ops.LABELS_PER_ORG_MAX} labels.`,
    },
    async handle(ctx, { body }) {
      const label = await ops.createLabel.run(ctx, ops.createLabel.parse(camelKeys(body)), {
        select: LabelJson.select,
      });
      return {
        body: LabelJson.present(label as never),
        headers: { location: `${ctx.config.baseUrl}/api/labels/${label.id}` },
      };
    },
  }),
  route({
    method: 'get',
    path: '/labels/{id}',
    operationId: 'getLabel',
    summary: 'A label, by id or name',
    description: 'Any role.',
    tag: TAG,
    operation: ops.getLabel,
    params: LabelId,
    success: { status: 200, description: 'The label.', schema: LabelJson.schema, examples: { label: LABEL_EXAMPLE } },
    errors: { 404: 'No such label in this organization.' },
    async handle(ctx, { params }) {
      const label = await ops.getLabel.run(ctx, ops.getLabel.parse(params), { select: LabelJson.select });
      return { body: LabelJson.present(label as never) };
    },
  }),
  route({
    method: 'patch',
    path: '/labels/{id}',
    operationId: 'updateLabel',
    tool: { name: 'update_label', toolsets: ['issues'], annotations: { idempotentHint: true } },
    summary: 'Change a label',
    description: 'A field left out stays as it is. Manager or above.',
    tag: TAG,
    operation: ops.updateLabel,
    params: LabelId,
    body: snakeBody(ops.updateLabel.input, ['id']),
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    success: {
      status: 200,
      description: 'The changed label.',
      schema: LabelJson.schema,
      examples: { changed: LABEL_EXAMPLE },
    },
    errors: { 404: 'No such label in this organization.', 409: 'Another label has that name, whatever the case.' },
    async handle(ctx, { params, body }) {
      const input = ops.updateLabel.parse({ ...camelKeys(body), id: params.id });
      return {
        body: LabelJson.present((await ops.updateLabel.run(ctx, input, { select: LabelJson.select })) as never),
      };
    },
  }),
  route({
    method: 'delete',
    path: '/labels/{id}',
    operationId: 'deleteLabel',
    tool: { name: 'delete_label', toolsets: ['issues'] },
    summary: 'Delete a label',
    description: 'Takes it off every issue. Manager or above.',
    tag: TAG,
    operation: ops.deleteLabel,
    params: LabelId,
    success: { status: 204, description: 'Deleted.' },
    errors: { 404: 'No such label in this organization.' },
    async handle(ctx, { params }) {
      await ops.deleteLabel.run(ctx, ops.deleteLabel.parse(params), undefined);
      return {};
    },
  }),
  route({
    method: 'post',
    path: '/issues/{id}/labels',
    operationId: 'addIssueLabels',
    tool: { name: 'add_issue_labels', toolsets: ['issues'], annotations: { idempotentHint: true } },
    summary: 'Add labels to an issue',
    description: `Those it carries stay; adding one it carries changes nothing. At most ${ISSUE_LABELS_MAX} per issue. Member or above.`,
    tag: 'Issues',
    operation: ops.addIssueLabels,
    params: IssueId,
    body: snakeBody(ops.addIssueLabels.input, ['id']),
    success: {
      status: 200,
      description: 'The labels the issue carries now.',
      schema: IssueLabelsJson,
      examples: { labels: LABELS_EXAMPLE },
    },
    errors: {
      404: 'No such issue in this organization.',
      409: `The issue would carry more than ${ISSUE_LABELS_MAX} labels.`,
    },
    async handle(ctx, { params, body }) {
      const input = ops.addIssueLabels.parse({ ...camelKeys(body), id: params.id });
      return { body: presentIssueLabels(await ops.addIssueLabels.run(ctx, input, issueLabelsQuery)) };
    },
  }),
  route({
    method: 'put',
    path: '/issues/{id}/labels',
    operationId: 'setIssueLabels',
    tool: { name: 'set_issue_labels', toolsets: ['issues'] },
    summary: "Replace an issue's labels",
    description: `The issue carries exactly these afterwards (an empty list: none), at most ${ISSUE_LABELS_MAX}. Member or above.`,
    tag: 'Issues',
    operation: ops.setIssueLabels,
    params: IssueId,
    body: snakeBody(ops.setIssueLabels.input, ['id']),
    success: {
      status: 200,
      description: 'The labels the issue carries now.',
      schema: IssueLabelsJson,
      examples: { labels: LABELS_EXAMPLE },
    },
    errors: { 404: 'No such issue in this organization.' },
    async handle(ctx, { params, body }) {
      const input = ops.setIssueLabels.parse({ ...camelKeys(body), id: params.id });
      return { body: presentIssueLabels(await ops.setIssueLabels.run(ctx, input, issueLabelsQuery)) };
    },
  }),
  route({
    method: 'delete',
    path: '/issues/{id}/labels/{label}',
    operationId: 'removeIssueLabel',
    tool: { name: 'remove_issue_label', toolsets: ['issues'], annotations: { destructiveHint: false } },
    summary: 'Take a label off an issue',
    description: 'Taking off a label it does not carry changes nothing. Member or above.',
    tag: 'Issues',
    operation: ops.removeIssueLabels,
    params: IssueId.extend({
      label: z
        .string()
        .min(1)
        .meta({
          maxLength: ID_MAX + LABEL_NAME_MAX,
          description: 'The label id or its name (any case).',
          example: 'bug',
        }),
    }),
    names: { labels: 'label' },
    success: {
      status: 200,
      description: 'The labels the issue carries now.',
      schema: IssueLabelsJson,
      examples: { labels: [] },
    },
    errors: { 404: 'No such issue in this organization.' },
    async handle(ctx, { params }) {
      const input = ops.removeIssueLabels.parse({ id: params.id, labels: [params.label] });
      return { body: presentIssueLabels(await ops.removeIssueLabels.run(ctx, input, issueLabelsQuery)) };
    },
  }),
];
