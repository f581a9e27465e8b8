import type { Issue } from '../generated/prisma/client.js';

/** The columns every Issue row is loaded with (the Issue object's base selection): the short ones a list shows; not the description. */
export const ISSUE_COLUMNS = {
  id: true,
  projectId: true,
  number: true,
  title: true,
  status: true,
  priority: true,
  assigneeId: true,
  createdAt: true,
  updatedAt: true,
} as const;

/** An issue row with those columns. */
export type IssueRow = Pick<Issue, keyof typeof ISSUE_COLUMNS>;
