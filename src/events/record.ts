import { randomUUID } from 'node:crypto';
import type { Principal } from '../auth/principal.js';
import type { Db } from '../db/client.js';
import { transactionRowsOf } from '../db/sql-builder.js';
import type { Prisma } from '../generated/prisma/client.js';
import type { Claim } from '../idempotency/claim.js';
import { currentTraceparent } from '../ops/tracing.js';
import { eventsCommitted } from './committed.js';
import type { Change, FieldChange, FieldValue, RecordedEvent, Via } from './event.js';
import { type EventRow, recordEventsStatement, webhookPayload } from './outbox.js';

/** What an event is about and what happened to it. */
export { EVENT_TYPES, type Change, type FieldChange, type RecordedEvent } from './event.js';

/**
 * What recording needs of an operation's context (src/context.ts satisfies it): named here so
 * that the events module does not depend on the context, which depends on live updates, which
 * read events.
 */
export interface EventContext {
  principal: Principal;
  prisma: Db;
  liveUpdates?: { publish(events: RecordedEvent[]): void };
  /** The Idempotency-Key claim the write runs under, which its transaction marks. */
  idempotency?: Pick<Claim, 'db' | 'markCommitted'>;
}

export type Tx = Prisma.TransactionClient;

const TRANSACTION_MAX_WAIT_MS = 30_000;
const TRANSACTION_TIMEOUT_MS = 30_000;

/** Who acts and through what. Session ids stay out: a row id of a cookie says nothing useful and need not be kept. */
function actorOf(principal: Principal): { actorId: string | null; via: Via; viaId: string | null } {
  if (principal.kind !== 'user') return { actorId: null, via: 'cli', viaId: null };
  const { credential } = principal;
  if (credential.kind === 'pat') return { actorId: principal.userId, via: 'pat', viaId: credential.id };
  if (credential.kind === 'oauth')
    return { actorId: principal.userId, via: 'oauth', viaId: credential.clientId ?? null };
  return { actorId: principal.userId, via: 'session', viaId: null };
}

const plain = (value: unknown): FieldValue =>
  value instanceof Date ? value.toISOString() : ((value as FieldValue | undefined) ?? null);

/** The fields (of `names`) whose values differ between `before` and `after`; a missing side reads as null. */
export function fieldChanges(names: readonly string[], before: object | null, after: object | null): FieldChange[] {
  const changes: FieldChange[] = [];
  for (const field of names) {
    const old = plain((before as Record<string, unknown> | null)?.[field]);
    const now = plain((after as Record<string, unknown> | null)?.[field]);
    if (old !== now) changes.push({ field, old, new: now });
  }
  return changes;
}

/** The status an issue change moved it to, if it set one (a delete moves it nowhere). */
function toStatusOf(change: Change): string | null {
  if (!change.type.startsWith('issue.')) return null;
  const status = change.changes.find((c) => c.field === 'status')?.new;
  return typeof status === 'string' ? status : null;
}

/** A write's events before they are inserted: what the statement needs, and what they will be once recorded. */
export interface PreparedEvents {
  actor: ReturnType<typeof actorOf>;
  createdAt: Date;
  events: Omit<RecordedEvent, 'seq'>[];
  /** The events as the JSON array the statements read (eventRows in src/events/outbox.ts), payloads included. */
  json: string;
  /** The write's trace when it is traced, for the outbox rows (EventWriter in src/events/outbox.ts). */
  traceparent: string | null;
}

/**
 * The events of a write's changes (an update that changed nothing records none): ids, who acted,
 * the status reached, and each webhook payload as the exact text that will be signed.
 */
export function prepareEvents(
  ctx: EventContext,
  orgId: string,
  changes: Change[],
  createdAt = new Date(),
): PreparedEvents {
  const wanted = changes.filter((change) => change.changes.length > 0 || !change.type.endsWith('.updated'));
  const actor = actorOf(ctx.principal);
  const events = wanted.map((change) => ({
    ...change,
    ...actor,
    id: randomUUID(),
    orgId,
    toStatus: toStatusOf(change),
    createdAt,
  }));
  const rows = events.map(
    (event, n): EventRow => ({
      n,
      id: event.id,
      type: event.type,
      subject_id: event.subjectId,
      project_id: event.projectId,
      changes: event.changes,
      to_status: event.toStatus,
      payload: webhookPayload(event),
    }),
  );
  return { actor, createdAt, events, json: JSON.stringify(rows), traceparent: currentTraceparent() };
}

/**
 * Records the changes of a write, inside its transaction: one history row per change and one
 * outbox row per webhook that wants it, so the change, its history and its deliveries commit or
 * roll back together. (The issue create writes them in its own single statement, with the same
 * CTEs: src/schema/issues/create.ts.)
 */
async function recordEvents(tx: Tx, ctx: EventContext, orgId: string, changes: Change[]): Promise<Recorded> {
  const prepared = prepareEvents(ctx, orgId, changes);
  if (prepared.events.length === 0) return { events: [], queued: 0 };
  const { actor, createdAt } = prepared;
  const inserted = await transactionRowsOf(
    tx,
    recordEventsStatement.with(
      orgId,
      actor.actorId,
      actor.via,
      actor.viaId,
      createdAt,
      prepared.traceparent,
      prepared.json,
    ),
  );
  const seqs = new Map(inserted.map((row) => [row.id, BigInt(row.seq)]));
  return {
    events: prepared.events.map((event): RecordedEvent => ({ ...event, seq: seqs.get(event.id)! })),
    queued: inserted[0]?.queued ?? 0,
  };
}

/** Events written, and how many webhook deliveries they queued. */
export interface Recorded {
  events: RecordedEvent[];
  queued: number;
}

/** After the commit: the delivery worker wakes up if deliveries were queued; live updates publish. */
export function announceEvents(ctx: EventContext, { events, queued }: Recorded): void {
  if (events.length === 0) return;
  eventsCommitted(events, queued);
  ctx.liveUpdates?.publish(events);
}

/**
 * Runs `write` in a transaction that, under an Idempotency-Key, also marks the key's claim
 * (src/idempotency/claim.ts): last, so its row stays locked only for the commit, and a claim
 * taken over meanwhile rolls the write back. It runs on the claim's unguarded client: this
 * transaction is the one kind of write that does not make the claim opaque.
 */
export async function claimedTransaction<T>(ctx: EventContext, write: (tx: Tx) => Promise<T>): Promise<T> {
  const claim = ctx.idempotency;
  return (claim?.db ?? ctx.prisma).$transaction(
    async (tx) => {
      const result = await write(tx);
      await claim?.markCommitted(tx);
      return result;
    },
    // Prisma's defaults (2 s to get a connection, 5 s in all) fail writes that merely queue: many
    // concurrent creates in one project wait for its row lock in turn, and for the pool.
    { maxWait: TRANSACTION_MAX_WAIT_MS, timeout: TRANSACTION_TIMEOUT_MS },
  );
}

/**
 * Runs a write and the recording of its changes in one transaction (claimedTransaction); after
 * the commit, announces the events (the delivery worker wakes up; live updates publish from here
 * too). `write` returns its result and the changes it made.
 */
export async function writeWithEvents<T>(
  ctx: EventContext,
  orgId: string,
  write: (tx: Tx) => Promise<{ result: T; changes: Change[] }>,
): Promise<{ result: T } & Recorded> {
  const done = await claimedTransaction(ctx, async (tx) => {
    const { result, changes } = await write(tx);
    return { result, ...(await recordEvents(tx, ctx, orgId, changes)) };
  });
  announceEvents(ctx, done);
  return done;
}
