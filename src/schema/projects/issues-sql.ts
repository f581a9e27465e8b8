import { type ExpressionBuilder, type InferResult, type SqlBool, sql } from 'kysely';
import { builder, type Database, PreparedForms } from '../../db/sql-builder.js';
import { typedValue } from '../../db/sql-conditions.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { issueSelection } from '../issues/select.js';
import { ISSUE_COLUMNS, ISSUE_TABLE, LOADED_FIELDS, type IssueRow, type LoadedField } from '../issues/columns.js';
import { LOADED_ON_ROW } from '../core/loaded-on-row.js';
import { USER_COLUMNS } from '../people/columns.js';

/**
 * The statements behind Project.issues (src/schema/projects/issues-operations.ts): one page of issues for
 * every project of a request in one statement, each page cut to its size inside the database
 * (`LATERAL ... LIMIT`). Prisma's nested relation builds a JSON object for every issue of each
 * project before it keeps 50, so its cost grew with the projects; its cursor pages are a
 * statement per parent.
 *
 * The page follows Prisma's paging of a relation exactly (the equivalence test compares them):
 * the project's rows at or after the cursor's row in the page's order, `skip` of them left out
 * (1 with a cursor: the cursor's own row), `take` of them kept; a negative `take` pages
 * backwards (reads in the opposite order, answers in the page's order).
 */

/**
 * What the statement can load with each issue besides its own columns: relation -> (field ->
 * column), and the fields the related object resolves as plain fields (`plain`): a relation
 * that asks for those alone answers from the row (src/schema/core/loaded-on-row.ts).
 */
const JOINABLE = {
  assignee: {
    alias: 'u',
    columns: { id: 'id', name: 'name', username: 'username', locale: 'locale', email: 'email' },
    plain: Object.keys(USER_COLUMNS),
  },
  project: { alias: 'p', columns: { id: 'id', key: 'key', name: 'name' }, plain: [] as string[] },
} as const;
type Joinable = keyof typeof JOINABLE;

/**
 * The issue columns each field of the Issue object reads (src/schema/issues/issue.ts), by field: a
 * column loaded with every row reads itself, `key` the number; relations and `description` come
 * with the Prisma selection instead. A page loads the columns of the fields its query selects:
 * the timestamps alone, parsed for every row, cost more CPU than the rest of a 500-issue
 * response's statement. A field missing here loads every column.
 */
const FIELD_COLUMNS: Record<string, readonly IssueColumn[]> = {
  __typename: [],
  ...Object.fromEntries(LOADED_FIELDS.map((field) => [field, [field]])),
  key: ['number'],
  description: [],
  project: [],
  assignee: [],
};

/**
 * The Issue fields that resolve from the row's columns alone, as plain fields (the loaded
 * columns, src/schema/issues/issue.ts): the others (`key`, `description`, the relations) are Pothos
 * prisma fields, which look up per row the plan that loaded it, unless the row answers them
 * itself (`onRow`).
 */
const PLAIN_FIELDS: ReadonlySet<string> = new Set(['__typename', ...LOADED_FIELDS]);

/** Whether the rows of `shape` answer every field of `fields` without Pothos' plan (and so need none recorded for them). */
export function answeredByRows(shape: PageShape, fields: ReadonlySet<string> | null): boolean {
  return !!fields && [...fields].every((field) => PLAIN_FIELDS.has(field) || shape.onRow.includes(field));
}

type IssueColumn = LoadedField;

/** How a page's rows are made from a Prisma selection of Issue: what the statement loads, and what is left to Prisma. */
export interface PageShape {
  /** The issue's own columns loaded (the id always: the cursors are made of it). */
  columns: IssueColumn[];
  description: boolean;
  /** Per joined relation, the fields selected of it (absent: not selected). */
  joined: Partial<Record<Joinable, string[]>>;
  /** The part of the selection the statement cannot load (deeper relations, other fields), or null. */
  rest: Prisma.IssueSelect | null;
  /** The joined relations whose fields are all plain: they answer from the row. */
  onRow: string[];
}

/**
 * `fields`: the names of the Issue fields the query selects (null: unknown, every column);
 * `relationFields`: those it selects of a relation (absent: unknown). A relation that answers
 * from the row is loaded with the fields the query reads of it (and its id) only.
 */
export function pageShape(
  select: Prisma.IssueSelect | undefined,
  fields: ReadonlySet<string> | null,
  relationFields: Partial<Record<string, ReadonlySet<string> | null>> = {},
): PageShape {
  const columns = new Set<IssueColumn>(['id']);
  for (const field of fields ?? ['*']) {
    const read = FIELD_COLUMNS[field];
    if (!read) {
      for (const column of LOADED_FIELDS) columns.add(column);
      break;
    }
    for (const column of read) columns.add(column);
  }
  const shape: PageShape = { columns: [...columns], description: false, joined: {}, rest: null, onRow: [] };
  const rest: Record<string, unknown> = {};
  for (const [field, wanted] of Object.entries(select ?? {})) {
    if (!wanted) continue;
    if (field in ISSUE_COLUMNS && wanted === true) continue;
    if (field === 'description' && wanted === true) {
      shape.description = true;
      continue;
    }
    const fields = joinableFields(field, wanted);
    if (fields) shape.joined[field as Joinable] = fields;
    else rest[field] = wanted;
  }
  if (Object.keys(rest).length) shape.rest = rest as Prisma.IssueSelect;
  for (const [relation, joined] of Object.entries(shape.joined) as [Joinable, string[]][]) {
    const plain: readonly string[] = JOINABLE[relation].plain;
    if (!joined.every((field) => plain.includes(field))) continue;
    shape.onRow.push(relation);
    const read = relationFields[relation];
    if (read) shape.joined[relation] = joined.filter((field) => field === 'id' || read.has(field));
  }
  return shape;
}

/** The columns a relation selection asks for, when they are all plain columns of a joinable table. */
function joinableFields(field: string, wanted: unknown): string[] | null {
  if (!(field in JOINABLE) || typeof wanted !== 'object' || wanted === null) return null;
  const { select, ...other } = wanted as { select?: Record<string, unknown> };
  if (Object.keys(other).length || !select) return null;
  const columns: Record<string, string> = JOINABLE[field as Joinable].columns;
  const fields = Object.keys(select).filter((name) => select[name]);
  if (!fields.every((name) => select[name] === true && name in columns)) return null;
  // The assignee's id tells an unassigned issue (no user joined) from an assigned one.
  return field === 'assignee' && !fields.includes('id') ? ['id', ...fields] : fields;
}

/** Prisma's cursor paging, as its `findMany` arguments say it: take (negative: backwards), skip, cursor. */
export interface PageArgs {
  take: number;
  skip: number;
  cursor?: { id: unknown };
}

/** An issue of a page: the columns its query reads (typed as all of them: no field reads another). */
export interface PageRow extends IssueRow {
  [field: string]: unknown;
}

/** The organizations a caller reads in: one (`org`), every one a user is a member of (`memberOf`), or none (null). */
export type ReadableOrgs = { org: string } | { memberOf: string } | null;

const readableKind = (readable: ReadableOrgs) => (readable === null ? 'none' : 'org' in readable ? 'org' : 'member');
const readableValue = (readable: ReadableOrgs) =>
  readable === null ? null : 'org' in readable ? readable.org : readable.memberOf;

/** The condition on a project's organization (`p.org_id`) that admits `kind`'s organizations, `value` its id. */
function readableCondition(kind: ReturnType<typeof readableKind>, value: string | null) {
  return (eb: ExpressionBuilder<Database & { p: Database['projects'] }, 'p'>) => {
    if (kind === 'none') return eb.lit(false);
    if (kind === 'org') return eb('p.org_id', '=', typedValue(value, 'uuid'));
    return eb(
      'p.org_id',
      'in',
      eb.selectFrom('memberships as m').select('m.org_id').where('m.user_id', '=', typedValue(value, 'uuid')),
    );
  };
}

/** A list of ids, sent as an array of uuids (Kysely has no name for an array type). */
const uuids = (ids: string[]) => typedValue(ids, sql`uuid[]`);

/** Kept forms of the statements: a page's form follows the fields its query selects. */
const FORMS_MAX = 500;

/** The issue columns the page reads from each project's issues (every loaded one: the outer select picks). */
const LATERAL_COLUMNS = LOADED_FIELDS.map((field) => `i.${ISSUE_TABLE[field].column}` as const);

type PageValues = [projectIds: string[], limit: number, offset: number, cursor: string | null, reader: string | null];

function pageForm(shape: PageShape, backwards: boolean, cursor: boolean, readable: ReturnType<typeof readableKind>) {
  const order = backwards ? 'asc' : 'desc';
  return (projectIds: string[], limit: number, offset: number, cursorId: string | null, reader: string | null) =>
    builder
      // WITH ORDINALITY and a column alias list have no Kysely construct.
      .selectFrom(
        sql<{ id: string; n: string }>`unnest(${uuids(projectIds)}) with ordinality`.as<'ids'>(sql`ids(id, n)`),
      )
      .innerJoin('projects as p', 'p.id', 'ids.id')
      .crossJoinLateral((eb) =>
        eb
          .selectFrom('issues as i')
          .select(LATERAL_COLUMNS)
          .$if(shape.description, (q) => q.select('i.description'))
          .whereRef('i.org_id', '=', 'p.org_id')
          .whereRef('i.project_id', '=', 'p.id')
          // Prisma pages a relation per parent: a cursor that is not one of the project's own
          // issues (another project's, another organization's, or none) gives an empty page.
          .$if(cursor, (q) =>
            q.where((c) => {
              const cursorRow = c
                .selectFrom('issues as c')
                .select(['c.created_at', 'c.id'])
                .where('c.id', '=', typedValue(cursorId, 'uuid'))
                .whereRef('c.org_id', '=', 'p.org_id')
                .whereRef('c.project_id', '=', 'p.id');
              // Kysely types no comparison of a row with a subquery's row: a `sql` piece.
              return sql<SqlBool>`${c.refTuple('i.created_at', 'i.id')} ${sql.raw(backwards ? '>=' : '<=')} ${cursorRow}`;
            }),
          )
          .orderBy('i.created_at', order)
          .orderBy('i.id', order)
          .limit(limit)
          .offset(offset)
          .as('i'),
      )
      .$if(!!shape.joined.assignee, (q) => q.leftJoin('users as u', 'u.id', 'i.assignee_id'))
      // A row names its project by its place in `projectIds` (a small number, where the id was a
      // 36-character column to read on every row of the page).
      .select((eb) => eb.cast<number>('ids.n', 'integer').as('pageOf'))
      .select(issueSelection('i', shape.columns))
      .$if(shape.description, (q) => q.select('i.description'))
      .select(
        (Object.entries(shape.joined) as [Joinable, string[]][]).flatMap(([relation, fields]) => {
          const { alias, columns } = JOINABLE[relation];
          return fields.map((field) =>
            sql.ref(`${alias}.${(columns as Record<string, string>)[field]}`).as(`${relation}.${field}`),
          );
        }),
      )
      .where(readableCondition(readable, reader))
      .orderBy('ids.n')
      .orderBy('i.created_at', 'desc')
      .orderBy('i.id', 'desc');
}

const pageForms = new PreparedForms<PageValues, InferResult<ReturnType<ReturnType<typeof pageForm>>>[number]>(
  5,
  FORMS_MAX,
);

/**
 * The page of every project of `projectIds` that `readable` admits, in the page's order,
 * grouped by project; `pageOf` is the project's place in `projectIds`, from 1. Each form (the
 * shape, the direction, a cursor or none, whose organizations) is compiled once.
 */
export function pageStatement(projectIds: string[], readable: ReadableOrgs, page: PageArgs, shape: PageShape) {
  const backwards = page.take < 0;
  const cursor = page.cursor ? (page.cursor.id as string) : null;
  const kind = readableKind(readable);
  const joined = Object.entries(shape.joined).map(([relation, fields]) => `${relation}:${fields.join()}`);
  const key = `${kind} ${+backwards}${+(cursor !== null)}${+shape.description} ${shape.columns.join()} ${joined.join(' ')}`;
  return pageForms
    .get(key, pageForm(shape, backwards, cursor !== null, kind))
    .with(projectIds, Math.abs(page.take), page.skip, cursor, readableValue(readable));
}

const countForm = (readable: ReturnType<typeof readableKind>) => (projectIds: string[], reader: string | null) =>
  builder
    .selectFrom('projects as p')
    .select((eb) => [
      'p.id',
      eb
        .cast<number>(
          eb
            .selectFrom('issues as i')
            .select(eb.fn.countAll().as('count'))
            .whereRef('i.org_id', '=', 'p.org_id')
            .whereRef('i.project_id', '=', 'p.id'),
          'integer',
        )
        .as('count'),
    ])
    .where((eb) => eb('p.id', '=', eb.fn.any(uuids(projectIds))))
    .where(readableCondition(readable, reader));

const countForms = new PreparedForms<
  [projectIds: string[], reader: string | null],
  InferResult<ReturnType<ReturnType<typeof countForm>>>[number]
>(2, 3);

/** How many issues each project of `projectIds` that `readable` admits holds. */
export function countStatement(projectIds: string[], readable: ReadableOrgs) {
  const kind = readableKind(readable);
  return countForms.get(kind, countForm(kind)).with(projectIds, readableValue(readable));
}

/**
 * Turns a row of pageStatement into the issue Prisma would have answered for the selection,
 * relations as nested objects. Built once per shape, so that a row costs no more than its
 * objects (the column names of each relation are made here, not per row).
 */
export function issueFromRow(shape: PageShape): (row: Record<string, unknown>) => PageRow {
  const relations = (Object.entries(shape.joined) as [Joinable, string[]][]).map(([relation, fields]) => ({
    relation,
    idColumn: `${relation}.id`,
    // An unassigned issue has no assignee (the left join finds no user): null, as Prisma answers.
    nullable: relation === 'assignee',
    fields: fields.map((field) => [field, `${relation}.${field}`] as const),
  }));
  const onRow = shape.onRow.length ? shape.onRow : undefined;
  const own: string[] = shape.description ? [...shape.columns, 'description'] : shape.columns;
  return (row) => {
    // A new object rather than the row: adding properties to the rows $queryRaw makes cost
    // eight times as much as building these.
    const issue: Record<string | symbol, unknown> = {};
    for (const column of own) issue[column] = row[column];
    for (const { relation, idColumn, nullable, fields } of relations) {
      if (nullable && row[idColumn] === null) {
        issue[relation] = null;
        continue;
      }
      const value: Record<string, unknown> = {};
      for (const [field, column] of fields) value[field] = row[column];
      issue[relation] = value;
    }
    if (onRow) issue[LOADED_ON_ROW] = onRow;
    return issue as unknown as PageRow;
  };
}
