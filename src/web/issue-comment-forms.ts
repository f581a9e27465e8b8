import type { Context } from '../context.js';
import { createComment, deleteComment, updateComment } from '../schema/comments/operations.js';
import { redirect } from '../views/render.js';
import { flashCookie } from './flash.js';
import { formFailure, readForm } from './forms.js';
import { issueNotFound, issueOf, issuePage } from './issues.js';
import { orgPage, type PageRequest } from './org-page.js';

/**
 * The issue page's comment forms, which work without JavaScript as the page's other forms do:
 * each runs the API's operation with the session's principal, then redirects back to the
 * comments; a refused write shows the page again with the text kept and the reason by the form.
 */

const back = (base: string, key: string) => `${base}/issues/${key}#comments`;

/** POST /orgs/:slug/issues/:key/comments: a new comment. */
export async function addComment(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  const form = await readForm(request);
  try {
    await createComment.call(p.ctx, { id: issue.id, body: form.body ?? '' }, undefined);
    return redirect(back(p.base, issue.key), {
      'set-cookie': flashCookie(ctx.config, { notice: `Commented on ${issue.key}.` }),
    });
  } catch (error) {
    return issuePage(p, issue, { form, failure: formFailure(error), failed: 'comment' });
  }
}

/** POST /orgs/:slug/issues/:key/comments/:id: a comment's new text. */
export async function editComment(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  const commentId = request.params?.id ?? '';
  const form = await readForm(request);
  try {
    await updateComment.call(p.ctx, { id: issue.id, commentId, body: form.body ?? '' }, undefined);
    return redirect(back(p.base, issue.key), { 'set-cookie': flashCookie(ctx.config, { notice: 'Comment saved.' }) });
  } catch (error) {
    return issuePage(p, issue, { form, failure: formFailure(error), failed: { comment: commentId } });
  }
}

/** POST /orgs/:slug/issues/:key/comments/:id/delete. */
export async function deleteCommentPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const issue = await issueOf(p, request.params?.key);
  if (!issue) return issueNotFound(p);
  const commentId = request.params?.id ?? '';
  try {
    await deleteComment.call(p.ctx, { id: issue.id, commentId }, undefined);
    return redirect(back(p.base, issue.key), { 'set-cookie': flashCookie(ctx.config, { notice: 'Comment deleted.' }) });
  } catch (error) {
    return issuePage(p, issue, { failure: formFailure(error), failed: { comment: commentId } });
  }
}
