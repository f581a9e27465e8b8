import type { UserPrincipal } from '../../auth/principal.js';
import type { Context } from '../../context.js';
import { ForbiddenError } from '../core/errors.js';

/** The signed-in caller; fields that call this are guarded by the `signedIn` scope. */
export function viewer(ctx: Context): UserPrincipal {
  if (ctx.principal.kind !== 'user') throw new ForbiddenError('Sign in first.');
  return ctx.principal;
}

/**
 * The organization the caller acts in. Every org-owned query filters by this id,
 * so another organization's rows cannot be read or written through the API.
 */
export function activeOrgId(ctx: Context): string {
  const org = ctx.principal.kind === 'operator' ? ctx.principal.org : viewer(ctx).org;
  if (!org) throw new ForbiddenError('Select an organization with the X-Org-Id header.');
  return org.id;
}
