import { roleAtLeast, type Role } from '../auth/principal.js';
import type { Context } from '../context.js';
import { ROUTE_POLICIES } from '../limits/policy.js';
import { builder } from './builder.js';
import { limitOperation } from './rate-limit.js';
import { RoleEnum } from './membership.js';
import { findRanked, insensitive, matchTier, SEARCH_LIMIT, SearchArgs, type TextMatch } from './search-text.js';
import { validate } from './validate.js';
import { activeOrgId, viewer } from './viewer.js';

/** Email addresses of the people in an organization are shown to this role and above. */
export const EMAIL_VISIBLE_FROM: Role = 'manager';

export interface PersonShape {
  id: string;
  name: string;
  username: string;
  email: string;
  role: Role;
}

export const PersonRef = builder.objectRef<PersonShape>('Person').implement({
  description: 'A member of the organization the caller acts in.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The user id (what assigneeId holds).' }),
    name: t.exposeString('name'),
    username: t.exposeString('username'),
    role: t.field({ type: RoleEnum, resolve: (person) => person.role }),
    email: t.string({
      nullable: true,
      description: `Shown to the roles ${EMAIL_VISIBLE_FROM} and above; null for the others.`,
      authScopes: { role: EMAIL_VISIBLE_FROM },
      unauthorizedResolver: () => null,
      resolve: (person) => person.email,
    }),
  }),
});

/** Whether the caller may see (and so search by) the email addresses of the organization's people. */
export function seesEmail(ctx: Context): boolean {
  const org = viewer(ctx).org;
  return !!org && roleAtLeast(org.role, EMAIL_VISIBLE_FROM);
}

/**
 * People of the caller's organization whose name or username (and, for those who may see it,
 * email) matches `q`, best matches first.
 */
export async function findPeople(ctx: Context, q: string, limit = SEARCH_LIMIT): Promise<{ row: PersonShape; tier: number }[]> {
  const orgId = activeOrgId(ctx);
  const fields = seesEmail(ctx) ? (['name', 'username', 'email'] as const) : (['name', 'username'] as const);
  const find = async (match: TextMatch) => {
    const rows = await ctx.prisma.membership.findMany({
      where: { orgId, user: { OR: fields.map((field) => ({ [field]: insensitive(match, q) })) } },
      select: { role: true, user: { select: { id: true, name: true, username: true, email: true } } },
      orderBy: [{ user: { name: 'asc' } }, { user: { id: 'asc' } }],
      take: limit,
    });
    return rows.map(({ role, user }): PersonShape => ({ ...user, role }));
  };
  return findRanked(
    find,
    (person) => Math.min(...fields.map((field) => matchTier(q, person[field]))),
    (person) => person.id,
    limit,
  );
}

builder.queryField('searchPeople', (t) =>
  t.field({
    type: [PersonRef],
    description:
      "Members of the caller's organization whose name or username contains q (managers and above: or email), " +
      'exact matches first, then prefixes, then the rest; at most 20.',
    authScopes: { role: 'viewer' },
    args: { q: t.arg.string({ required: true, description: '1 to 100 characters.' }) },
    resolve: async (_root, args, ctx) => {
      await limitOperation(ctx, ROUTE_POLICIES.search);
      const { q } = validate(SearchArgs, args);
      return (await findPeople(ctx, q)).map((hit) => hit.row);
    },
  }),
);
