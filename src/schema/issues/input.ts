import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import { ValidationError } from '../core/errors.js';
import { createShape, updateShape } from '../core/column-input.js';
import { ISSUE_TABLE } from './columns.js';
import { ISSUE_LABELS_MAX } from '../labels/issue-labels.js';
import { labelRefs } from '../labels/lookup.js';

/**
 * The inputs of createIssue and updateIssue, from the written columns' declarations
 * (src/schema/issues/columns.ts): one rule per field, shared by create and update so that both
 * accept exactly the same values.
 */

/** What a new issue's `labels` say, wherever it is created. */
export const NEW_ISSUE_LABELS_DESCRIPTION = `Labels it carries from the start: ids or names (any case), at most ${ISSUE_LABELS_MAX}.`;

/**
 * A new issue: its columns, and the labels it carries from the start (not a column of the issue,
 * but given with it as GitHub's `labels` and Linear's `labelIds` are), by the rule every list of
 * labels follows. Every surface that creates issues (one or many) takes this input.
 */
export const CreateIssue = z.strictObject({
  ...createShape(ISSUE_TABLE),
  labels: labelRefs.optional().meta({ description: NEW_ISSUE_LABELS_DESCRIPTION }),
});

/** Absent fields stay as they are; null clears the nullable ones and is refused elsewhere. */
export const UpdateIssue = z.strictObject(updateShape(ISSUE_TABLE));

/** Only a member of the organization can be assigned an issue of it. */
export async function checkAssignee(
  db: Prisma.TransactionClient,
  orgId: string,
  assigneeId: string | null | undefined,
): Promise<void> {
  if (!assigneeId) return;
  const member = await db.membership.findUnique({
    where: { orgId_userId: { orgId, userId: assigneeId } },
    select: { id: true },
  });
  if (!member) throw new ValidationError([{ field: 'assigneeId', message: 'must be a member of the organization' }]);
}
