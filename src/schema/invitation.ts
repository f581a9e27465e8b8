import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { hashToken } from '../auth/pat-token.js';
import { roleAtLeast, ROLES } from '../auth/principal.js';
import { Prisma } from '../generated/prisma/client.js';
import { builder } from './builder.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from './errors.js';
import { RoleEnum } from './membership.js';
import { nonEmpty } from './selection.js';
import { validate } from './validate.js';
import { activeOrgId, viewer } from './viewer.js';

const InvitationRef = builder.prismaObject('Invitation', {
  fields: (t) => ({
    id: t.exposeID('id'),
    role: t.expose('role', { type: RoleEnum }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime' }),
  }),
});

const CreatedInvitation = builder
  .objectRef<{ invitation: Prisma.InvitationGetPayload<object>; code: string }>('CreatedInvitation')
  .implement({
    fields: (t) => ({
      invitation: t.field({ type: InvitationRef, resolve: (c) => c.invitation }),
      code: t.exposeString('code', { description: 'The invite code, shown once. Single use.' }),
    }),
  });

const CreateInvitation = z.object({
  role: z.enum(ROLES as [string, ...string[]]),
  expiresInDays: z.number().int().min(1, 'must be between 1 and 30').max(30, 'must be between 1 and 30').default(7),
});

builder.mutationField('createInvitation', (t) =>
  t.field({
    type: CreatedInvitation,
    description: 'A single-use invite code to join this organization with a role no higher than your own. Owners and admins.',
    authScopes: { role: 'admin' },
    errors: { types: [ValidationError] },
    args: {
      role: t.arg({ type: RoleEnum, required: true }),
      expiresInDays: t.arg.int({ required: false, description: 'Default 7, at most 30.' }),
    },
    resolve: async (_root, args, ctx) => {
      const me = viewer(ctx);
      const orgId = activeOrgId(ctx);
      const input = validate(CreateInvitation, { role: args.role, expiresInDays: args.expiresInDays ?? undefined });
      if (!roleAtLeast(me.org!.role, args.role)) throw new ForbiddenError('You cannot invite someone with a higher role than your own.');
      const code = `inv_${randomBytes(18).toString('base64url')}`;
      const invitation = await ctx.prisma.invitation.create({
        data: {
          orgId,
          role: args.role,
          createdBy: me.userId,
          codeHash: hashToken(code),
          expiresAt: new Date(Date.now() + input.expiresInDays * 24 * 3600 * 1000),
        },
      });
      return { invitation, code };
    },
  }),
);

builder.mutationField('joinOrganization', (t) =>
  t.prismaField({
    type: 'Membership',
    description: 'Joins an organization with an invite code. A cross-organization operation: not available to API keys.',
    authScopes: { notPat: true, signedIn: true },
    errors: { types: [NotFoundError, ConflictError] },
    args: { code: t.arg.string({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const me = viewer(ctx);
      const now = new Date();
      return ctx.prisma.$transaction(async (tx) => {
        // Claiming the code and joining happen together; a code claimed twice at once is claimed once.
        const claimed = await tx.invitation.updateManyAndReturn({
          where: { codeHash: hashToken(args.code.trim()), usedAt: null, expiresAt: { gt: now } },
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
  }),
);
