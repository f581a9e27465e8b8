import { sql } from 'kysely';
import { builder, transactionRowsOf } from '../../db/sql-builder.js';
import type { Change, FieldChange, Tx } from '../../events/record.js';
import type { Comment } from '../../generated/prisma/client.js';
import { declaredSelection } from '../core/column-select.js';
import { COMMENT_FIELD_NAMES, COMMENT_TABLE } from './columns.js';
import { CommentJson } from './representation.js';

/**
 * A comment's events: they belong to its issue (the subject is the issue, the project the
 * issue's), so the issue's history lists them, its live subscription hears them and webhook
 * deliveries keep their order with the issue's own events. `changes` leads with `commentId`,
 * which names the comment (before and after; null where it did not exist), then `body` when it
 * changed.
 */

/** A comment with its issue's project, as a write locks it. */
export type CommentSnapshot = Comment & { projectId: string };

const commentSelection = declaredSelection<Comment>(COMMENT_TABLE);

/**
 * The comment of the organization (on the issue `issueId`, when given), locked until the transaction ends (FOR UPDATE), so
 * concurrent edits take turns and each event's `old` is what the edit replaced. Null when there is none.
 */
export async function lockComment(
  tx: Tx,
  orgId: string,
  issueId: string | null,
  commentId: string,
): Promise<CommentSnapshot | null> {
  const statement = builder
    .selectFrom('comments as c')
    .innerJoin('issues as i', 'i.id', 'c.issue_id')
    .select([
      ...commentSelection('c', COMMENT_FIELD_NAMES, { uuidAsText: true }),
      sql<string>`i.project_id::text`.as('projectId'),
    ])
    .where('c.id', '=', commentId)
    .$if(issueId !== null, (q) => q.where('c.issue_id', '=', issueId!))
    .where('c.org_id', '=', orgId)
    .forUpdate('c');
  return (await transactionRowsOf(tx, statement))[0] ?? null;
}

function commentChanges(before: Comment | null, after: Comment | null): FieldChange[] {
  const changes: FieldChange[] = [{ field: 'commentId', old: before?.id ?? null, new: after?.id ?? null }];
  const old = before?.body ?? null;
  const now = after?.body ?? null;
  if (old !== now) changes.push({ field: 'body', old, new: now });
  return changes;
}

/** The change of a comment between two states (null: before it existed, after it was deleted). */
export function commentChange(
  type: 'comment.created' | 'comment.updated' | 'comment.deleted',
  projectId: string,
  before: Comment | null,
  after: Comment | null,
): Change {
  const comment = (after ?? before)!;
  const changes = commentChanges(before, after);
  return {
    type,
    subjectId: comment.issueId,
    projectId,
    // An edit that leaves the text as it was records nothing (an update without changes is skipped).
    changes: type === 'comment.updated' && changes.length === 1 ? [] : changes,
    data: CommentJson.present(comment),
  };
}
