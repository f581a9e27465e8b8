import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import type { Context } from '../../context.js';
import { writeWithEvents } from '../../events/record.js';
import { Prisma } from '../../generated/prisma/client.js';
import { hasRole } from '../core/access.js';
import { createShape, updateShape } from '../core/column-input.js';
import { ForbiddenError, NotFoundError, ValidationError } from '../core/errors.js';
import { defineOperation } from '../core/operation.js';
import { isUuid } from '../core/uuid.js';
import { issueWhere } from '../issues/lookup.js';
import { activeOrgId } from '../people/viewer.js';
import { COMMENT_COLUMNS, COMMENT_TABLE } from './columns.js';
import { commentChange, lockComment } from './events.js';
import { COMMENT_PAGE_DEFAULT, COMMENT_PAGE_MAX } from './fields.js';

/**
 * Comments on issues: anyone in the organization reads them, oldest first; members and above
 * write them; their author edits and deletes their own, owners and admins any. Each write records
 * its event (src/schema/comments/events.ts) in its transaction.
 */

const idOrKey = z.string().min(1, 'is required');
/** A comment id: a UUID; other text names no comment (NOT_FOUND, as a missing one). */
const commentId = z.string().min(1, 'is required');

const PAGE_MESSAGE = `must be between 1 and ${COMMENT_PAGE_MAX}`;
export const commentPageSize = z
  .number({ error: PAGE_MESSAGE })
  .int(PAGE_MESSAGE)
  .min(1, PAGE_MESSAGE)
  .max(COMMENT_PAGE_MAX, PAGE_MESSAGE);

/** The comment's row as every surface reads it: its declared columns. */
export type CommentRow = Prisma.CommentGetPayload<{ select: typeof COMMENT_COLUMNS }>;

/** The id of a readable issue of the caller's organization (NOT_FOUND for any other). */
async function issueIdOf(
  ctx: Context,
  orgId: string,
  idOrKeyValue: string,
): Promise<{ id: string; projectId: string }> {
  const issue = await ctx.prisma.issue.findFirst({
    where: issueWhere(orgId, idOrKeyValue),
    select: { id: true, projectId: true },
  });
  if (!issue) throw new NotFoundError('issue');
  return issue;
}

// A cursor, as the service's cursors are: base64url of a JSON array, here the comment's creation
// time and id (the list's order). Ours are about 100 characters; longer text is not looked into.
const CURSOR_TEXT_MAX = 200;
const cursorOf = (comment: CommentRow) =>
  Buffer.from(JSON.stringify([comment.createdAt.toISOString(), comment.id])).toString('base64url');

function parseCursor(cursor: string, field: 'after' | 'before'): { at: Date; id: string } {
  const invalid = () => new ValidationError([{ field, message: 'is not a cursor this list gave' }]);
  if (cursor.length > CURSOR_TEXT_MAX) throw invalid();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(value) || value.length !== 2) throw invalid();
  const [at, id] = value as unknown[];
  const time = typeof at === 'string' ? new Date(at) : null;
  if (!time || Number.isNaN(time.getTime()) || typeof id !== 'string' || !isUuid(id)) throw invalid();
  return { at: time, id };
}

/** Comments after (`gt`) or before (`lt`) a cursor, in (created_at, id) order. */
function beyond(cursor: { at: Date; id: string }, op: 'gt' | 'lt'): Prisma.CommentWhereInput {
  return { OR: [{ createdAt: { [op]: cursor.at } }, { createdAt: cursor.at, id: { [op]: cursor.id } }] };
}

export const listComments = defineOperation({
  name: 'listComments',
  description:
    `The comments of an issue (by id or key), oldest first, at most ${COMMENT_PAGE_MAX} per page, ` +
    'with their author and times. Any role.',
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({
    id: idOrKey,
    first: commentPageSize.nullish(),
    last: commentPageSize.nullish(),
    after: z.string().nullish(),
    before: z.string().nullish(),
  }),
  async run(ctx, args) {
    const orgId = activeOrgId(ctx);
    const issue = await issueIdOf(ctx, orgId, args.id);
    return resolveCursorConnection<Promise<CommentRow[]>>(
      { args, defaultSize: COMMENT_PAGE_DEFAULT, maxSize: COMMENT_PAGE_MAX, toCursor: cursorOf },
      ({ after, before, limit, inverted }) => {
        const conditions: Prisma.CommentWhereInput[] = [{ orgId, issueId: issue.id }];
        if (after) conditions.push(beyond(parseCursor(after, 'after'), 'gt'));
        if (before) conditions.push(beyond(parseCursor(before, 'before'), 'lt'));
        const direction = inverted ? 'desc' : 'asc';
        return ctx.prisma.comment.findMany({
          select: COMMENT_COLUMNS,
          where: { AND: conditions },
          orderBy: [{ createdAt: direction }, { id: direction }],
          take: limit,
        });
      },
    );
  },
});

export const createComment = defineOperation({
  name: 'createComment',
  description: 'Comments on an issue (by id or key). Needs the role member or above.',
  kind: 'write',
  access: { role: 'member' },
  input: z.strictObject({ id: idOrKey, ...createShape(COMMENT_TABLE) }),
  async run(ctx, { id, body }): Promise<CommentRow> {
    const orgId = activeOrgId(ctx);
    const issue = await issueIdOf(ctx, orgId, id);
    const authorId = ctx.principal.kind === 'user' ? ctx.principal.userId : null;
    try {
      const { result } = await writeWithEvents(ctx, orgId, async (tx) => {
        const now = new Date();
        const comment = await tx.comment.create({
          select: COMMENT_COLUMNS,
          data: { orgId, issueId: issue.id, authorId, body, createdAt: now, updatedAt: now },
        });
        const row = { ...comment, orgId };
        return { result: comment, changes: [commentChange('comment.created', issue.projectId, null, row)] };
      });
      return result;
    } catch (error) {
      // The issue was deleted between the lookup and the insert.
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2003') {
        throw new NotFoundError('issue');
      }
      throw error;
    }
  },
});

/** Whether the caller may change this comment: its author, or an owner or admin (the operator too). */
function mayChange(ctx: Context, authorId: string | null): boolean {
  if (hasRole(ctx.principal, 'admin')) return true;
  return ctx.principal.kind === 'user' && authorId !== null && ctx.principal.userId === authorId;
}

const NOT_YOURS = 'Only its author, or an owner or admin, can change or delete a comment.';

/**
 * The comment a write names, by its id, and the issue it must be on where the surface names one
 * too (a REST path); both of the caller's organization, or NOT_FOUND.
 */
const commentTarget = { id: idOrKey.nullish(), commentId };

/** The issue a write names, when it names one: its id and project. */
async function namedIssue(ctx: Context, orgId: string, id: string | null | undefined) {
  return id ? (await issueIdOf(ctx, orgId, id)).id : null;
}

export const updateComment = defineOperation({
  name: 'updateComment',
  description: "Edits a comment's text. Its author (member or above), or an owner or admin.",
  kind: 'write',
  access: { role: 'member' },
  input: z.strictObject({ ...commentTarget, ...updateShape(COMMENT_TABLE) }),
  async run(ctx, { id, commentId: cid, body }): Promise<CommentRow> {
    const orgId = activeOrgId(ctx);
    const issueId = await namedIssue(ctx, orgId, id);
    if (!isUuid(cid)) throw new NotFoundError('comment');
    const { result } = await writeWithEvents(ctx, orgId, async (tx) => {
      const before = await lockComment(tx, orgId, issueId, cid);
      if (!before) throw new NotFoundError('comment');
      if (!mayChange(ctx, before.authorId)) throw new ForbiddenError(NOT_YOURS);
      if (body === undefined || body === before.body) {
        return { result: before as CommentRow, changes: [] };
      }
      const comment = await tx.comment.update({
        select: COMMENT_COLUMNS,
        where: { id: cid },
        data: { body, updatedAt: new Date() },
      });
      return {
        result: comment,
        changes: [commentChange('comment.updated', before.projectId, before, { ...before, ...comment })],
      };
    });
    return result;
  },
});

export const deleteComment = defineOperation({
  name: 'deleteComment',
  description: 'Deletes a comment and returns its id. Its author (member or above), or an owner or admin.',
  kind: 'write',
  access: { role: 'member' },
  input: z.strictObject(commentTarget),
  async run(ctx, { id, commentId: cid }): Promise<string> {
    const orgId = activeOrgId(ctx);
    const issueId = await namedIssue(ctx, orgId, id);
    if (!isUuid(cid)) throw new NotFoundError('comment');
    await writeWithEvents(ctx, orgId, async (tx) => {
      const before = await lockComment(tx, orgId, issueId, cid);
      if (!before) throw new NotFoundError('comment');
      if (!mayChange(ctx, before.authorId)) throw new ForbiddenError(NOT_YOURS);
      await tx.comment.delete({ where: { id: cid }, select: { id: true } });
      return { result: cid, changes: [commentChange('comment.deleted', before.projectId, before, null)] };
    });
    return cid;
  },
});
