import { z } from 'zod';
import { nextLink } from '../../http/links.js';
import { COMMENT_PAGE_DEFAULT, COMMENT_PAGE_MAX } from '../../schema/comments/fields.js';
import * as ops from '../../schema/comments/operations.js';
import { COMMENT_EXAMPLE, CommentJson } from '../../schema/comments/representation.js';
import { CURSOR_MAX, camelKeys, ID_MAX, integer, once, snakeBody } from '../inputs.js';
import { route } from '../route.js';

const issueId = z.string().min(1).meta({
  maxLength: ID_MAX,
  description:
    "The issue id or its key (`WEB-12`, any case). Another organization's issue is a 404, like a missing one.",
  example: 'WEB-12',
});
const IssueId = z.object({ id: issueId });
const CommentPath = z.object({
  id: issueId,
  comment_id: z.string().min(1).meta({ maxLength: ID_MAX, description: 'The comment id (a UUID).' }),
});

const present = (comment: ops.CommentRow) => CommentJson.present(comment as never);
const TAG = 'Issues';

export const commentRoutes = [
  route({
    method: 'get',
    path: '/issues/{id}/comments',
    operationId: 'listComments',
    tool: { name: 'list_comments', toolsets: ['issues'] },
    summary: "An issue's comments, oldest first",
    description:
      'Any role. Each comment names its author (`author_id`) and times; an `updated_at` later than `created_at` means it was edited.',
    tag: TAG,
    operation: ops.listComments,
    params: IssueId,
    query: z.object({
      limit: integer(ops.commentPageSize)
        .optional()
        .meta({ description: `Page size, default ${COMMENT_PAGE_DEFAULT}.` }),
      cursor: once(z.string().meta({ maxLength: CURSOR_MAX }))
        .optional()
        .meta({ description: 'Where to continue: take it from the `Link` header.' }),
    }),
    names: { first: 'limit', after: 'cursor' },
    success: {
      status: 200,
      description: 'One page of comments, oldest first.',
      schema: z.array(CommentJson.schema).max(COMMENT_PAGE_MAX),
      headers: ['Link'],
      examples: { page: [COMMENT_EXAMPLE] },
    },
    errors: { 404: 'No such issue in this organization.' },
    async handle(ctx, { params, query, url }) {
      const page = await ops.listComments.run(
        ctx,
        ops.listComments.parse({ id: params.id, first: query.limit, after: query.cursor }),
        undefined,
      );
      const cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      return {
        body: page.edges.map((edge) => present(edge!.node)),
        headers: nextLink(url, ctx.config.baseUrl, cursor),
      };
    },
  }),
  route({
    method: 'post',
    path: '/issues/{id}/comments',
    operationId: 'createComment',
    tool: { name: 'create_comment', toolsets: ['issues'] },
    summary: 'Comment on an issue',
    description: 'Markdown text; pages render it with raw HTML off. Member or above.',
    tag: TAG,
    operation: ops.createComment,
    params: IssueId,
    body: snakeBody(ops.createComment.input, ['id']),
    success: {
      status: 201,
      description: 'The comment written.',
      schema: CommentJson.schema,
      headers: ['Location'],
      examples: { created: COMMENT_EXAMPLE },
    },
    errors: { 404: 'No such issue in this organization.' },
    async handle(ctx, { params, body }) {
      const comment = await ops.createComment.run(
        ctx,
        ops.createComment.parse({ ...camelKeys(body), id: params.id }),
        undefined,
      );
      return {
        body: present(comment),
        headers: { location: `${ctx.config.baseUrl}/api/issues/${comment.issueId}/comments/${comment.id}` },
      };
    },
  }),
  route({
    method: 'patch',
    path: '/issues/{id}/comments/{comment_id}',
    operationId: 'updateComment',
    tool: { name: 'update_comment', toolsets: ['issues'], annotations: { idempotentHint: true } },
    summary: 'Edit a comment',
    description: 'Its author (member or above), or an owner or admin; anyone else gets a 403.',
    tag: TAG,
    operation: ops.updateComment,
    params: CommentPath,
    body: snakeBody(ops.updateComment.input, ['id', 'commentId']),
    bodyTypes: ['application/json', 'application/merge-patch+json'],
    success: {
      status: 200,
      description: 'The comment as edited.',
      schema: CommentJson.schema,
      examples: { edited: COMMENT_EXAMPLE },
    },
    errors: { 404: 'No such issue or comment in this organization, or the comment is on another issue.' },
    async handle(ctx, { params, body }) {
      const input = ops.updateComment.parse({ ...camelKeys(body), id: params.id, commentId: params.comment_id });
      return { body: present(await ops.updateComment.run(ctx, input, undefined)) };
    },
  }),
  route({
    method: 'delete',
    path: '/issues/{id}/comments/{comment_id}',
    operationId: 'deleteComment',
    tool: { name: 'delete_comment', toolsets: ['issues'] },
    summary: 'Delete a comment',
    description: 'Its author (member or above), or an owner or admin; anyone else gets a 403.',
    tag: TAG,
    operation: ops.deleteComment,
    params: CommentPath,
    success: { status: 204, description: 'Deleted.' },
    errors: { 404: 'No such issue or comment in this organization, or the comment is on another issue.' },
    async handle(ctx, { params }) {
      await ops.deleteComment.run(
        ctx,
        ops.deleteComment.parse({ id: params.id, commentId: params.comment_id }),
        undefined,
      );
      return {};
    },
  }),
];
