import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { Context } from '../../context.js';
import { type AliasableExpression, type ColumnDataType, type CompiledQuery, type Expression, sql } from 'kysely';
import { directSql, type SqlValue } from '../../db/direct-sql.js';
import { builder, prepared, rowsOf, transactionRowsOf } from '../../db/sql-builder.js';
import { typedValue } from '../../db/sql-conditions.js';
import { type EventRow, eventRows, eventWriter, eventWrites } from '../../events/outbox.js';
import {
  announceEvents,
  claimedTransaction,
  prepareEvents,
  type Recorded,
  type RecordedEvent,
} from '../../events/record.js';
import { issueChange, issueData } from '../../events/subjects.js';
import type { Issue } from '../../generated/prisma/client.js';
import { type FieldError, NotFoundError, ValidationError } from '../core/errors.js';
import { CREATE_FIELDS, ISSUE_FIELD_NAMES, ISSUE_TABLE, type IssueField } from './columns.js';
import { issueSelection } from './select.js';
import type { IssueLabels, LabelSummary } from '../labels/issue-labels.js';
import { labelsIn, labelsNamed } from '../labels/lookup.js';
import { checkAssignee, type CreateIssue } from './input.js';

/** An issue row as the GraphQL Issue object reads it, with its project's key (for `key`). */
export type CreatedIssue = Issue & { project: { key: string }; labels: IssueLabels };

type IssueTable = typeof ISSUE_TABLE;
/** The fields createIssue writes (CREATE_FIELDS): each comes from the input, sent as its kind says. */
type WrittenField = { [F in IssueField]: IssueTable[F] extends { write: object } ? F : never }[IssueField];
const WRITTEN = CREATE_FIELDS as readonly WrittenField[];

/** How a value of each kind is sent: PostgreSQL reads one left uncast in INSERT ... SELECT as text. */
const SENT_AS: Record<IssueTable[IssueField]['kind'], ColumnDataType | null> = {
  uuid: 'uuid',
  uuids: null,
  int: 'integer',
  time: 'timestamptz',
  text: null,
  status: null,
  priority: null,
};

/**
 * The create statement's values: those the service sets, the events (prepareEvents' JSON, who and
 * how, the request's trace), the placeholders its webhook payload holds for what only the statement knows (the
 * number's, quoted as the JSON number's place, the number's inside the key, the project key's),
 * the ids of the labels it carries from the start, then the written fields' in CREATE_FIELDS' order.
 */
type CreateValues = [
  now: Date,
  orgId: string,
  id: string,
  events: string,
  actorId: string | null,
  via: string,
  viaId: string | null,
  traceparent: string | null,
  quotedNumber: string,
  number: string,
  key: string,
  labelIds: readonly string[],
  ...written: SqlValue[],
];

function createStatement(...values: CreateValues) {
  const [now, orgId, id, events, actorId, via, viaId, traceparent, quotedNumber, number, key, labelIds, ...written] =
    values;
  const at = typedValue(now, 'timestamptz');
  const org = typedValue(orgId, 'uuid');
  const labels = typedValue(labelIds, sql`uuid[]`);
  const input = {} as Record<WrittenField, AliasableExpression<unknown>>;
  WRITTEN.forEach((field, i) => {
    const type = SENT_AS[ISSUE_TABLE[field].kind];
    input[field] = type ? typedValue(written[i], type) : sql.val(written[i]);
  });
  const serviceSet: Record<Exclude<IssueField, WrittenField>, AliasableExpression<unknown>> = {
    id: typedValue(id, 'uuid'),
    orgId: org,
    number: sql.ref('project.issue_count'),
    createdAt: at,
    updatedAt: at,
    labelIds: sql`'{}'::uuid[]`,
  };
  const inserted: Record<IssueField, AliasableExpression<unknown>> = { ...serviceSet, ...input };
  const columns = ISSUE_FIELD_NAMES.map((field) => ISSUE_TABLE[field].column);
  const assignee = input.assigneeId;
  const writes = eventWrites(eventWriter(orgId, actorId, via, viaId, now, traceparent));
  // Every label still the organization's, each held (FOR KEY SHARE) until the statement commits:
  // a label deleted meanwhile is a create that writes nothing, never an issue without it or an
  // error of the foreign key.
  const labelsHeld = sql<boolean>`(select count(*) from (select 1 from labels where org_id = ${org} and id = any(${labels}) for key share) as held) = cardinality(${labels})`;
  return builder
    .with('project', (db) =>
      db
        .updateTable('projects')
        .set((eb) => ({ issue_count: eb('issue_count', '+', eb.lit(1)), updated_at: at }))
        .where('org_id', '=', org)
        .where('id', '=', input.projectId as Expression<string>)
        .where((eb) =>
          eb.or([
            eb(assignee, 'is', null),
            eb.exists(
              eb
                .selectFrom('memberships')
                .select(eb.lit(1).as('member'))
                .where('org_id', '=', org)
                .where('user_id', '=', assignee as Expression<string>),
            ),
          ]),
        )
        .where(labelsHeld)
        .returning(['key', 'issue_count']),
    )
    .with('issue', (db) =>
      db
        .insertInto('issues')
        .columns(columns)
        .expression(
          db
            .selectFrom('project')
            .select(ISSUE_FIELD_NAMES.map((field) => inserted[field].as(ISSUE_TABLE[field].column))),
        )
        .returning(columns),
    )
    .with(
      'e',
      (db): Expression<EventRow> =>
        db
          .selectFrom([eventRows(events, 'r'), 'issue', 'project'])
          .select((eb) => [
            'r.n',
            'r.id',
            'r.type',
            'r.subject_id',
            'r.project_id',
            'r.changes',
            'r.to_status',
            eb
              .fn<string>('replace', [
                eb.fn('replace', [
                  eb.fn('replace', ['r.payload', eb.val(quotedNumber), eb.cast('issue.number', 'text')]),
                  eb.val(number),
                  eb.cast('issue.number', 'text'),
                ]),
                eb.val(key),
                'project.key',
              ])
              .as('payload'),
          ]),
    )
    .with('labelled', (db) =>
      db
        .insertInto('issue_labels')
        .columns(['org_id', 'issue_id', 'label_id'])
        .expression(
          db.selectFrom('issue').select(['issue.org_id', 'issue.id', sql<string>`unnest(${labels})`.as('label_id')]),
        ),
    )
    .with('ev', () => writes.history)
    .with('outbox', () => writes.outbox)
    .selectFrom(['issue', 'project'])
    .select(issueSelection('issue', ISSUE_FIELD_NAMES, { uuidAsText: true }))
    .select((eb) => [
      'project.key as projectKey',
      eb
        .selectFrom('ev')
        .select((s) => s.cast<string>('ev.seq', 'text').as('seq'))
        .$asScalar()
        .as('seq'),
      eb
        .selectFrom('outbox')
        .select((c) => c.cast<number>(c.fn.countAll(), 'integer').as('queued'))
        .$asScalar()
        .as('queued'),
    ]);
}

/**
 * The create, compiled once (prepared). Exported for the benchmark's baseline, which sends the
 * same statement.
 */
export const createIssueStatement = prepared(createStatement, 12 + WRITTEN.length);
export const CREATE_ISSUE_SQL = createIssueStatement.text;

/** A create's statement and how its row becomes the issue and its recorded events. */
export interface IssueCreate {
  statement: ReturnType<typeof createIssueStatement.with>;
  /** The issue and its events, from the statement's row (none: nothing was written). */
  done(row: CreateRow): { issue: CreatedIssue } & Recorded;
}
type CreateRow = ReturnType<typeof createIssueStatement.with> extends CompiledQuery<infer Row> ? Row : never;

/**
 * The create statement of one issue carrying `labels` (those its input names, as labelsIn found
 * them) and how to read its answer: insertIssue sends it alone, createIssues
 * (src/schema/issues/bulk.ts) sends many in one transaction.
 */
export function issueCreate(
  ctx: Context,
  orgId: string,
  input: z.output<typeof CreateIssue>,
  labels: readonly LabelSummary[],
): IssueCreate {
  const carried: IssueLabels = labels.map((label) => ({ label }));
  // Ids and times come from this process, as for every other row Prisma writes.
  const id = randomUUID();
  const now = new Date();
  // The webhook payload is text built here (webhookPayload: the bytes that are signed), but the
  // number and the key come from the project's counter, inside the statement. The payload is
  // built with random placeholders in their place, which the statement replaces: JSON.stringify
  // writes them as they are (letters and digits), and no text of a request can hold them by
  // chance (122 random bits each). The history row's `changes` hold neither.
  const number = `n${randomUUID().replaceAll('-', '')}`;
  const key = `k${randomUUID().replaceAll('-', '')}`;
  const provisional = {
    ...Object.fromEntries(WRITTEN.map((field) => [field, input[field] ?? null])),
    id,
    orgId,
    number: number as unknown as number,
    createdAt: now,
    updatedAt: now,
    project: { key },
    labels: carried,
  } as CreatedIssue;
  const prepared = prepareEvents(ctx, orgId, [issueChange('issue.created', null, provisional)], now);
  const { actor } = prepared;
  const statement = createIssueStatement.with(
    now,
    orgId,
    id,
    prepared.json,
    actor.actorId,
    actor.via,
    actor.viaId,
    prepared.traceparent,
    `"${number}"`,
    number,
    key,
    labels.map((label) => label.id),
    ...WRITTEN.map((field) => input[field] ?? null),
  );
  return {
    statement,
    done(row) {
      const { projectKey, seq, queued, ...columns } = row;
      const issue: CreatedIssue = { ...columns, project: { key: projectKey }, labels: carried };
      const events = prepared.events.map(
        (event): RecordedEvent => ({ ...event, data: issueData(issue), seq: BigInt(seq) }),
      );
      return { issue, events, queued };
    },
  };
}

/**
 * Why a create is refused, every field error at once: the assignee's (not a member), then the
 * labels' (`labelErrors`, each naming no label); with none of them, its project is gone.
 */
async function refuseCreate(
  ctx: Context,
  orgId: string,
  assigneeId: string | null | undefined,
  labelErrors: FieldError[],
): Promise<never> {
  const errors: FieldError[] = [];
  try {
    await checkAssignee(ctx.prisma, orgId, assigneeId);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    errors.push(...error.fieldErrors);
  }
  errors.push(...labelErrors);
  if (errors.length) throw new ValidationError(errors);
  throw new NotFoundError('project');
}

/** The labels a new issue's input names, found with one statement (none when it names none), or the errors of those that name none. */
const newIssueLabels = async (ctx: Context, orgId: string, refs: readonly string[] = []) =>
  labelsIn(await labelsNamed(ctx.prisma, orgId, refs), refs, 'labels');

/**
 * Creates an issue in one statement: the project's counter is incremented and the issue
 * inserted with the new number and its labels, only if the project is the organization's, the
 * assignee (if any) is a member and the labels are still the organization's; the same statement
 * writes its history row and its webhook outbox rows
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
  const { labels, errors } = await newIssueLabels(ctx, orgId, input.labels);
  if (errors.length) return refuseCreate(ctx, orgId, input.assigneeId, errors);
  const create = issueCreate(ctx, orgId, input, labels);
  // One statement, its own transaction: sent without Prisma's client (src/db/direct-sql.ts).
  // Under an Idempotency-Key it runs in a transaction with the claim's mark instead (a few round
  // trips more, for keyed creates only), so a retry after a crash can know whether it ran.
  const row = ctx.idempotency
    ? (await claimedTransaction(ctx, (tx) => transactionRowsOf(tx, create.statement)))[0]
    : (await rowsOf(directSql(ctx.prisma), create.statement))[0];
  // Nothing written: say why, the field errors first, else the project.
  if (!row) return refuseCreate(ctx, orgId, input.assigneeId, (await newIssueLabels(ctx, orgId, input.labels)).errors);
  const { issue, ...recorded } = create.done(row);
  announceEvents(ctx, recorded);
  return issue;
}
