import { roleAtLeast } from '../auth/principal.js';
import { listComments } from '../schema/comments/operations.js';
import { AppError, ValidationError } from '../schema/core/errors.js';
import { renderMarkdown } from './markdown.js';
import type { OrgPage } from './org-page.js';

/**
 * The issue page's comments: the API's listComments, oldest first, a page at a time, each with
 * its author's name, its Markdown rendered safely (src/web/markdown.ts: raw HTML shown as text,
 * only http, https and mailto links) and whether the signed-in person may edit and delete it (its
 * author, or an owner or admin: the operations decide, the page only hides what they would refuse).
 */

/** Comments per page: each is at most 10,000 characters, so a page of them stays bounded. */
const COMMENTS_PAGE = 50;

interface CommentEntry {
  id: string;
  author: string;
  at: string;
  /** Edited after it was written (its update time is later). */
  edited: boolean;
  body: string;
  html: string;
  canChange: boolean;
}

export interface Comments {
  entries: CommentEntry[];
  /** The cursor of the next (newer) page, if there is one. */
  newer: string | null;
  /** Members and above write comments. */
  canWrite: boolean;
  /** Why the page could not be read (say, a link to more comments that is not valid). */
  error: string | null;
}

/** One page of the issue's comments, after `after` (a cursor of a previous page) when given. */
export async function issueComments(
  p: OrgPage,
  issueId: string,
  names: Record<string, string>,
  after: string | null,
): Promise<Comments> {
  const canWrite = roleAtLeast(p.org.role, 'member');
  const moderator = roleAtLeast(p.org.role, 'admin');
  const me = p.ctx.principal.kind === 'user' ? p.ctx.principal.userId : null;
  try {
    const page = await listComments.call(p.ctx, { id: issueId, first: COMMENTS_PAGE, after }, undefined);
    return {
      entries: page.edges.map(({ node }) => ({
        id: node.id,
        author: node.authorId === null ? 'The operator' : (names[node.authorId] ?? 'A former member'),
        at: node.createdAt.toISOString(),
        edited: node.updatedAt.getTime() > node.createdAt.getTime(),
        body: node.body,
        html: renderMarkdown(node.body),
        canChange: canWrite && (moderator || (me !== null && node.authorId === me)),
      })),
      newer: page.pageInfo.hasNextPage ? (page.pageInfo.endCursor ?? null) : null,
      canWrite,
      error: null,
    };
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const message = error instanceof ValidationError ? 'This link to more comments is not valid.' : error.message;
    return { entries: [], newer: null, canWrite, error: message };
  }
}
