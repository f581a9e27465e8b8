import type { Role, UserPrincipal } from '../auth/principal.js';
import type { Context } from '../context.js';
import { listMemberships } from '../schema/organizations/membership.js';
import { getMe } from '../schema/people/user.js';

export interface ShellOrg {
  id: string;
  name: string;
  slug: string;
  role: Role;
}

/** What every signed-in page shows: who you are and your organizations (the org switcher). */
export async function loadShell(ctx: Context): Promise<{ user: { name: string }; orgs: ShellOrg[] }> {
  const [me, memberships] = await Promise.all([
    getMe.call(ctx, {}, { select: { name: true } }),
    listMemberships.call(ctx, {}, { select: { role: true, org: { select: { id: true, name: true, slug: true } } } }),
  ]);
  const orgs = (memberships as unknown as { role: Role; org: Omit<ShellOrg, 'role'> }[]).map((m) => ({
    ...m.org,
    role: m.role,
  }));
  return { user: { name: me.name }, orgs };
}

/** The context of a page about one organization: the caller acts in it with their role there. */
export function inOrg(ctx: Context, org: ShellOrg): Context {
  const principal = ctx.principal as UserPrincipal;
  return { ...ctx, principal: { ...principal, org: { id: org.id, role: org.role } } };
}
