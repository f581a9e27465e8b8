import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Db } from '../db/client.js';
import { NotFoundError } from './errors.js';
import { checkAssignee, type CreateIssue } from './issue-input.js';

/** An issue row as the GraphQL Issue object reads it, with its project's key (for `key`). */
export interface CreatedIssue {
  id: string;
  orgId: string;
  projectId: string;
  number: number;
  title: string;
  status: string;
  priority: string;
  description: string | null;
  assigneeId: string | null;
  createdAt: Date;
  updatedAt: Date;
  project: { key: string };
}

type Row = Omit<CreatedIssue, 'project'> & { projectKey: string };

/**
 * Creates an issue in one statement: the project's counter is incremented and the issue
 * inserted with the new number, only if the project is the organization's and the assignee
 * (if any) is a member. One statement is one implicit transaction: the row lock taken by the
 * UPDATE serialises concurrent creates in a project until it commits, so numbers have no gaps
 * and no duplicates, and a refused create never takes a number. (Prisma's interactive
 * transaction did the same in five round trips and about ten times the CPU; see bench/SUMMARY.md.)
 */
export async function insertIssue(db: Db, orgId: string, input: z.output<typeof CreateIssue>): Promise<CreatedIssue> {
  // Ids and times come from this process, as for every other row Prisma writes.
  const id = randomUUID();
  const now = new Date();
  const assigneeId = input.assigneeId ?? null;
  const rows = await db.$queryRaw<Row[]>`
    WITH project AS (
      UPDATE projects SET issue_count = issue_count + 1, updated_at = ${now}::timestamptz
       WHERE org_id = ${orgId}::uuid AND id = ${input.projectId}::uuid
         AND (${assigneeId}::uuid IS NULL
              OR EXISTS (SELECT 1 FROM memberships WHERE org_id = ${orgId}::uuid AND user_id = ${assigneeId}::uuid))
      RETURNING key, issue_count
    ), issue AS (
      INSERT INTO issues (id, org_id, project_id, number, title, status, priority, description, assignee_id, created_at, updated_at)
      SELECT ${id}::uuid, ${orgId}::uuid, ${input.projectId}::uuid, project.issue_count, ${input.title}, ${input.status},
             ${input.priority}, ${input.description ?? null}, ${assigneeId}::uuid, ${now}::timestamptz, ${now}::timestamptz
        FROM project
      RETURNING *
    )
    SELECT issue.id::text AS "id", issue.org_id::text AS "orgId", issue.project_id::text AS "projectId", issue.number,
           issue.title, issue.status, issue.priority, issue.description, issue.assignee_id::text AS "assigneeId",
           issue.created_at AS "createdAt", issue.updated_at AS "updatedAt", project.key AS "projectKey"
      FROM issue, project`;
  const row = rows[0];
  if (!row) {
    // Nothing written: say why, the assignee first (as a validation error), else the project.
    await checkAssignee(db, orgId, assigneeId);
    throw new NotFoundError('project');
  }
  const { projectKey, ...issue } = row;
  return { ...issue, project: { key: projectKey } };
}
