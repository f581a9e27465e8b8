// The SQL the baseline server sends. The REST statements are byte for byte what the app sends
// (its own hand-written statements imported, the others captured from Prisma by wrapping the
// driver adapter, see bench/lib/sql-log.ts; the bench re-captures them on every run and reports
// any drift). The GraphQL tree is hand-written.
import { randomUUID } from 'node:crypto';
import { issueListStatement } from '../../src/schema/issues/list-sql.js';
import { IssueOrder } from '../../src/schema/issues/order.js';
import type { SqlValue } from '../../src/db/direct-sql.js';
import { compiled } from '../../src/db/sql-builder.js';
import { CREATE_FIELDS, type IssueField } from '../../src/schema/issues/columns.js';
import { createIssueStatement } from '../../src/schema/issues/create.js';

/** PAT lookup by SHA-256 hash, joined with the membership for the role: the app's own statement (src/auth/pat.ts). $1 = hash. On a PAT cache hit the app sends no lookup. */
export { PAT_LOOKUP_SQL } from '../../src/auth/pat.js';

/** At most once a minute per key, off the request path: the app's own statement (src/auth/pat.ts). */
export { TOUCH_KEY_SQL } from '../../src/auth/pat.js';

/**
 * The page with each issue's project key (for `key`): the app's own statement for the default
 * order of one project (src/schema/issues/list-sql.ts), built here rather than copied. $1 = org,
 * $2 = project, $3 = limit + 1.
 */
export const ISSUES_PAGE_SQL = compiled(
  issueListStatement({
    orgId: 'org',
    projectId: 'project',
    filter: null,
    order: new IssueOrder().sortKeys(),
    seeks: [],
    take: 0,
    description: true,
    projectKey: true,
    labels: true,
  }),
).text;

/** An organization's labels and their version, when the page's `labels` (`version:id,id`) name another version: the app's own statement (src/schema/labels/org-labels.ts). */
export { ORG_LABELS_SQL } from '../../src/schema/labels/org-labels.js';

/** The create: the app's own statement (src/schema/issues/create.ts), imported rather than copied. */
export { CREATE_ISSUE_SQL } from '../../src/schema/issues/create.js';

/**
 * The create statement's parameters, the values written by hand as the app's prepareEvents and
 * webhookPayload would: the issue, its history row as JSON, and its webhook payload with the
 * placeholders the statement fills with the number and the key (placed as the app's
 * createIssueStatement places them).
 */
export function createIssueArgs(
  caller: { orgId: string; userId: string; keyId: string | null },
  input: {
    project_id: string;
    title: string;
    status: string;
    priority: string;
    description: string | null;
    assignee_id: string | null;
  },
): unknown[] {
  const id = randomUUID();
  const now = new Date();
  const at = now.toISOString();
  const number = `n${randomUUID().replaceAll('-', '')}`;
  const key = `k${randomUUID().replaceAll('-', '')}`;
  const eventId = randomUUID();
  const { project_id, title, status, priority, description, assignee_id } = input;
  const changes = [
    { field: 'title', old: null, new: title },
    { field: 'status', old: null, new: status },
    { field: 'priority', old: null, new: priority },
    ...(description === null ? [] : [{ field: 'description', old: null, new: description }]),
    ...(assignee_id === null ? [] : [{ field: 'assigneeId', old: null, new: assignee_id }]),
  ];
  const data = {
    id,
    key: `${key}-${number}`,
    project_id,
    number,
    title,
    status,
    priority,
    description,
    assignee_id,
    created_at: at,
    updated_at: at,
  };
  const payload = JSON.stringify({
    id: eventId,
    type: 'issue.created',
    timestamp: at,
    organization_id: caller.orgId,
    actor: { user_id: caller.userId, via: 'pat', via_id: caller.keyId },
    data,
    changes: changes.map((c) => ({
      field: c.field === 'assigneeId' ? 'assignee_id' : c.field,
      old: c.old,
      new: c.new,
    })),
  });
  const events = JSON.stringify([
    { n: 0, id: eventId, type: 'issue.created', subject_id: id, project_id, changes, to_status: status, payload },
  ]);
  const written: Partial<Record<IssueField, SqlValue>> = {
    projectId: project_id,
    title,
    status,
    priority,
    description,
    assigneeId: assignee_id,
  };
  const statement = createIssueStatement.with(
    now,
    caller.orgId,
    id,
    events,
    caller.userId,
    'pat',
    caller.keyId,
    null, // the request's trace: none, as in a service with tracing off
    `"${number}"`,
    number,
    key,
    // No labels: the benchmark's creates carry none.
    [],
    ...CREATE_FIELDS.map((field) => written[field] ?? null),
  );
  return [...statement.parameters];
}

/** Only for an empty page: does the project exist in the org? */
export const PROJECT_EXISTS_SQL =
  'SELECT "t0"."id" FROM "public"."projects" AS "t0" WHERE ("t0"."id" = $1 AND "t0"."org_id" = $2) LIMIT $3';

/** Only when a create wrote nothing: is the assignee a member? $1 = org, $2 = user, $3 = 1. */
export const MEMBER_EXISTS_SQL =
  'SELECT "t0"."id" FROM "public"."memberships" AS "t0" WHERE (("t0"."org_id" = $1 AND "t0"."user_id" = $2) AND 1=1) LIMIT $3';

/** The app's own statement (src/schema/people/user.ts). $1 = user. */
export { USER_SQL } from '../../src/schema/people/user.js';

/**
 * memberships > organization > projects > issues(first: 50) > assignee, hand-written: one
 * statement, only the columns the answer needs, newest 50 issues per project through the
 * (org_id, project_id, created_at DESC, id DESC) index. $1 = user, $2 = org (a PAT sees its own org).
 */
export const NESTED_TREE_SQL = `
SELECT m.id AS membership_id, p.id AS project_id, i.id AS issue_id, i.title, u.id AS assignee_id, u.name AS assignee_name
  FROM memberships m
  JOIN projects p ON p.org_id = m.org_id
  LEFT JOIN LATERAL (
    SELECT id, title, assignee_id, created_at FROM issues
     WHERE org_id = p.org_id AND project_id = p.id
     ORDER BY created_at DESC, id DESC LIMIT 50
  ) i ON true
  LEFT JOIN users u ON u.id = i.assignee_id
 WHERE m.user_id = $1 AND m.org_id = $2
 ORDER BY m.created_at, m.id, p.key, i.created_at DESC, i.id DESC`;
