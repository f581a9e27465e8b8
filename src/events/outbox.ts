import { type AliasableExpression, sql } from 'kysely';
import { builder, prepared } from '../db/sql-builder.js';
import { typedValue } from '../db/sql-conditions.js';
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

/** An event as the statements read it: a row of the JSON array prepareEvents writes (src/events/record.ts). */
export interface EventRow {
  n: number;
  id: string;
  type: string;
  subject_id: string;
  project_id: string;
  changes: unknown;
  to_status: string | null;
  payload: string;
}

/**
 * The events of a write as a table named `alias`, from a JSON array parameter (what prepareEvents
 * sends). A `sql` piece: Kysely has no construct for a set-returning function with a column
 * definition list.
 */
export function eventRows<Alias extends string>(json: string, alias: Alias) {
  return sql<EventRow>`jsonb_to_recordset(${typedValue(json, 'jsonb')})`.as<Alias>(
    sql`${sql.id(alias)}(n int, id uuid, type text, subject_id uuid, project_id uuid, changes jsonb, to_status text, payload text)`,
  );
}

/**
 * Who wrote a statement's events, and when: the values their history rows and outbox rows take;
 * and the trace of the request that wrote them, when it is traced (currentTraceparent in
 * src/ops/tracing.ts), which the outbox rows keep for their deliveries' spans to link to.
 */
export interface EventWriter {
  org: AliasableExpression<string>;
  actor: AliasableExpression<string | null>;
  via: AliasableExpression<string>;
  viaId: AliasableExpression<string | null>;
  at: AliasableExpression<Date>;
  traceparent: AliasableExpression<string | null>;
}

/** The bound values of an EventWriter, cast where PostgreSQL cannot tell their type. */
export function eventWriter(
  org: string,
  actor: string | null,
  via: string,
  viaId: string | null,
  at: Date,
  traceparent: string | null,
): EventWriter {
  return {
    org: typedValue(org, 'uuid'),
    actor: typedValue(actor, 'uuid'),
    via: typedValue(via, 'text'),
    viaId: typedValue(viaId, 'text'),
    at: typedValue(at, 'timestamptz'),
    traceparent: typedValue(traceparent, 'text'),
  };
}

/** Statements that read a table (a CTE) `e` of events. */
const withEvents = builder.withTables<{ e: EventRow }>();

/**
 * The two CTEs that follow a CTE `e` of events (EventRow): `ev` inserts the history rows
 * (returning seq and id), `outbox` queues each event for every enabled webhook of the
 * organization that wants its type (none: nothing more is written), returning a row for each
 * (the statement counts them: only a write that queued a delivery wakes the worker). The one
 * place the history and the outbox are written: recordEvents (src/events/record.ts) and the
 * issue create (src/schema/issues/create.ts) both end with these.
 */
export function eventWrites(writer: EventWriter) {
  const { org, actor, via, viaId, at, traceparent } = writer;
  const history = withEvents
    .insertInto('events')
    .columns([
      'id',
      'org_id',
      'type',
      'subject_id',
      'project_id',
      'actor_id',
      'via',
      'via_id',
      'changes',
      'to_status',
      'created_at',
    ])
    .expression((eb) =>
      eb
        .selectFrom('e')
        .select([
          'e.id',
          org.as('org_id'),
          'e.type',
          'e.subject_id',
          'e.project_id',
          actor.as('actor_id'),
          via.as('via'),
          viaId.as('via_id'),
          'e.changes',
          'e.to_status',
          at.as('created_at'),
        ])
        .orderBy('e.n'),
    )
    .returning(['seq', 'id']);
  const outbox = withEvents
    .insertInto('webhook_deliveries')
    .columns([
      'id',
      'webhook_id',
      'org_id',
      'message_id',
      'event_type',
      'order_key',
      'payload',
      'next_attempt_at',
      'traceparent',
    ])
    .expression((eb) =>
      eb
        .selectFrom('e')
        .innerJoin('webhooks as w', (join) =>
          join.on((on) =>
            on.and([
              on('w.org_id', '=', org),
              on.ref('w.enabled'),
              on.or([on('e.type', '=', on.fn.any('w.events')), on(sql.lit('*'), '=', on.fn.any('w.events'))]),
            ]),
          ),
        )
        .select((s) => [
          s.fn<string>('gen_random_uuid').as('id'),
          'w.id as webhook_id',
          'w.org_id',
          s.cast<string>('e.id', 'text').as('message_id'),
          'e.type as event_type',
          s.cast<string>('e.subject_id', 'text').as('order_key'),
          'e.payload',
          at.as('next_attempt_at'),
          traceparent.as('traceparent'),
        ])
        .orderBy('e.n')
        .orderBy('w.id'),
    )
    .returning((r) => r.lit(1).as('queued'));
  return { history, outbox };
}

/**
 * The history rows and outbox rows of a write, in one statement (run inside the write's
 * transaction by recordEvents), compiled once: it follows every write but the create.
 */
export const recordEventsStatement = prepared(
  (
    org: string,
    actor: string | null,
    via: string,
    viaId: string | null,
    at: Date,
    traceparent: string | null,
    json: string,
  ) => {
    const { history, outbox } = eventWrites(eventWriter(org, actor, via, viaId, at, traceparent));
    return builder
      .with('e', (db) => db.selectFrom(eventRows(json, 'e')).selectAll())
      .with('ev', () => history)
      .with('outbox', () => outbox)
      .selectFrom('ev')
      .select((eb) => [
        eb.cast<string>('ev.seq', 'text').as('seq'),
        eb.cast<string>('ev.id', 'text').as('id'),
        eb
          .selectFrom('outbox')
          .select((c) => c.cast<number>(c.fn.countAll(), 'integer').as('queued'))
          .$asScalar()
          .as('queued'),
      ]);
  },
  7,
);
