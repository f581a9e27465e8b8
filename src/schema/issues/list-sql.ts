import { CompiledQuery, sql, type Expression, type InferResult, type RawBuilder, type SqlBool } from 'kysely';
import { builder } from '../../db/sql-builder.js';
import { all, any, instant, oneOf } from '../../db/sql-conditions.js';
import { LOADED_FIELDS } from './columns.js';
import type { IssueFilterShape } from './filter.js';
import { issueFilterConditions } from './filter-sql.js';
import type { SeekKey } from './order.js';
import { issueColumn, issueSelection, sqlColumn } from './select.js';
import { issueLabelIdsText } from '../labels/page-labels.js';

/**
 * The issue list as one hand-written statement, for DirectSql (src/db/direct-sql.ts): the
 * same conditions, order and keyset as the Prisma query of `listIssues`, which it replaces when
 * the caller asks for nothing but the issue's own columns and its project's key (the REST list,
 * and GraphQL lists that select no other relation). The filter's conditions are the filter's SQL
 * (src/schema/issues/filter-sql.ts); each function here mirrors one in src/schema/issues/order.ts. test/hand-written-sql.test.ts
 * runs both over the same generated filters, orders and cursors, on both databases, and compares the rows.
 */

type Condition = Expression<SqlBool>;

/** A sort key's column: statuses and priorities by their place in the workflow (joined tables, as Prisma's orderBy). */
const ORDER_COLUMN: Record<SeekKey['name'], RawBuilder<unknown>> = {
  createdAt: issueColumn('i', 'createdAt'),
  updatedAt: issueColumn('i', 'updatedAt'),
  title: issueColumn('i', 'title'),
  id: issueColumn('i', 'id'),
  status: sqlColumn('st', 'position'),
  priority: sqlColumn('pr', 'position'),
};
const VALUE_COLUMN: Record<SeekKey['name'], RawBuilder<unknown>> = {
  ...ORDER_COLUMN,
  status: issueColumn('i', 'status'),
  priority: issueColumn('i', 'priority'),
};

function keyValue(name: SeekKey['name'], value: Date | string) {
  if (value instanceof Date) return instant(value);
  return name === 'id' ? sql`${value}::uuid` : sql`${value}`;
}

/** Rows strictly after a cursor's row: the keyset condition of keysetWhere (src/schema/issues/order.ts), in SQL. */
function seekCondition(keys: SeekKey[]): Condition {
  const branches = keys.map((key, i) => {
    const equal = keys.slice(0, i).map((k) => sql<SqlBool>`${VALUE_COLUMN[k.name]} = ${keyValue(k.name, k.value)}`);
    const column = VALUE_COLUMN[key.name];
    const past = key.workflowPast
      ? oneOf(column, key.workflowPast)
      : sql<SqlBool>`${column} ${sql.raw(key.desc ? '<' : '>')} ${keyValue(key.name, key.value)}`;
    return all([...equal, past]);
  });
  return any(branches);
}

export interface IssueListQuery {
  orgId: string;
  projectId?: string | null;
  filter?: IssueFilterShape | null;
  /** The sort keys in reading order (already reversed for a page read backwards). */
  order: { name: SeekKey['name']; desc: boolean }[];
  /** Keyset conditions from the cursors (`after` and `before`). */
  seeks: SeekKey[][];
  take: number;
  /** Also the description, the project's key and the labels, when the caller shows them. */
  description: boolean;
  projectKey: boolean;
  labels: boolean;
}

/** The part of the statement before WHERE: its select list and joins (`by`: the workflow tables the order joins). */
function selectAndJoins(
  by: { status: boolean; priority: boolean },
  description: boolean,
  projectKey: boolean,
  labels: boolean,
) {
  return (
    builder
      .selectFrom('issues as i')
      .$if(by.status, (q) => q.innerJoin('issue_statuses as st', 'st.name', 'i.status'))
      .$if(by.priority, (q) => q.innerJoin('issue_priorities as pr', 'pr.name', 'i.priority'))
      .$if(projectKey, (q) =>
        q.innerJoin('projects as p', (join) =>
          join.onRef('p.org_id', '=', 'i.org_id').onRef('p.id', '=', 'i.project_id'),
        ),
      )
      .select(issueSelection('i', LOADED_FIELDS))
      .$if(description, (q) => q.select(issueSelection('i', ['description'])))
      // As Prisma gives a selected relation (the drivers parse json).
      .$if(projectKey, (q) =>
        q.select(sql<{ key: string }>`json_build_object('key', ${sql.ref('p.key')})`.as('project')),
      )
      // The labels version and their ids, which pageLabels (src/schema/labels/page-labels.ts) turns into Prisma's shape of the relation.
      .$if(labels, (q) =>
        q
          // One row (the organization every issue of the page belongs to), read once.
          .innerJoin('organizations as lo', 'lo.id', 'i.org_id')
          .select(issueLabelIdsText('i', 'lo').as('labels')),
      )
  );
}

/** An issue of the list: the columns of ISSUE_COLUMNS, and `description`, `project: { key }` and the label ids (`labels`) when asked for. */
export type IssueListRow = InferResult<ReturnType<typeof selectAndJoins>>[number];

/**
 * Each of the 32 forms of that part, compiled once: building and compiling it costs about 30
 * times as much as the rest of the statement, and it holds no value.
 */
const compiledSelects = new Map<string, string>();
function selectAndJoinsText(
  by: { status: boolean; priority: boolean },
  description: boolean,
  projectKey: boolean,
  labels: boolean,
): string {
  const key = `${+by.status}${+by.priority}${+description}${+projectKey}${+labels}`;
  let text = compiledSelects.get(key);
  if (text === undefined) {
    text = selectAndJoins(by, description, projectKey, labels).compile().sql;
    compiledSelects.set(key, text);
  }
  return text;
}

/**
 * The statement. A list without filter and cursor (every first page) has a handful of forms,
 * each compiled once: its values are the organization, the project and the page size, in that
 * order (checked when the form is compiled).
 */
export function issueListStatement(query: IssueListQuery): RawBuilder<IssueListRow> | CompiledQuery<IssueListRow> {
  if (query.filter || query.seeks.length) return buildStatement(query);
  const key = `${+Boolean(query.projectId)}${+query.description}${+query.projectKey}${+query.labels}${query.order.map((k) => `${k.name} ${k.desc}`).join()}`;
  const values = query.projectId ? [query.orgId, query.projectId, query.take] : [query.orgId, query.take];
  let text = compiledFirstPages.get(key);
  if (text === undefined) {
    const { sql: compiledText, parameters } = buildStatement(query).compile(builder);
    if (parameters.length !== values.length || parameters.some((value, i) => value !== values[i]))
      throw new Error("the first page's values are not in the expected order");
    text = compiledText;
    compiledFirstPages.set(key, text);
  }
  return CompiledQuery.raw(text, values) as CompiledQuery<IssueListRow>;
}

const compiledFirstPages = new Map<string, string>();

function buildStatement(query: IssueListQuery): RawBuilder<IssueListRow> {
  const where: Condition[] = [sql<SqlBool>`${issueColumn('i', 'orgId')} = ${query.orgId}::uuid`];
  if (query.projectId) where.push(sql<SqlBool>`${issueColumn('i', 'projectId')} = ${query.projectId}::uuid`);
  if (query.filter) where.push(...issueFilterConditions(query.filter, 'i'));
  where.push(...query.seeks.map(seekCondition));
  const by = {
    status: query.order.some((k) => k.name === 'status'),
    priority: query.order.some((k) => k.name === 'priority'),
  };
  const orderBy = sql.join(query.order.map((k) => sql`${ORDER_COLUMN[k.name]} ${sql.raw(k.desc ? 'desc' : 'asc')}`));
  const head = sql.raw(selectAndJoinsText(by, query.description, query.projectKey, query.labels));
  return sql<IssueListRow>`${head} where ${sql.join(where, sql` and `)} order by ${orderBy} limit ${query.take}`;
}
