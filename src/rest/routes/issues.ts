import { z } from 'zod';
import * as ops from '../../schema/issues/operations.js';
import { bulkIssues, IssuesChange, issueRef, itemsOf } from '../../schema/issues/bulk.js';
import { CreateIssue } from '../../schema/issues/input.js';
import { ISSUE_LABELS_MAX } from '../../schema/labels/issue-labels.js';
import { BULK_ITEMS_PER_REQUEST, BULK_MAX } from '../../schema/core/bulk.js';
import { ISSUE_SORT_FIELDS } from '../../schema/issues/order.js';
import { projectRef } from '../../schema/projects/lookup.js';
import { camelKeys, CURSOR_MAX, ID_MAX, integer, once, snakeBody } from '../inputs.js';
import { issueFilterNames, issueFilterOf, issueFilterParameters } from '../issue-filter-parameters.js';
import { IssueJson } from '../../schema/issues/representation.js';
import { nextLink } from '../../http/links.js';
import { route } from '../route.js';
import { EXAMPLE } from './examples.js';

const lower = (values: readonly string[]) => values.map((v) => v.toLowerCase());
const SORT_VALUES = lower(ISSUE_SORT_FIELDS) as [string, ...string[]];

const IssueId = z.object({
  id: z.string().min(1).meta({
    maxLength: ID_MAX,
    description:
      "The issue id or its key (`WEB-12`, any case). Another organization's issue is a 404, exactly like a missing one.",
    example: 'WEB-12',
  }),
});

/** The list's query: the spec's flat parameters, each checked by the operation's own rule. */
const ListQuery = z.object({
  project_id: once(projectRef).optional().meta({
    description: "Issues of this project, by id or key (`WEB`, any case); another organization's project: 404.",
    example: 'WEB',
  }),
  ...issueFilterParameters,
  sort: once(z.enum(SORT_VALUES, { error: `must be one of: ${[...SORT_VALUES].sort().join(', ')}` }))
    .optional()
    .meta({
      description:
        '`priority` sorts by urgency and `status` by workflow (newest first among equals); `title` in the database collation. Every order ends with the issue id. Default `created_at`.',
    }),
  direction: once(z.enum(['asc', 'desc'], { error: 'must be one of: asc, desc' }))
    .optional()
    .meta({ description: 'Default `desc` for `created_at` and `updated_at` (newest first), `asc` for the others.' }),
  limit: integer(ops.pageSize)
    .optional()
    .meta({ description: `Page size, default ${ops.PAGE_SIZE_DEFAULT}.` }),
  cursor: once(z.string().meta({ maxLength: CURSOR_MAX }))
    .optional()
    .meta({
      description:
        'Where to continue: take it from the `Link` header. It only fits the sort and direction that made it (else 400 on `cursor`).',
    }),
});

const upper = (value: string | undefined) => value?.toUpperCase();

export const issueRoutes = [
  route({
    method: 'get',
    path: '/issues',
    operationId: 'listIssues',
    tool: { name: 'list_issues', toolsets: ['issues'] },
    summary: 'Issues, filtered, sorted and paged',
    description: 'Any role.',
    tag: 'Issues',
    operation: ops.listIssues,
    query: ListQuery,
    names: {
      first: 'limit',
      after: 'cursor',
      ...issueFilterNames,
      'orderBy.field': 'sort',
      'orderBy.direction': 'direction',
    },
    success: {
      status: 200,
      description: 'One page of issues.',
      schema: z.array(IssueJson.schema).max(ops.PAGE_SIZE_MAX),
      headers: ['Link'],
      examples: { page: [EXAMPLE.issue] },
    },
    errors: { 404: 'The project is not in this organization.' },
    async handle(ctx, { query: q, url }) {
      const input = {
        projectId: q.project_id,
        filter: issueFilterOf(q),
        orderBy: { field: upper(q.sort as string | undefined), direction: upper(q.direction as string | undefined) },
        first: q.limit,
        after: q.cursor,
      };
      const page = await ops.listIssues.run(ctx, ops.listIssues.parse(input), { select: IssueJson.select });
      const headers = nextLink(url, ctx.config.baseUrl, page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null);
      return { body: page.edges.map((edge) => IssueJson.present(edge!.node as never)), headers };
    },
  }),
  route({
    method: 'post',
    path: '/issues',
    operationId: 'createIssue',
    tool: { name: 'create_issue', toolsets: ['issues'] },
    summary: 'Create an issue',
    description: 'Numbered next in its project. Member or above.',
    tag: 'Issues',
    operation: ops.createIssue,
    body: snakeBody(ops.createIssue.input),
    success: {
      status: 201,
      description: 'The created issue.',
      schema: IssueJson.schema,
      headers: ['Location'],
      examples: { created: EXAMPLE.issue },
    },
    errors: { 404: 'The project is not in this organization.' },
    async handle(ctx, { body }) {
      const issue = await ops.createIssue.run(ctx, ops.createIssue.parse(camelKeys(body)), {
        select: IssueJson.select,
      });
      return {
        body: IssueJson.present(issue as never),
        headers: { location: `${ctx.config.baseUrl}/api/issues/${issue.id}` },
      };
    },
  }),
  route({
    method: 'post',
    path: '/issues/bulk',
    operationId: 'bulkIssues',
    tool: { name: 'bulk_issues', toolsets: ['issues'] },
    summary: 'Change or create many issues at once',
    description:
      `Either \`ids\` (ids or keys) with one \`change\` made to each, or \`issues\`, a list of new issues as \`POST /issues\` takes them; at most ${BULK_MAX} items. ` +
      'All or nothing, in one transaction: a 400 lists every bad item with its `index`. One history entry and one webhook event per issue changed. ' +
      `Counts as 1 + ceil(items / ${BULK_ITEMS_PER_REQUEST}) requests of the rate limit. Member or above.`,
    tag: 'Issues',
    operation: bulkIssues,
    body: z.strictObject({
      ids: itemsOf(issueRef.meta({ maxLength: ID_MAX, example: 'WEB-12' }))
        .optional()
        .meta({ description: 'The issues to change: ids or keys (`WEB-12`), each once.' }),
      change: snakeBody(IssuesChange).optional().meta({
        description:
          'What to set on every issue of `ids`: at least one field or label. `null` unassigns; `labels: { add, remove }` by id or name.',
      }),
      issues: itemsOf(snakeBody(CreateIssue))
        .optional()
        .meta({ description: 'New issues, each numbered next in its project, in this order.' }),
    }),
    success: {
      status: 200,
      description: 'The issues changed or created, in the order given.',
      schema: z.array(IssueJson.schema).max(BULK_MAX),
      examples: { changed: [EXAMPLE.issue] },
    },
    errors: {
      409: `An issue would carry more than ${ISSUE_LABELS_MAX} labels (code \`conflict\`, with \`limit\`); nothing changed.`,
    },
    async handle(ctx, { body }) {
      const input = bulkIssues.parse({
        ids: body.ids,
        change: body.change ? camelKeys(body.change as Record<string, unknown>) : undefined,
        issues: (body.issues as Record<string, unknown>[] | undefined)?.map(camelKeys),
      });
      const issues = await bulkIssues.run(ctx, input, { select: IssueJson.select });
      return { body: issues.map((issue) => IssueJson.present(issue as never)) };
    },
  }),
  route({
    method: 'get',
    path: '/issues/{id}',
    operationId: 'getIssue',
    tool: { name: 'get_issue', toolsets: ['issues'] },
    summary: 'One issue, by id or key',
    description: 'Any role.',
    tag: 'Issues',
    operation: ops.getIssue,
    params: IssueId,
    success: { status: 200, description: 'The issue.', schema: IssueJson.schema, examples: { issue: EXAMPLE.issue } },
    errors: { 404: 'No such issue in this organization.' },
    async handle(ctx, { params }) {
      return {
        body: IssueJson.present(
          (await ops.getIssue.run(ctx, ops.getIssue.parse(params), { select: IssueJson.select })) as never,
        ),
      };
    },
  }),
  route({
    method: 'patch',
    path: '/issues/{id}',
    operationId: 'updateIssue',
    // A merge patch sent twice leaves the issue as the first left it.
    tool: { name: 'update_issue', toolsets: ['issues'], annotations: { idempotentHint: true } },
    summary: 'Change an issue',
    description:
      'A JSON merge patch: a field left out stays as it is; `null` clears `description` or `assignee_id` (and is a 400 for the others). Values are checked as on create. Member or above.',
    tag: 'Issues',
    operation: ops.updateIssue,
    params: IssueId,
    body: snakeBody(ops.updateIssue.input, ['id']),
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    success: {
      status: 200,
      description: 'The changed issue.',
      schema: IssueJson.schema,
      examples: { changed: EXAMPLE.issue },
    },
    errors: { 404: 'No such issue in this organization.' },
    async handle(ctx, { params, body }) {
      const input = ops.updateIssue.parse({ ...camelKeys(body), id: params.id });
      return {
        body: IssueJson.present((await ops.updateIssue.run(ctx, input, { select: IssueJson.select })) as never),
      };
    },
  }),
  route({
    method: 'delete',
    path: '/issues/{id}',
    operationId: 'deleteIssue',
    tool: { name: 'delete_issue', toolsets: ['issues'] },
    summary: 'Delete an issue',
    description:
      'Manager or above: members cancel issues instead (status `Canceled`), since a deletion cannot be undone. Numbers are never reused.',
    tag: 'Issues',
    operation: ops.deleteIssue,
    params: IssueId,
    success: { status: 204, description: 'Deleted.' },
    errors: { 404: 'No such issue in this organization.' },
    async handle(ctx, { params }) {
      await ops.deleteIssue.run(ctx, ops.deleteIssue.parse(params), undefined);
      return {};
    },
  }),
];
