import type { Role, UserPrincipal } from '../auth/principal.js';
import type { Context } from '../context.js';
import { defineOperation, runOperation } from '../rest/operation.js';

const SHELL = defineOperation(/* GraphQL */ `
  query PageShell { me { name } memberships { role organization { id name slug } } }
`);

export interface ShellOrg {
  id: string;
  name: string;
  slug: string;
  role: Role;
}

/** What every signed-in page shows: who you are and your organizations (the org switcher). */
export async function loadShell(ctx: Context) {
  const { me, memberships } = await runOperation<{
    me: { name: string };
    memberships: { role: ShellOrg['role']; organization: Omit<ShellOrg, 'role'> }[];
  }>(SHELL, ctx);
  return { user: me, orgs: memberships.map((m) => ({ ...m.organization, role: m.role })) };
}

/** The context of a page about one organization: the caller acts in it with their role there. */
export function inOrg(ctx: Context, org: ShellOrg): Context {
  const principal = ctx.principal as UserPrincipal;
  return { ...ctx, principal: { ...principal, org: { id: org.id, role: org.role } } };
}
