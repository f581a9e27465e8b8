import { formatPrismaCursor } from '@pothos/plugin-prisma';
import type { Context } from '../context.js';
import { createBatch } from './batch.js';
import { countProjectIssues, listProjectIssues, pageArgs, type ProjectIssuePage, type ProjectIssuesQuery } from './project-issues-operations.js';
import type { PageRow } from './project-issues-sql.js';

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
export function projectIssues(ctx: Context, projectId: string, args: ConnectionArgs, query: ProjectIssuesQuery) {
  // Arguments Pothos refuses fail the field itself, as one error, rather than each part of its connection.
  pageArgs(ctx, args);
  let page: Promise<ProjectIssuePage> | undefined;
  const load = () => {
    // The batch runs every field with the same arguments and selection together.
    const group = JSON.stringify([args.first, args.last, args.after, args.before, query.select, query.fields && [...query.fields], query.relationFields?.assignee && [...query.relationFields.assignee]]);
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
