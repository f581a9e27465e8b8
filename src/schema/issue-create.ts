import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Issue, Prisma } from '../generated/prisma/client.js';
import { NotFoundError } from './errors.js';
import { checkAssignee, type CreateIssue } from './issue-input.js';

/** An issue row as the GraphQL Issue object reads it, with its project's key (for `key`). */
export type CreatedIssue = Issue & { project: { key: string } };

type Row = Omit<CreatedIssue, 'project'> & { projectKey: string };

/**
 * $1 now, $2 org, $3 project, $4 assignee or null, $5 new id, $6 title, $7 status, $8 priority,
 * $9 description. Exported for the benchmark's baseline, which sends the same statement.
 */
export const CREATE_ISSUE_SQL = `
WITH project AS (
  UPDATE projects SET issue_count = issue_count + 1, updated_at = $1::timestamptz
   WHERE org_id = $2::uuid AND id = $3::uuid
     AND ($4::uuid IS NULL OR EXISTS (SELECT 1 FROM memberships WHERE org_id = $2::uuid AND user_id = $4::uuid))
  RETURNING key, issue_count
), issue AS (
  INSERT INTO issues (id, org_id, project_id, number, title, status, priority, description, assignee_id, created_at, updated_at)
  SELECT $5::uuid, $2::uuid, $3::uuid, project.issue_count, $6, $7, $8, $9, $4::uuid, $1::timestamptz, $1::timestamptz
    FROM project
  RETURNING *
)
SELECT issue.id::text AS "id", issue.org_id::text AS "orgId", issue.project_id::text AS "projectId", issue.number,
       issue.title, issue.status, issue.priority, issue.description, issue.assignee_id::text AS "assigneeId",
       issue.created_at AS "createdAt", issue.updated_at AS "updatedAt", project.key AS "projectKey"
  FROM issue, project`;

/**
 * Creates an issue in one statement: the project's counter is incremented and the issue
 * inserted with the new number, only if the project is the organization's and the assignee
 * (if any) is a member. One statement is one implicit transaction: the row lock taken by the
 * UPDATE serialises concurrent creates in a project until it commits, so numbers have no gaps
 * and no duplicates, and a refused create never takes a number. (Prisma's interactive
 * transaction did the same in five round trips and about ten times the CPU; see bench/SUMMARY.md.)
 */
export async function insertIssue(db: Prisma.TransactionClient, orgId: string, input: z.output<typeof CreateIssue>): Promise<CreatedIssue> {
  // Ids and times come from this process, as for every other row Prisma writes.
  const id = randomUUID();
  const now = new Date();
  const assigneeId = input.assigneeId ?? null;
  const rows = await db.$queryRawUnsafe<Row[]>(
    CREATE_ISSUE_SQL, now, orgId, input.projectId, assigneeId, id, input.title, input.status, input.priority, input.description ?? null,
  );
  const row = rows[0];
  if (!row) {
    // Nothing written: say why, the assignee first (as a validation error), else the project.
    await checkAssignee(db, orgId, assigneeId);
    throw new NotFoundError('project');
  }
  const { projectKey, ...issue } = row;
  return { ...issue, project: { key: projectKey } };
}
