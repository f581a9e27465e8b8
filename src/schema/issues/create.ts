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
import { NotFoundError } from '../core/errors.js';
import { CREATE_FIELDS, ISSUE_FIELD_NAMES, ISSUE_TABLE, type IssueField } from './columns.js';
import { issueSelection } from './select.js';
import type { IssueLabels } from '../labels/issue-labels.js';
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
  int: 'integer',
  time: 'timestamptz',
  text: null,
  status: null,
  priority: null,
};

/**
 * The create statement's values: those the service sets, the events (prepareEvents' JSON, who and
 * how), the placeholders its webhook payload holds for what only the statement knows (the
 * number's, quoted as the JSON number's place, the number's inside the key, the project key's),
 * then the written fields' in CREATE_FIELDS' order.
 */
type CreateValues = [
  now: Date,
  orgId: string,
  id: string,
  events: string,
  actorId: string | null,
  via: string,
  viaId: string | null,
  quotedNumber: string,
  number: string,
  key: string,
  ...written: SqlValue[],
];

function createStatement(...values: CreateValues) {
  const [now, orgId, id, events, actorId, via, viaId, quotedNumber, number, key, ...written] = values;
  const at = typedValue(now, 'timestamptz');
  const org = typedValue(orgId, 'uuid');
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
  };
  const inserted: Record<IssueField, AliasableExpression<unknown>> = { ...serviceSet, ...input };
  const columns = ISSUE_FIELD_NAMES.map((field) => ISSUE_TABLE[field].column);
  const assignee = input.assigneeId;
  const writes = eventWrites(eventWriter(orgId, actorId, via, viaId, now));
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
export const createIssueStatement = prepared(createStatement, 10 + WRITTEN.length);
export const CREATE_ISSUE_SQL = createIssueStatement.text;

/** A create's statement and how its row becomes the issue and its recorded events. */
export interface IssueCreate {
  statement: ReturnType<typeof createIssueStatement.with>;
  /** The issue and its events, from the statement's row (none: nothing was written). */
  done(row: CreateRow): { issue: CreatedIssue } & Recorded;
}
type CreateRow = ReturnType<typeof createIssueStatement.with> extends CompiledQuery<infer Row> ? Row : never;

/**
 * The create statement of one issue and how to read its answer: insertIssue sends it alone,
 * createIssues (src/schema/issues/bulk.ts) sends many in one transaction.
 */
export function issueCreate(ctx: Context, orgId: string, input: z.output<typeof CreateIssue>): IssueCreate {
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
    labels: [] as IssueLabels,
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
    `"${number}"`,
    number,
    key,
    ...WRITTEN.map((field) => input[field] ?? null),
  );
  return {
    statement,
    done(row) {
      const { projectKey, seq, queued, ...columns } = row;
      // A new issue carries no labels.
      const issue: CreatedIssue = { ...columns, project: { key: projectKey }, labels: [] };
      const events = prepared.events.map(
        (event): RecordedEvent => ({ ...event, data: issueData(issue), seq: BigInt(seq) }),
      );
      return { issue, events, queued };
    },
  };
}

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
  const create = issueCreate(ctx, orgId, input);
  // One statement, its own transaction: sent without Prisma's client (src/db/direct-sql.ts).
  // Under an Idempotency-Key it runs in a transaction with the claim's mark instead (a few round
  // trips more, for keyed creates only), so a retry after a crash can know whether it ran.
  const row = ctx.idempotency
    ? (await claimedTransaction(ctx, (tx) => transactionRowsOf(tx, create.statement)))[0]
    : (await rowsOf(directSql(ctx.prisma), create.statement))[0];
  if (!row) {
    // Nothing written: say why, the assignee first (as a validation error), else the project.
    await checkAssignee(ctx.prisma, orgId, input.assigneeId ?? null);
    throw new NotFoundError('project');
  }
  const { issue, ...recorded } = create.done(row);
  announceEvents(ctx, recorded);
  return issue;
}
