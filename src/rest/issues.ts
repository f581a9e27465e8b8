import type { Context } from '../context.js';
import { readJsonObject } from './body.js';
import { json } from './json.js';
import { defineOperation, ERROR_FIELDS, FIELD_ERRORS, runOperation, unwrapResult, type FieldNames } from './operation.js';
import { snakeToCamelKeys, queryValue } from './params.js';

const ISSUE_FIELDS = /* GraphQL */ `
  fragment IssueFields on Issue {
    id projectId number title status priority description assigneeId createdAt updatedAt
  }
`;

const LIST_ISSUES = defineOperation(/* GraphQL */ `
  query ListIssues($projectId: ID, $first: Int, $after: String) {
    issues(projectId: $projectId, first: $first, after: $after) {
      edges { node { ...IssueFields } }
      pageInfo { hasNextPage endCursor }
    }
  }
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

interface IssueNode {
  id: string;
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

/** The spec's issue object: snake_case, field names exactly as the spec writes them. */
function issueJson(issue: IssueNode) {
  return {
    id: issue.id,
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

const LIST_NAMES: FieldNames = { first: 'limit', after: 'cursor', projectId: 'project_id' };

/** GET /api/issues?project_id=&limit=&cursor= : a bare array, the next page in a Link header. */
export async function listIssues(request: Request, ctx: Context): Promise<Response> {
  const url = new URL(request.url);
  const variables = {
    projectId: queryValue(url, 'project_id'),
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
  const { createIssue } = await runOperation<{ createIssue: Parameters<typeof unwrapResult<IssueNode>>[0] }>(
    CREATE_ISSUE,
    ctx,
    { input },
  );
  const issue = unwrapResult(createIssue);
  return json(issueJson(issue), { status: 201, headers: { location: `${ctx.config.baseUrl}/api/issues/${issue.id}` } });
}
