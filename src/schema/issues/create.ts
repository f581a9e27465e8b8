import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Context } from '../../context.js';
import { eventRowsSql, writeEventsCtes } from '../../events/outbox.js';
import { directSql } from '../../db/direct-sql.js';
import { announceEvents, prepareEvents, type RecordedEvent } from '../../events/record.js';
import { issueChange, issueData } from '../../events/subjects.js';
import type { Issue } from '../../generated/prisma/client.js';
import { NotFoundError } from '../core/errors.js';
import { ISSUE_FIELD_NAMES, ISSUE_TABLE } from './columns.js';
import { checkAssignee, type CreateIssue } from './input.js';

/** An issue row as the GraphQL Issue object reads it, with its project's key (for `key`). */
export type CreatedIssue = Issue & { project: { key: string } };

type Row = Omit<CreatedIssue, 'project'> & { projectKey: string; seq: string; queued: number };

/** Every declared column of the inserted row, by its field name (uuids as text, as Prisma gives them). */
const ISSUE_ROW = ISSUE_FIELD_NAMES.map((field) => {
  const { column, kind } = ISSUE_TABLE[field];
  return `issue.${column}${kind === 'uuid' ? '::text' : ''} AS "${field}"`;
}).join(', ');

/**
 * $1 now, $2 org, $3 project, $4 assignee or null, $5 new id, $6 title, $7 status, $8 priority,
 * $9 description; the history: $10 the event as JSON (prepareEvents), $11 actor, $12 via,
 * $13 via id, and the placeholders its webhook payload holds for what only this statement knows:
 * $14 the number's (quoted, as the JSON number's place), $15 the number's inside the key, $16 the
 * project key's. Exported for the benchmark's baseline, which sends the same statement.
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
), e AS (
  SELECT r.n, r.id, r.type, r.subject_id, r.project_id, r.changes, r.to_status,
         replace(replace(replace(r.payload, $14, issue.number::text), $15, issue.number::text), $16, project.key) AS payload
    FROM (${eventRowsSql('$10::jsonb')}) AS r, issue, project
),
${writeEventsCtes('$2::uuid', '$11::uuid', '$12', '$13', '$1::timestamptz')}
SELECT ${ISSUE_ROW}, project.key AS "projectKey",
       (SELECT seq::text FROM ev) AS seq, (SELECT count(*)::int FROM outbox) AS queued
  FROM issue, project`;

/**
 * Creates an issue in one statement: the project's counter is incremented and the issue
 * inserted with the new number, only if the project is the organization's and the assignee
 * (if any) is a member; the same statement writes its history row and its webhook outbox rows
 * (the CTEs of src/events/outbox.ts). One statement is one implicit transaction: the row lock
 * taken by the UPDATE serialises concurrent creates in a project until it commits, so numbers
 * have no gaps and no duplicates, a refused create never takes a number, and the issue never
 * exists without its history. (Prisma's interactive transaction did the same in four round
 * trips and several times the CPU; see bench/SUMMARY.md.) The events are announced after it.
 */
export async function insertIssue(
  ctx: Context,
  orgId: string,
  input: z.output<typeof CreateIssue>,
): Promise<CreatedIssue> {
  // Ids and times come from this process, as for every other row Prisma writes.
  const id = randomUUID();
  const now = new Date();
  const assigneeId = input.assigneeId ?? null;
  // The webhook payload is text built here (webhookPayload: the bytes that are signed), but the
  // number and the key come from the project's counter, inside the statement. The payload is
  // built with random placeholders in their place, which the statement replaces: JSON.stringify
  // writes them as they are (letters and digits), and no text of a request can hold them by
  // chance (122 random bits each). The history row's `changes` hold neither.
  const number = `n${randomUUID().replaceAll('-', '')}`;
  const key = `k${randomUUID().replaceAll('-', '')}`;
  const provisional = {
    id,
    orgId,
    projectId: input.projectId,
    number: number as unknown as number,
    title: input.title,
    status: input.status,
    priority: input.priority,
    description: input.description ?? null,
    assigneeId,
    createdAt: now,
    updatedAt: now,
    project: { key },
  };
  const prepared = prepareEvents(ctx, orgId, [issueChange('issue.created', null, provisional)], now);
  const { actor } = prepared;
  // One statement, its own transaction: sent without Prisma's client (src/db/direct-sql.ts).
  const rows = await directSql(ctx.prisma).rows<Row>({
    text: CREATE_ISSUE_SQL,
    values: [
      now,
      orgId,
      input.projectId,
      assigneeId,
      id,
      input.title,
      input.status,
      input.priority,
      input.description ?? null,
      prepared.json,
      actor.actorId,
      actor.via,
      actor.viaId,
      `"${number}"`,
      number,
      key,
    ],
  });
  const row = rows[0];
  if (!row) {
    // Nothing written: say why, the assignee first (as a validation error), else the project.
    await checkAssignee(ctx.prisma, orgId, assigneeId);
    throw new NotFoundError('project');
  }
  const { projectKey, seq, queued, ...columns } = row;
  const issue: CreatedIssue = { ...columns, project: { key: projectKey } };
  announceEvents(ctx, {
    events: prepared.events.map((event): RecordedEvent => ({ ...event, data: issueData(issue), seq: BigInt(seq) })),
    queued,
  });
  return issue;
}
