import type { RecordedEvent } from './event.js';

/** Field names as the REST API and webhooks write them (assigneeId -> assignee_id). */
export const snakeField = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * The webhook payload of an event, as the exact text that is signed and sent (the outbox keeps
 * this string, so every attempt sends the same bytes). Standard Webhooks' shape: `type`,
 * `timestamp`, `data`; plus the event id, who made the change and what changed.
 */
export function webhookPayload(event: Omit<RecordedEvent, 'seq'>): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    organization_id: event.orgId,
    actor: { user_id: event.actorId, via: event.via, via_id: event.viaId },
    data: event.data,
    changes: event.changes.map((change) => ({ field: snakeField(change.field), old: change.old, new: change.new })),
  });
}

/** The ping payload: lets an owner check an endpoint and its signature check. */
export function pingPayload(id: string, orgId: string, webhookId: string, at: Date): string {
  return JSON.stringify({
    id,
    type: 'webhook.ping',
    timestamp: at.toISOString(),
    organization_id: orgId,
    data: { webhook_id: webhookId },
  });
}

/** The events of a write as rows, from a JSON array parameter (what recordEvents sends). */
export const eventRowsSql = (json: string) =>
  `SELECT * FROM jsonb_to_recordset(${json}) AS e(n int, id uuid, type text, subject_id uuid, project_id uuid, changes jsonb, to_status text, payload text)`;

/**
 * The CTEs that write a CTE `e` of events (shaped as eventRowsSql gives them): `ev` inserts the
 * history rows (returning seq and id), `outbox` queues each event for every enabled webhook of
 * the organization that wants its type (none: nothing more is written), returning a row for each
 * (the statement counts them: only a write that queued a delivery wakes the worker). The
 * arguments are the SQL of the organization, the actor, through what, its id and the time. The
 * one place the history and the outbox are written: RECORD_EVENTS_SQL and the issue create
 * (src/schema/issues/create.ts) both end with these.
 */
export function writeEventsCtes(org: string, actor: string, via: string, viaId: string, at: string): string {
  return `ev AS (
  INSERT INTO events (id, org_id, type, subject_id, project_id, actor_id, via, via_id, changes, to_status, created_at)
  SELECT e.id, ${org}, e.type, e.subject_id, e.project_id, ${actor}, ${via}, ${viaId}, e.changes, e.to_status, ${at}
    FROM e ORDER BY e.n
  RETURNING seq, id
), outbox AS (
  INSERT INTO webhook_deliveries (id, webhook_id, org_id, message_id, event_type, order_key, payload, next_attempt_at)
  SELECT gen_random_uuid(), w.id, w.org_id, e.id::text, e.type, e.subject_id::text, e.payload, ${at}
    FROM e JOIN webhooks w ON w.org_id = ${org} AND w.enabled AND (e.type = ANY(w.events) OR '*' = ANY(w.events))
   ORDER BY e.n, w.id
  RETURNING 1
)`;
}

/**
 * One statement for the history rows and their outbox rows. $1 org, $2 actor, $3 via, $4 via
 * id, $5 created at, $6 the events as JSON.
 */
export const RECORD_EVENTS_SQL = `
WITH e AS (${eventRowsSql('$6::jsonb')}),
${writeEventsCtes('$1::uuid', '$2::uuid', '$3', '$4', '$5::timestamptz')}
SELECT seq::text AS seq, id::text AS id, (SELECT count(*)::int FROM outbox) AS queued FROM ev`;
