import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import { ValidationError } from '../core/errors.js';
import { notNull } from '../core/messages.js';
import { projectRef } from '../projects/lookup.js';
import { uuid } from '../core/uuid.js';
import {
  DEFAULT_PRIORITY,
  DEFAULT_STATUS,
  DESCRIPTION_MAX,
  ISSUE_PRIORITIES,
  ISSUE_STATUSES,
  TITLE_MAX,
} from './workflow.js';
import { storableString } from '../core/text.js';

const oneOf = (values: readonly string[]) => `must be one of: ${values.join(', ')}`;

// One rule per field, shared by create and update so that both accept exactly the same values.
const title = storableString(notNull('must be a string'))
  .trim()
  .min(1, 'must not be empty')
  .max(TITLE_MAX, `must be at most ${TITLE_MAX} characters`);
const status = z.enum(ISSUE_STATUSES, notNull(oneOf(ISSUE_STATUSES)));
const priority = z.enum(ISSUE_PRIORITIES, notNull(oneOf(ISSUE_PRIORITIES)));
const description = storableString().max(DESCRIPTION_MAX, `must be at most ${DESCRIPTION_MAX} characters`);

export const CreateIssue = z.strictObject({
  projectId: projectRef,
  title,
  status: status.default(DEFAULT_STATUS),
  priority: priority.default(DEFAULT_PRIORITY),
  description: description.nullish(),
  assigneeId: uuid.nullish(),
});

/** Absent fields stay as they are; null clears description and assignee and is refused elsewhere. */
export const UpdateIssue = z.strictObject({
  title: title.optional(),
  status: status.optional(),
  priority: priority.optional(),
  description: description.nullable().optional(),
  assigneeId: uuid.nullable().optional(),
});

/** Only a member of the organization can be assigned an issue of it. */
export async function checkAssignee(db: Prisma.TransactionClient, orgId: string, assigneeId: string | null | undefined): Promise<void> {
  if (!assigneeId) return;
  const member = await db.membership.findUnique({
    where: { orgId_userId: { orgId, userId: assigneeId } },
    select: { id: true },
  });
  if (!member) throw new ValidationError([{ field: 'assigneeId', message: 'must be a member of the organization' }]);
}
