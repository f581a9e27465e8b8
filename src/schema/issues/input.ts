import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import { ValidationError } from '../core/errors.js';
import { createShape, updateShape } from '../core/column-input.js';
import { ISSUE_TABLE } from './columns.js';

/**
 * The inputs of createIssue and updateIssue, from the written columns' declarations
 * (src/schema/issues/columns.ts): one rule per field, shared by create and update so that both
 * accept exactly the same values.
 */

export const CreateIssue = z.strictObject(createShape(ISSUE_TABLE));

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
