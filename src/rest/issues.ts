import type { Context } from '../context.js';
import { readJsonObject } from './body.js';
import { json, noContent } from './json.js';
import { defineOperation, ERROR_FIELDS, FIELD_ERRORS, runOperation, unwrapResult, type FieldNames } from './operation.js';
import { defined, enumValue, pathParam, queryList, queryValue, snakeToCamelKeys } from './params.js';

type Params = Record<string, string | undefined>;

const ISSUE_FIELDS = /* GraphQL */ `
  fragment IssueFields on Issue {
    id key projectId number title status priority description assigneeId createdAt updatedAt
  }
`;

const LIST_ISSUES = defineOperation(/* GraphQL */ `
  query ListIssues($projectId: ID, $filter: IssueFilter, $orderBy: IssueOrder, $first: Int, $after: String) {
    issues(projectId: $projectId, filter: $filter, orderBy: $orderBy, first: $first, after: $after) {
      edges { node { ...IssueFields } }
      pageInfo { hasNextPage endCursor }
    }
  }
  ${ISSUE_FIELDS}
`);

const GET_ISSUE = defineOperation(/* GraphQL */ `
  query GetIssue($id: ID!) { issue(id: $id) { ...IssueFields } }
  ${ISSUE_FIELDS}
`);

const CREATE_ISSUE = defineOperation(/* GraphQL */ `
  mutation CreateIssue($input: CreateIssueInput!) {
    createIssue(input: $input) {
      ... on MutationCreateIssueSuccess { data { ...IssueFields } }
      ${ERROR_FIELDS}
      ${FIELD_ERRORS}
    }
  }
  ${ISSUE_FIELDS}
`);

const UPDATE_ISSUE = defineOperation(/* GraphQL */ `
  mutation UpdateIssue($id: ID!, $input: UpdateIssueInput!) {
    updateIssue(id: $id, input: $input) {
      ... on MutationUpdateIssueSuccess { data { ...IssueFields } }
      ${ERROR_FIELDS}
      ${FIELD_ERRORS}
    }
  }
  ${ISSUE_FIELDS}
`);

const DELETE_ISSUE = defineOperation(/* GraphQL */ `
  mutation DeleteIssue($id: ID!) {
    deleteIssue(id: $id) {
      ... on MutationDeleteIssueSuccess { data }
      ${ERROR_FIELDS}
    }
  }
`);

interface IssueNode {
  id: string;
  key: string;
  projectId: string;
  number: number;
  title: string;
  status: string;
  priority: string;
  description: string | null;
  assigneeId: string | null;
  createdAt: string;
  updatedAt: string;
}

type Result<T> = Parameters<typeof unwrapResult<T>>[0];

/** The spec's issue object: snake_case, field names exactly as the spec writes them. */
function issueJson(issue: IssueNode) {
  return {
    id: issue.id,
    key: issue.key,
    project_id: issue.projectId,
    number: issue.number,
    title: issue.title,
    status: issue.status,
    priority: issue.priority,
    description: issue.description,
    assignee_id: issue.assigneeId,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
  };
}

const LIST_NAMES: FieldNames = {
  first: 'limit',
  after: 'cursor',
  projectId: 'project_id',
  'filter.status': 'status',
  'filter.priority': 'priority',
  'filter.assigneeId': 'assignee_id',
  'filter.q': 'q',
  'filter.createdAfter': 'created_after',
  'filter.createdBefore': 'created_before',
  'filter.updatedAfter': 'updated_after',
  'filter.updatedBefore': 'updated_before',
  field: 'sort',
};

/**
 * GET /api/issues?project_id=&status=&priority=&assignee_id=&q=&created_after=&created_before=
 * &updated_after=&updated_before=&sort=&direction=&limit=&cursor= : a bare array, the next page
 * in a Link header.
 */
export async function listIssues(request: Request, ctx: Context): Promise<Response> {
  const url = new URL(request.url);
  const variables = {
    projectId: queryValue(url, 'project_id'),
    filter: defined({
      status: queryList(url, 'status'),
      priority: queryList(url, 'priority'),
      assigneeId: queryValue(url, 'assignee_id'),
      q: queryValue(url, 'q'),
      createdAfter: queryValue(url, 'created_after'),
      createdBefore: queryValue(url, 'created_before'),
      updatedAfter: queryValue(url, 'updated_after'),
      updatedBefore: queryValue(url, 'updated_before'),
    }),
    orderBy: defined({ field: enumValue(queryValue(url, 'sort')), direction: enumValue(queryValue(url, 'direction')) }),
    first: queryValue(url, 'limit', 'int'),
    after: queryValue(url, 'cursor'),
  };
  const { issues } = await runOperation<{
    issues: { edges: { node: IssueNode }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
  }>(LIST_ISSUES, ctx, variables, LIST_NAMES);
  const headers: Record<string, string> = {};
  if (issues.pageInfo.hasNextPage && issues.pageInfo.endCursor) {
    const next = new URL(`${ctx.config.baseUrl}/api/issues`);
    for (const [key, value] of url.searchParams) if (key !== 'cursor') next.searchParams.append(key, value);
    next.searchParams.set('cursor', issues.pageInfo.endCursor);
    headers.link = `<${next.href}>; rel="next"`;
  }
  return json(issues.edges.map((e) => issueJson(e.node)), { headers });
}

/** POST /api/issues: 201 with the created issue. */
export async function createIssue(request: Request, ctx: Context): Promise<Response> {
  const input = snakeToCamelKeys(await readJsonObject(request));
  const { createIssue } = await runOperation<{ createIssue: Result<IssueNode> }>(CREATE_ISSUE, ctx, { input });
  const issue = unwrapResult(createIssue);
  return json(issueJson(issue), { status: 201, headers: { location: `${ctx.config.baseUrl}/api/issues/${issue.id}` } });
}

/** GET /api/issues/:id, where :id is the id or the key (WEB-12). */
export async function getIssue(_request: Request, ctx: Context, params: Params): Promise<Response> {
  const { issue } = await runOperation<{ issue: IssueNode }>(GET_ISSUE, ctx, { id: pathParam(params, 'id') });
  return json(issueJson(issue));
}

/** PATCH /api/issues/:id: a JSON merge patch (absent: unchanged; null: cleared, where a field may be empty). */
export async function updateIssue(request: Request, ctx: Context, params: Params): Promise<Response> {
  const id = pathParam(params, 'id');
  const input = snakeToCamelKeys(await readJsonObject(request));
  const { updateIssue } = await runOperation<{ updateIssue: Result<IssueNode> }>(UPDATE_ISSUE, ctx, { id, input });
  return json(issueJson(unwrapResult(updateIssue)));
}

/** DELETE /api/issues/:id: 204. */
export async function deleteIssue(_request: Request, ctx: Context, params: Params): Promise<Response> {
  const { deleteIssue } = await runOperation<{ deleteIssue: Result<string> }>(DELETE_ISSUE, ctx, { id: pathParam(params, 'id') });
  unwrapResult(deleteIssue);
  return noContent();
}
