import { createContextCache } from '@pothos/core';
import { formatPrismaCursor, queryFromInfo } from '@pothos/plugin-prisma';
import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import type { Context } from '../context.js';
import { createBatch } from './batch.js';
import { countProjectIssues, listProjectIssues, pageArgs, type ProjectIssuePage, type ProjectIssuesQuery } from './project-issues-operations.js';
import { answeredByRows, pageShape, type PageRow } from './project-issues-sql.js';
import { selectedFieldNames } from './selected-fields.js';

interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

const pages = createBatch((ctx: Context, params: { args: ConnectionArgs; query: ProjectIssuesQuery }, projectIds: string[]) =>
  listProjectIssues.call(ctx, { ...params.args, projectIds }, params.query),
);
const counts = createBatch((ctx: Context, _params: undefined, projectIds: string[]) => countProjectIssues.call(ctx, { projectIds }, undefined));

/** What a query asks of each project's issues, and the batch it joins. */
export interface IssueSelection {
  query: ProjectIssuesQuery;
  group: string;
}

/**
 * Per request and field (its field nodes are the same object for every project of a list): the
 * selection, read once. Pothos' plan is made for each project only when a field beneath needs it
 * recorded under that project's path; when the rows answer every field themselves, the first
 * plan is all there is (ten plans per request were 4% of its CPU and a fifth of its allocations).
 */
const selections = createContextCache(
  (_ctx: Context) => new WeakMap<readonly FieldNode[], { query: ProjectIssuesQuery; key: string; planEach: boolean }>(),
);

export function issueSelection(ctx: Context, info: GraphQLResolveInfo, args: ConnectionArgs): IssueSelection {
  const byField = selections(ctx);
  let known = byField.get(info.fieldNodes);
  // The plan records, under this field's path, what the fields beneath look up per row.
  const plan = () => queryFromInfo({ context: ctx, info, path: ['edges', 'node'] });
  if (known?.planEach) plan();
  if (!known) {
    const fields = selectedFieldNames(info, ['edges', 'node']) ?? new Set<string>();
    const query: ProjectIssuesQuery = { ...plan(), fields, relationFields: { assignee: selectedFieldNames(info, ['edges', 'node', 'assignee']) } };
    const key = JSON.stringify([query.select, [...fields], query.relationFields?.assignee && [...query.relationFields.assignee]]);
    known = { query, key, planEach: !answeredByRows(pageShape(query.select, fields, query.relationFields), fields) };
    byField.set(info.fieldNodes, known);
  }
  // The arguments are the execution's own (one context may run a document more than once, with other variables).
  return { query: known.query, group: `${JSON.stringify([args.first, args.last, args.after, args.before])}${known.key}` };
}

const cursorOf = (node: { id: string }) => formatPrismaCursor(node, 'id');

/** An edge whose cursor is encoded when a query reads it (a class: one shape and one getter for every edge). */
class IssueEdge {
  constructor(readonly node: PageRow) {}
  get cursor(): string {
    return cursorOf(this.node);
  }
}

const EMPTY: ProjectIssuePage = { nodes: [], hasPreviousPage: false, hasNextPage: false };

/**
 * The IssueConnection of one project: its page is read, with the pages of the other projects the
 * request asks for, only when a query selects `edges` or `pageInfo`, and its count only when it
 * selects `totalCount` (a query asking only for the count reads no issue). Cursors are made when
 * read, as Pothos' prisma plugin makes them (`GPC:` and the id).
 */
export function projectIssues(ctx: Context, projectId: string, args: ConnectionArgs, { query, group }: IssueSelection) {
  // Arguments Pothos refuses fail the field itself, as one error, rather than each part of its connection.
  pageArgs(ctx, args);
  let page: Promise<ProjectIssuePage> | undefined;
  const load = () => {
    // The batch runs every field with the same arguments and selection together.
    const { first, last, after, before } = args;
    return (page ??= pages(ctx, group, { args: { first, last, after, before }, query }, projectId).then((found) => found ?? EMPTY));
  };
  return {
    get edges() {
      return load().then(({ nodes }) => nodes.map((node) => new IssueEdge(node)));
    },
    get pageInfo() {
      return load().then(({ nodes, hasPreviousPage, hasNextPage }) => ({
        hasPreviousPage,
        hasNextPage,
        get startCursor() { return nodes.length ? cursorOf(nodes[0]!) : null; },
        get endCursor() { return nodes.length ? cursorOf(nodes[nodes.length - 1]!) : null; },
      }));
    },
    totalCount: () => counts(ctx, 'count', undefined, projectId).then((count) => count ?? 0),
  };
}
