import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { hashToken } from '../auth/pat-token.js';
import { roleAtLeast, ROLES, type Role } from '../auth/principal.js';
import { Prisma } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from './errors.js';
import { RoleEnum } from './membership.js';
import { nonEmpty } from './selection.js';
import { defineOperation } from './operation.js';
import { activeOrgId, viewer } from './viewer.js';
import { outcome } from './outcome.js';

/** `inv_` and 18 random bytes in base64url (24 characters). */
export const INVITE_CODE_LENGTH = 28;

const InvitationRef = builder.prismaObject('Invitation', {
  description: 'An invitation to join the organization: whoever redeems its code becomes a member with its role.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The invitation id (not the code).' }),
    role: t.expose('role', { type: RoleEnum, description: 'The role the new member gets.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'When the code stops working, if not used before.' }),
  }),
});

const CreatedInvitation = builder
  .objectRef<{ invitation: Prisma.InvitationGetPayload<object>; code: string }>('CreatedInvitation')
  .implement({
    description: 'An invitation just created, with its code: the only answer that ever holds the code.',
    fields: (t) => ({
      invitation: t.field({ type: InvitationRef, description: 'The invitation, as listed from now on.', resolve: (c) => c.invitation }),
      code: t.exposeString('code', { description: 'The invite code, shown once. Single use.' }),
    }),
  });

/**
 * Unused, unexpired invitations one organization may hold. Each used one made a member, so the
 * organization's invitations grow no faster than its memberships.
 */
export const MAX_PENDING_INVITATIONS = 100;

export const INVITATION_DAYS_DEFAULT = 7;
export const INVITATION_DAYS_MAX = 30;
const DAYS_MESSAGE = `must be between 1 and ${INVITATION_DAYS_MAX}`;

export const createInvitation = defineOperation({
  name: 'createInvitation',
  description:
    'A single-use invite code to join this organization with a role no higher than your own. Owners and admins. ' +
    'An owner invitation needs a signed-in person (the browser session): not with an API key or OAuth token. ' +
    `At most ${MAX_PENDING_INVITATIONS} pending (unused, unexpired) invitations per organization.`,
  kind: 'write',
  access: { role: 'admin' },
  input: z.strictObject({
    role: z.enum(ROLES as [Role, ...Role[]], { error: (issue) => (issue.input === undefined ? undefined : `must be one of: ${[...ROLES].sort().join(', ')}`) }),
    expiresInDays: z
      .number({ error: (issue) => (issue.input === undefined ? undefined : issue.input === null ? 'cannot be null' : DAYS_MESSAGE) })
      .int(DAYS_MESSAGE)
      .min(1, DAYS_MESSAGE)
      .max(INVITATION_DAYS_MAX, DAYS_MESSAGE)
      .default(INVITATION_DAYS_DEFAULT),
  }),
  async run(ctx, input) {
    const me = viewer(ctx);
    const orgId = activeOrgId(ctx);
    if (!roleAtLeast(me.org!.role, input.role)) throw new ForbiddenError('You cannot invite someone with a higher role than your own.');
    // Ownership outlives the credential that granted it: a leaked key or token must not be able to
    // make someone an owner who stays after the key is revoked. Only a person, signed in, can.
    if (input.role === 'owner' && me.credential.kind !== 'session') {
      throw new ForbiddenError('Owners are invited by a person signed in to the web app, not with an API key or OAuth token.');
    }
    const code = `inv_${randomBytes(18).toString('base64url')}`; // INVITE_CODE_LENGTH characters
    return ctx.prisma.$transaction(async (tx) => {
      // Locking the organization's row serialises its invitations, so two concurrent requests
      // cannot both see one free place and take it.
      await tx.$queryRaw`SELECT id FROM organizations WHERE id = ${orgId}::uuid FOR UPDATE`;
      const now = new Date();
      // An expired code can never be redeemed: it goes, so unused invitations never pile up.
      await tx.invitation.deleteMany({ where: { orgId, usedAt: null, expiresAt: { lte: now } } });
      const pending = await tx.invitation.count({ where: { orgId, usedAt: null } });
      if (pending >= MAX_PENDING_INVITATIONS) {
        const message =
          `This organization already has ${MAX_PENDING_INVITATIONS} pending invitations, the most allowed. ` +
          'Wait for some to be used or to expire.';
        throw new ConflictError(message, 'INVITATION_LIMIT_REACHED', { limit: MAX_PENDING_INVITATIONS });
      }
      const invitation = await tx.invitation.create({
        data: {
          orgId,
          role: input.role,
          createdBy: me.userId,
          codeHash: hashToken(code),
          expiresAt: new Date(now.getTime() + input.expiresInDays * 24 * 3600 * 1000),
        },
      });
      return { invitation, code };
    });
  },
});

builder.mutationField('createInvitation', (t) =>
  t.field({
    type: CreatedInvitation,
    description: createInvitation.description,
    errors: outcome('createInvitation', 'The invitation, with its code (shown this once).', [
      ValidationError,
      ConflictError,
    ]),
    args: {
      role: t.arg({ type: RoleEnum, required: true, description: 'The role the new member gets: at most your own.' }),
      expiresInDays: t.arg.int({ required: false, description: `Default ${INVITATION_DAYS_DEFAULT}, at most ${INVITATION_DAYS_MAX}.` }),
    },
    // GraphQL's null for a left-out optional argument means "the default".
    resolve: (_root, args, ctx) => createInvitation.call(ctx, { role: args.role, expiresInDays: args.expiresInDays ?? undefined }, undefined),
  }),
);

export const joinOrganization = defineOperation({
  name: 'joinOrganization',
  description: 'Joins an organization with an invite code. A cross-organization operation: not available to API keys.',
  kind: 'write',
  access: { notPat: true },
  // The bound is documented; a longer text is a code that does not exist.
  input: z.strictObject({ code: z.string().trim().min(1, 'must not be empty').meta({ maxLength: INVITE_CODE_LENGTH }) }),
  async run(ctx, { code }, query: { select?: Prisma.MembershipSelect }) {
    const me = viewer(ctx);
    const now = new Date();
    return ctx.prisma.$transaction(async (tx) => {
      // Claiming the code and joining happen together; a code claimed twice at once is claimed once.
      const claimed = await tx.invitation.updateManyAndReturn({
        where: { codeHash: hashToken(code), usedAt: null, expiresAt: { gt: now } },
        data: { usedAt: now, usedBy: me.userId },
        select: { orgId: true, role: true },
      });
      const invitation = claimed[0];
      if (!invitation) throw new NotFoundError('invitation (the code is unknown, used or expired)');
      try {
        return await tx.membership.create({ ...nonEmpty(query), data: { orgId: invitation.orgId, userId: me.userId, role: invitation.role } });
      } catch (error) {
        if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
          throw new ConflictError('You are already a member of this organization.');
        }
        throw error;
      }
    });
  },
});

builder.mutationField('joinOrganization', (t) =>
  t.prismaField({
    type: 'Membership',
    description: joinOrganization.description,
    errors: outcome('joinOrganization', 'Your membership of the organization you joined.', [NotFoundError, ConflictError]),
    args: { code: t.arg.string({ required: true, description: 'The invite code you were given.' }) },
    resolve: (query, _root, args, ctx) => joinOrganization.call(ctx, args, query),
  }),
);
