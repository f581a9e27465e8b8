import { z } from 'zod';
import { roleAtLeast, ROLES, type Role } from '../../auth/principal.js';
import { ConflictError, ForbiddenError, NotFoundError } from '../core/errors.js';
import { MAX_PENDING_INVITATIONS } from './invitation.js';
import { LIST_BOUNDS } from '../core/list-bounds.js';
import { seesEmail } from '../people/person.js';
import { defineOperation } from '../core/operation.js';
import { isUuid } from '../core/uuid.js';
import { activeOrgId, viewer } from '../people/viewer.js';

/**
 * The team of an organization: its members and roles, and its pending invitations. Owners and
 * admins manage them; nobody gives or takes a role above their own, an admin cannot touch an
 * owner, and the last owner stays. A role change or a removal is a credential change (the
 * member's keys act with the new role, or not at all, from their next request): the credential
 * epoch is bumped after the write, as the admin CLI does.
 */

const roleInput = z.enum(ROLES as [Role, ...Role[]], { error: `must be one of: ${[...ROLES].join(', ')}` });
const userId = z.string().min(1, 'is required');

export interface Member {
  userId: string;
  name: string;
  username: string;
  email: string | null;
  role: Role;
  since: Date;
}

export const listMembers = defineOperation({
  name: 'listMembers',
  description: `Members of the organization with their roles, by name; at most ${LIST_BOUNDS.memberships}. Emails for managers and above.`,
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({}),
  async run(ctx): Promise<Member[]> {
    const rows = await ctx.prisma.membership.findMany({
      where: { orgId: activeOrgId(ctx) },
      select: { role: true, createdAt: true, user: { select: { id: true, name: true, username: true, email: true } } },
      orderBy: [{ user: { name: 'asc' } }, { user: { id: 'asc' } }],
      take: LIST_BOUNDS.memberships,
    });
    const emails = seesEmail(ctx);
    return rows.map(({ role, createdAt, user }) => ({
      userId: user.id,
      name: user.name,
      username: user.username,
      email: emails ? user.email : null,
      role,
      since: createdAt,
    }));
  },
});

/** The membership a manager of the team may change: not above their own role, and the last owner stays. */
async function manageable(ctx: Parameters<typeof listMembers.run>[0], target: string, newRole?: Role) {
  const me = viewer(ctx);
  const orgId = activeOrgId(ctx);
  const member = isUuid(target)
    ? await ctx.prisma.membership.findUnique({
        where: { orgId_userId: { orgId, userId: target } },
        select: { role: true },
      })
    : null;
  if (!member) throw new NotFoundError('member');
  if (!roleAtLeast(me.org!.role, member.role) || (newRole && !roleAtLeast(me.org!.role, newRole))) {
    throw new ForbiddenError('You cannot change a member whose role, or give a role, above your own.');
  }
  if (member.role === 'owner' && newRole !== 'owner') {
    const owners = await ctx.prisma.membership.count({ where: { orgId, role: 'owner' } });
    if (owners <= 1)
      throw new ConflictError('The organization needs at least one owner: make someone else owner first.');
  }
  return { orgId };
}

export const changeRole = defineOperation({
  name: 'changeRole',
  description: "Changes a member's role. Owners and admins, up to their own role; the last owner stays owner.",
  kind: 'write',
  access: { role: 'admin', notPat: true },
  input: z.strictObject({ userId, role: roleInput }),
  async run(ctx, input) {
    const { orgId } = await manageable(ctx, input.userId, input.role);
    const updated = await ctx.prisma.membership.update({
      where: { orgId_userId: { orgId, userId: input.userId } },
      data: { role: input.role },
      select: { role: true },
    });
    await ctx.credentialEpoch.bump();
    return updated;
  },
});

export const removeMember = defineOperation({
  name: 'removeMember',
  description:
    'Removes a member (their API keys in the organization go with them). Owners and admins, up to their own role; never the last owner.',
  kind: 'write',
  access: { role: 'admin', notPat: true },
  input: z.strictObject({ userId }),
  async run(ctx, input) {
    const { orgId } = await manageable(ctx, input.userId);
    await ctx.prisma.membership.delete({
      where: { orgId_userId: { orgId, userId: input.userId } },
      select: { id: true },
    });
    await ctx.credentialEpoch.bump();
    return input.userId;
  },
});

/** Used, revoked and expired invitations the team page still lists, newest first. */
const PAST_INVITATIONS_LISTED = 20;

export type InvitationState = 'pending' | 'used' | 'expired' | 'revoked';

/** What the team page lists of an invitation; never its code. */
export interface ListedInvitation {
  id: string;
  role: Role;
  email: string | null;
  createdAt: Date;
  expiresAt: Date;
  state: InvitationState;
  createdByName: string | null;
  usedByName: string | null;
}

export function invitationState(
  i: { usedAt: Date | null; revokedAt: Date | null; expiresAt: Date },
  now = new Date(),
): InvitationState {
  if (i.usedAt) return 'used';
  if (i.revokedAt) return 'revoked';
  return i.expiresAt > now ? 'pending' : 'expired';
}

export const listInvitations = defineOperation({
  name: 'listInvitations',
  description:
    'Invitations, newest first, with their state (pending, used, expired, revoked), who made them and who used them. ' +
    'Owners and admins. Codes are never shown again.',
  kind: 'read',
  access: { role: 'admin' },
  input: z.strictObject({}),
  async run(ctx): Promise<ListedInvitation[]> {
    const orgId = activeOrgId(ctx);
    const now = new Date();
    const select = {
      id: true,
      role: true,
      email: true,
      createdAt: true,
      expiresAt: true,
      usedAt: true,
      revokedAt: true,
      createdBy: true,
      usedBy: true,
    } as const;
    const orderBy = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
    // Every pending one (their number is bounded), then the latest that were used, revoked or ran out.
    const [pending, past] = await Promise.all([
      ctx.prisma.invitation.findMany({
        where: { orgId, usedAt: null, expiresAt: { gt: now } },
        select,
        orderBy,
        take: MAX_PENDING_INVITATIONS,
      }),
      ctx.prisma.invitation.findMany({
        where: { orgId, OR: [{ usedAt: { not: null } }, { expiresAt: { lte: now } }] },
        select,
        orderBy,
        take: PAST_INVITATIONS_LISTED,
      }),
    ]);
    const rows = [...pending, ...past];
    // Invitations hold bare user ids (a person may leave, their invitations stay): names in one query.
    const ids = [...new Set(rows.flatMap((r) => (r.usedBy ? [r.createdBy, r.usedBy] : [r.createdBy])))];
    const users = ids.length
      ? await ctx.prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } })
      : [];
    const names = new Map(users.map((u) => [u.id, u.name]));
    return rows.map((r) => ({
      id: r.id,
      role: r.role,
      email: r.email,
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
      state: invitationState(r, now),
      createdByName: names.get(r.createdBy) ?? null,
      usedByName: r.usedBy ? (names.get(r.usedBy) ?? null) : null,
    }));
  },
});

export const revokeInvitation = defineOperation({
  name: 'revokeInvitation',
  description: 'Revokes a pending invitation: its code and link stop working at once. Owners and admins.',
  kind: 'write',
  access: { role: 'admin' },
  input: z.strictObject({ id: z.string() }),
  async run(ctx, { id }) {
    const now = new Date();
    // Revoking ends its validity too, so every "unexpired" check (claiming, the pending bound) leaves it out.
    const { count } = isUuid(id)
      ? await ctx.prisma.invitation.updateMany({
          where: { id, orgId: activeOrgId(ctx), usedAt: null, expiresAt: { gt: now } },
          data: { revokedAt: now, expiresAt: now },
        })
      : { count: 0 };
    if (count === 0) throw new NotFoundError('invitation');
    return id;
  },
});
