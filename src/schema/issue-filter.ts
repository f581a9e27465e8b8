import { z } from 'zod';
import type { Prisma } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { insensitive, searchText } from './search-text.js';
import { isUuid } from './uuid.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from './workflow.js';

export const IssueFilterInput = builder.inputType('IssueFilter', {
  description: 'Every given condition must hold.',
  fields: (t) => ({
    status: t.stringList({ required: false, description: 'Any of these statuses.' }),
    priority: t.stringList({ required: false, description: 'Any of these priorities.' }),
    assigneeId: t.string({ required: false, description: 'Assigned to this user id, or "none" for unassigned issues.' }),
    q: t.string({ required: false, description: 'Case-insensitive substring of the title or the description (1 to 100 characters).' }),
    createdAfter: t.field({ type: 'DateTime', required: false, description: 'Created strictly after this instant.' }),
    createdBefore: t.field({ type: 'DateTime', required: false, description: 'Created strictly before this instant.' }),
    updatedAfter: t.field({ type: 'DateTime', required: false, description: 'Last changed strictly after this instant.' }),
    updatedBefore: t.field({ type: 'DateTime', required: false, description: 'Last changed strictly before this instant.' }),
  }),
});

const anyOf = (allowed: readonly string[]) =>
  z
    .array(z.string())
    .refine((values) => values.every((v) => allowed.includes(v)), `must each be one of: ${allowed.join(', ')}`);

export const IssueFilter = z.object({
  status: anyOf(ISSUE_STATUSES).nullish(),
  priority: anyOf(ISSUE_PRIORITIES).nullish(),
  assigneeId: z
    .string()
    .refine((value) => value === 'none' || isUuid(value), 'must be a UUID or none')
    .nullish(),
  q: searchText.nullish(),
  createdAfter: z.date().nullish(),
  createdBefore: z.date().nullish(),
  updatedAfter: z.date().nullish(),
  updatedBefore: z.date().nullish(),
});

export function issueFilterWhere(filter: z.output<typeof IssueFilter>): Prisma.IssueWhereInput[] {
  const where: Prisma.IssueWhereInput[] = [];
  if (filter.status) where.push({ status: { in: filter.status } });
  if (filter.priority) where.push({ priority: { in: filter.priority } });
  if (filter.assigneeId) where.push({ assigneeId: filter.assigneeId === 'none' ? null : filter.assigneeId });
  if (filter.q) where.push({ OR: [{ title: insensitive('contains', filter.q) }, { description: insensitive('contains', filter.q) }] });
  if (filter.createdAfter || filter.createdBefore) {
    where.push({ createdAt: { gt: filter.createdAfter ?? undefined, lt: filter.createdBefore ?? undefined } });
  }
  if (filter.updatedAfter || filter.updatedBefore) {
    where.push({ updatedAt: { gt: filter.updatedAfter ?? undefined, lt: filter.updatedBefore ?? undefined } });
  }
  return where;
}
