import { z } from 'zod';
import type { Context } from '../../context.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { defineOperation } from '../core/operation.js';
import { isUuid } from '../core/uuid.js';

/**
 * The applications a person authorized (OAuth grants), and taking one back. A person's own
 * grants, in every organization: never another user's. Browser session only (`notPat`, and an
 * OAuth token is not a session either: an application must not see or end other grants).
 */

/** The signed-in person's id: an application (OAuth token) or a key may not manage grants. */
function sessionUserId(ctx: Context): string {
  const principal = ctx.principal;
  if (principal.kind !== 'user' || principal.credential.kind !== 'session') {
    throw new ForbiddenError(
      'Only you, signed in with your browser, can see or revoke the applications you authorized.',
    );
  }
  return principal.userId;
}

/** Live grants: not revoked, not past the 90 days after consent. Newest first. */
export const listMyGrants = defineOperation({
  name: 'listMyGrants',
  description:
    'The applications you authorized, with the organization, scopes, and when each was granted and last used.',
  kind: 'read',
  access: { notPat: true },
  input: z.object({}),
  async run(ctx) {
    return ctx.prisma.oAuthGrant.findMany({
      where: { userId: sessionUserId(ctx), revokedAt: null, expiresAt: { gt: new Date() } },
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      select: {
        id: true,
        scope: true,
        createdAt: true,
        lastUsedAt: true,
        client: { select: { id: true, name: true, redirectUris: true } },
        membership: { select: { org: { select: { name: true, slug: true } } } },
      },
    });
  },
});

/** Revokes one of your grants: every access and refresh token of it fails on its next request (the grant row is read on each). */
export const revokeMyGrant = defineOperation({
  name: 'revokeMyGrant',
  description: 'Take back an application’s access: its tokens stop working at once.',
  kind: 'write',
  access: { notPat: true },
  input: z.object({ id: z.string().min(1, 'is required') }),
  async run(ctx, { id }) {
    if (!isUuid(id)) throw new NotFoundError('grant');
    const { count } = await ctx.prisma.oAuthGrant.updateMany({
      where: { id, userId: sessionUserId(ctx), revokedAt: null },
      data: { revokedAt: new Date() },
    });
    if (count === 0) throw new NotFoundError('grant');
  },
});
