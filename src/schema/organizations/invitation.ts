import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { hashToken } from '../../auth/pat-token.js';
import { roleAtLeast, ROLES, type Role } from '../../auth/principal.js';
import { Prisma } from '../../generated/prisma/client.js';
import { builder } from '../core/builder.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../core/errors.js';
import { RoleEnum } from './membership.js';
import { nonEmpty } from '../core/selection.js';
import { defineOperation } from '../core/operation.js';
import { activeOrgId, viewer } from '../people/viewer.js';
import { outcome } from '../core/outcome.js';
import type { Context } from '../../context.js';
import type { Policy } from '../../limits/policy.js';
import { invitationMail } from '../../mail/messages.js';
import { lockOrganization } from '../../db/row-locks.js';

/** `inv_` and 18 random bytes in base64url (24 characters): 144 bits nobody guesses. */
export const INVITE_CODE_LENGTH = 28;
export const INVITE_CODE_PATTERN = /^inv_[0-9A-Za-z_-]{24}$/;

/**
 * The invitation link: the code itself is the link's secret, so a code and a link are one
 * invitation, redeemed by whichever is used first (src/web/invite.ts serves the link).
 */
const invitationUrl = (baseUrl: string, code: string) => `${baseUrl}/invite/${code}`;

const InvitationRef = builder.prismaObject('Invitation', {
  description: 'An invitation to join the organization: whoever redeems its code becomes a member with its role.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The invitation id (not the code).' }),
    role: t.expose('role', { type: RoleEnum, description: 'The role the new member gets.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      description: 'When the code stops working, if not used before.',
    }),
    email: t.exposeString('email', {
      nullable: true,
      description: 'The email given for it (where the link was mailed, when the service sends mail).',
    }),
  }),
});

export interface CreatedInvitationValue {
  invitation: Prisma.InvitationGetPayload<object>;
  code: string;
  url: string;
  /** Whether the link went out by mail (an email was given, SMTP_URL is set, and the server took it). */
  mailed: boolean;
}

const CreatedInvitation = builder.objectRef<CreatedInvitationValue>('CreatedInvitation').implement({
  description: 'An invitation just created, with its code and link: the only answer that ever holds them.',
  fields: (t) => ({
    invitation: t.field({
      type: InvitationRef,
      description: 'The invitation, as listed from now on.',
      resolve: (c) => c.invitation,
    }),
    code: t.exposeString('code', { description: 'The invite code, shown once. Single use.' }),
    mailed: t.exposeBoolean('mailed', {
      description: 'Whether the link was mailed to the email given (the service sends mail when configured to).',
    }),
    url: t.exposeString('url', {
      description:
        'The invitation link, shown once: whoever opens it creates an account (or signs in) and joins. The same secret as the code.',
    }),
  }),
});

/**
 * Unused, unexpired invitations one organization may hold. Each used one made a member, so the
 * organization's invitations grow no faster than its memberships.
 */
export const MAX_PENDING_INVITATIONS = 100;

const INVITATION_DAYS_DEFAULT = 7;
const INVITATION_DAYS_MAX = 30;
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
    role: z.enum(ROLES as [Role, ...Role[]], {
      error: (issue) => (issue.input === undefined ? undefined : `must be one of: ${[...ROLES].sort().join(', ')}`),
    }),
    expiresInDays: z
      .number({
        error: (issue) =>
          issue.input === undefined ? undefined : issue.input === null ? 'cannot be null' : DAYS_MESSAGE,
      })
      .int(DAYS_MESSAGE)
      .min(1, DAYS_MESSAGE)
      .max(INVITATION_DAYS_MAX, DAYS_MESSAGE)
      .default(INVITATION_DAYS_DEFAULT),
    email: z
      .string({ error: 'must be a string' })
      .trim()
      .toLowerCase()
      .pipe(z.email('must be an email address').max(254, 'must be at most 254 characters'))
      .optional()
      .meta({
        maxLength: 254,
        description:
          'Where to mail the link (when the service sends mail); it is also shown in the list of invitations.',
      }),
  }),
  async run(ctx, input): Promise<CreatedInvitationValue> {
    const me = viewer(ctx);
    const orgId = activeOrgId(ctx);
    if (!roleAtLeast(me.org!.role, input.role))
      throw new ForbiddenError('You cannot invite someone with a higher role than your own.');
    // Ownership outlives the credential that granted it: a leaked key or token must not be able to
    // make someone an owner who stays after the key is revoked. Only a person, signed in, can.
    if (input.role === 'owner' && me.credential.kind !== 'session') {
      throw new ForbiddenError(
        'Owners are invited by a person signed in to the web app, not with an API key or OAuth token.',
      );
    }
    const code = `inv_${randomBytes(18).toString('base64url')}`; // INVITE_CODE_LENGTH characters
    const created = await ctx.prisma.$transaction(async (tx) => {
      // Locking the organization's row serialises its invitations, so two concurrent requests
      // cannot both see one free place and take it.
      await lockOrganization(tx, orgId);
      const now = new Date();
      // An expired code can never be redeemed: it goes, so unused invitations never pile up.
      // A revoked one expired when it was revoked, so it goes too.
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
          email: input.email ?? null,
        },
      });
      return { invitation, code, url: invitationUrl(ctx.config.baseUrl, code) };
    });
    return { ...created, mailed: await mailInvitation(ctx, created) };
  },
});

/**
 * Invitation mails one organization may send: revoking frees a pending place, so without it an
 * admin could make the service mail any address in a loop. Past it the link is still made and
 * shown (`mailed: false`), to be passed on by hand.
 */
export const INVITATION_MAIL_POLICY: Policy = { name: 'invitations.mail', limit: 20, windowMs: 60 * 60 * 1000 };

/** Mails a new invitation's link to its email, when there is one, the service sends mail, and the organization's budget allows. */
async function mailInvitation(
  ctx: Context,
  { invitation, url }: { invitation: Prisma.InvitationGetPayload<object>; url: string },
): Promise<boolean> {
  if (!invitation.email || !ctx.mailer) return false;
  // Not a refusal of the request, so not in its rate-limit headers: drawn from the limiter directly.
  if (!(await ctx.limiter.admit(`invitations.mail:${invitation.orgId}`, [INVITATION_MAIL_POLICY])).allowed)
    return false;
  const [org, inviter] = await Promise.all([
    ctx.prisma.organization.findUniqueOrThrow({ where: { id: invitation.orgId }, select: { name: true } }),
    ctx.prisma.user.findUniqueOrThrow({ where: { id: invitation.createdBy }, select: { name: true } }),
  ]);
  const mail = invitationMail(invitation.email, {
    orgName: org.name,
    inviterName: inviter.name,
    role: invitation.role,
    url,
    expiresAt: invitation.expiresAt,
  });
  return ctx.mailer.send(mail);
}

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
      expiresInDays: t.arg.int({
        required: false,
        description: `Default ${INVITATION_DAYS_DEFAULT}, at most ${INVITATION_DAYS_MAX}.`,
      }),
      email: t.arg.string({ required: false, description: 'Where to mail the link (when the service sends mail).' }),
    },
    // GraphQL's null for a left-out optional argument means "the default".
    resolve: (_root, args, ctx) =>
      createInvitation.call(
        ctx,
        { role: args.role, expiresInDays: args.expiresInDays ?? undefined, email: args.email ?? undefined },
        undefined,
      ),
  }),
);

/**
 * Marks an invitation used by `userId`, inside the transaction that makes the membership:
 * claiming and joining happen together, and a code claimed twice at once is claimed once.
 * A revoked invitation expired when it was revoked, so "unexpired" covers it.
 */
export async function claimInvitation(tx: Prisma.TransactionClient, code: string, userId: string, now: Date) {
  const claimed = await tx.invitation.updateManyAndReturn({
    where: { codeHash: hashToken(code), usedAt: null, expiresAt: { gt: now } },
    data: { usedAt: now, usedBy: userId },
    select: { orgId: true, role: true, org: { select: { slug: true, name: true } } },
  });
  const invitation = claimed[0];
  if (!invitation) throw new NotFoundError('invitation (the code is unknown, used, revoked or expired)');
  return invitation;
}

export const joinOrganization = defineOperation({
  name: 'joinOrganization',
  description: 'Joins an organization with an invite code. A cross-organization operation: not available to API keys.',
  kind: 'write',
  access: { notPat: true },
  // The bound is documented; a longer text is a code that does not exist.
  input: z.strictObject({
    code: z.string().trim().min(1, 'must not be empty').meta({ maxLength: INVITE_CODE_LENGTH }),
  }),
  async run(ctx, { code }, query: { select?: Prisma.MembershipSelect }) {
    const me = viewer(ctx);
    const now = new Date();
    return ctx.prisma.$transaction(async (tx) => {
      const invitation = await claimInvitation(tx, code, me.userId, now);
      try {
        return await tx.membership.create({
          ...nonEmpty(query),
          data: { orgId: invitation.orgId, userId: me.userId, role: invitation.role },
        });
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
    errors: outcome('joinOrganization', 'Your membership of the organization you joined.', [
      NotFoundError,
      ConflictError,
    ]),
    args: { code: t.arg.string({ required: true, description: 'The invite code you were given.' }) },
    resolve: (query, _root, args, ctx) => joinOrganization.call(ctx, args, query),
  }),
);
