import { createContextCache } from '@pothos/core';
import { formatPrismaCursor, queryFromInfo } from '@pothos/plugin-prisma';
import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import type { Context } from '../../context.js';
import { createBatch } from '../core/batch.js';
import {
  countProjectIssues,
  listProjectIssues,
  pageArgs,
  type ProjectIssuePage,
  type ProjectIssuesQuery,
} from './issues-operations.js';
import { answeredByRows, pageShape, type PageRow } from './issues-sql.js';
import { selectedFieldNames } from '../core/selected-fields.js';

interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

const pages = createBatch(
  (ctx: Context, params: { args: ConnectionArgs; query: ProjectIssuesQuery }, projectIds: string[]) =>
    listProjectIssues.call(ctx, { ...params.args, projectIds }, params.query),
);
const counts = createBatch((ctx: Context, _params: undefined, projectIds: string[]) =>
  countProjectIssues.call(ctx, { projectIds }, undefined),
);

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
    const query: ProjectIssuesQuery = {
      ...plan(),
      fields,
      relationFields: { assignee: selectedFieldNames(info, ['edges', 'node', 'assignee']) },
    };
    const key = JSON.stringify([
      query.select,
      [...fields],
      query.relationFields?.assignee && [...query.relationFields.assignee],
    ]);
    known = { query, key, planEach: !answeredByRows(pageShape(query.select, fields, query.relationFields), fields) };
    byField.set(info.fieldNodes, known);
  }
  // The arguments are the execution's own (one context may run a document more than once, with other variables).
  return {
    query: known.query,
    group: `${JSON.stringify([args.first, args.last, args.after, args.before])}${known.key}`,
  };
}

const cursorOf = (node: { id: string }) => formatPrismaCursor(node, 'id');

/*
 * The connection, its edges and its page info are class instances, never object literals with
 * getters: each literal `{ get edges() { ... } }` gives V8 a new accessor pair and closure per
 * object, which stay reachable from V8's own structures until a full collection, and with them
 * the page they close over: every row then survived the young generation (src/schema/issues/operations.ts
 * says what that cost). test/no-literal-accessors.test.ts keeps src/ free of them.
 */

/** An edge whose cursor is encoded when a query reads it. */
class IssueEdge {
  constructor(readonly node: PageRow) {}
  get cursor(): string {
    return cursorOf(this.node);
  }
}

/** Relay's page info, its cursors encoded when read. */
class IssuePageInfo {
  readonly hasPreviousPage: boolean;
  readonly hasNextPage: boolean;
  private readonly nodes: PageRow[];
  constructor({ nodes, hasPreviousPage, hasNextPage }: ProjectIssuePage) {
    this.nodes = nodes;
    this.hasPreviousPage = hasPreviousPage;
    this.hasNextPage = hasNextPage;
  }
  get startCursor(): string | null {
    return this.nodes.length ? cursorOf(this.nodes[0]!) : null;
  }
  get endCursor(): string | null {
    return this.nodes.length ? cursorOf(this.nodes[this.nodes.length - 1]!) : null;
  }
}

const EMPTY: ProjectIssuePage = { nodes: [], hasPreviousPage: false, hasNextPage: false };

/**
 * The IssueConnection of one project: its page is read, with the pages of the other projects the
 * request asks for, only when a query selects `edges` or `pageInfo`, and its count only when it
 * selects `totalCount` (a query asking only for the count reads no issue). Cursors are made when
 * read, as Pothos' prisma plugin makes them (`GPC:` and the id).
 */
class ProjectIssueConnection {
  private page: Promise<ProjectIssuePage> | undefined;
  constructor(
    private readonly ctx: Context,
    private readonly projectId: string,
    private readonly args: ConnectionArgs,
    private readonly selection: IssueSelection,
  ) {}

  get edges(): Promise<IssueEdge[]> {
    return this.load().then(({ nodes }) => nodes.map((node) => new IssueEdge(node)));
  }

  get pageInfo(): Promise<IssuePageInfo> {
    return this.load().then((page) => new IssuePageInfo(page));
  }

  totalCount(): Promise<number> {
    return counts(this.ctx, 'count', undefined, this.projectId).then((count) => count ?? 0);
  }

  private load(): Promise<ProjectIssuePage> {
    // The batch runs every field with the same arguments and selection together.
    const { first, last, after, before } = this.args;
    const { query, group } = this.selection;
    this.page ??= pages(this.ctx, group, { args: { first, last, after, before }, query }, this.projectId).then(
      (found) => found ?? EMPTY,
    );
    return this.page;
  }
}

export function projectIssues(
  ctx: Context,
  projectId: string,
  args: ConnectionArgs,
  selection: IssueSelection,
): ProjectIssueConnection {
  // Arguments Pothos refuses fail the field itself, as one error, rather than each part of its connection.
  pageArgs(ctx, args);
  return new ProjectIssueConnection(ctx, projectId, args, selection);
}
