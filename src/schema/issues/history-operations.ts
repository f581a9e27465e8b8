import { resolveCursorConnection } from '@pothos/plugin-relay';
import { z } from 'zod';
import type { FieldChange } from '../../events/record.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { hasRole } from '../core/access.js';
import { NotFoundError, ValidationError } from '../core/errors.js';
import { issueWhere } from './lookup.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX, pageSize } from './operations.js';
import { defineOperation } from '../core/operation.js';
import { isUuid } from '../core/uuid.js';
import { activeOrgId } from '../people/viewer.js';

/** One entry of an issue's history, as both surfaces show it. */
export interface HistoryEntry {
  seq: bigint;
  id: string;
  type: string;
  actorId: string | null;
  via: string;
  viaId: string | null;
  changes: FieldChange[];
  createdAt: Date;
}

const HISTORY_SELECT = {
  seq: true,
  id: true,
  type: true,
  actorId: true,
  via: true,
  viaId: true,
  changes: true,
  createdAt: true,
} as const;

/**
 * The issue whose history is asked for: one the caller can read; or, for owners and admins, one
 * that was deleted (its history outlives it; a deleted issue is named by its id only, as its key
 * names nothing any more).
 */
async function historySubject(ctx: Parameters<typeof activeOrgId>[0], idOrKey: string): Promise<string> {
  const orgId = activeOrgId(ctx);
  const issue = await ctx.prisma.issue.findFirst({ where: issueWhere(orgId, idOrKey), select: { id: true } });
  if (issue) return issue.id;
  if (isUuid(idOrKey) && hasRole(ctx.principal, 'admin')) {
    const deleted = await ctx.prisma.event.findFirst({
      where: { orgId, subjectId: idOrKey, type: 'issue.deleted' },
      select: { id: true },
    });
    if (deleted) return idOrKey;
  }
  throw new NotFoundError('issue');
}

const cursorSeq = (cursor: string): bigint => {
  if (!/^\d{1,19}$/.test(cursor))
    throw new ValidationError([{ field: 'after', message: 'is not a cursor this list gave' }]);
  return BigInt(cursor);
};

export const listIssueHistory = defineOperation({
  name: 'listIssueHistory',
  description:
    `What happened to an issue, newest first, at most ${PAGE_SIZE_MAX} per page: each create, update and delete with ` +
    'who made it, through what (pat, oauth, session, cli) and the fields it changed. Whoever can read the issue; ' +
    'owners and admins also read the history of a deleted issue (by its id).',
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({
    id: z.string().min(1, 'is required'),
    first: pageSize.nullish(),
    last: pageSize.nullish(),
    after: z.string().nullish(),
    before: z.string().nullish(),
  }),
  async run(ctx, args) {
    const subjectId = await historySubject(ctx, args.id);
    const orgId = activeOrgId(ctx);
    return resolveCursorConnection<Promise<HistoryEntry[]>>(
      { args, defaultSize: PAGE_SIZE_DEFAULT, maxSize: PAGE_SIZE_MAX, toCursor: (entry) => String(entry.seq) },
      async ({ after, before, limit, inverted }) => {
        const seq: Prisma.BigIntFilter = {};
        if (after) seq.lt = cursorSeq(after);
        if (before) seq.gt = cursorSeq(before);
        const rows = await ctx.prisma.event.findMany({
          select: HISTORY_SELECT,
          where: { orgId, subjectId, ...(after || before ? { seq } : {}) },
          orderBy: { seq: inverted ? 'asc' : 'desc' },
          take: limit,
        });
        return rows as unknown as HistoryEntry[];
      },
    );
  },
});
