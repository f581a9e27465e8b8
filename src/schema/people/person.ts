import { roleAtLeast, type Role } from '../../auth/principal.js';
import type { Context } from '../../context.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import { builder } from '../core/builder.js';
import { fixedList, textCost } from '../core/list-bounds.js';
import { EMAIL_MAX } from './fields.js';
import { columnFields } from '../core/column-graphql.js';
import { USER_TABLE } from './columns.js';
import { defineOperation } from '../core/operation.js';
import { RoleEnum } from '../organizations/membership.js';
import { findRanked, insensitive, matchTier, SEARCH_LIMIT, SearchArgs, type TextMatch } from '../core/search-text.js';
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

const PersonRef = builder.objectRef<Omit<PersonShape, 'email'> & { email: string | null }>('Person').implement({
  description: 'A member of the organization the caller acts in.',
  fields: (t) => ({
    // A member is a user: their columns as the User object shows them.
    ...columnFields(t, USER_TABLE, ['id', 'name', 'username']),
    role: t.field({ type: RoleEnum, description: 'Their role in the organization.', resolve: (person) => person.role }),
    email: t.string({
      nullable: true,
      description: `Shown to the roles ${EMAIL_VISIBLE_FROM} and above; null for the others.`,
      complexity: textCost(EMAIL_MAX),
      // searchPeople leaves it out for the others.
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
export async function findPeople(
  ctx: Context,
  q: string,
  limit = SEARCH_LIMIT,
): Promise<{ row: PersonShape; tier: number }[]> {
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

export const searchPeople = defineOperation({
  name: 'searchPeople',
  description:
    "Members of the caller's organization whose name or username contains q (managers and above: or email), " +
    'exact matches first, then prefixes, then the rest; at most 20.',
  kind: 'read',
  access: { role: 'viewer' },
  rateLimit: { policy: ROUTE_POLICIES.search },
  input: SearchArgs,
  async run(ctx, { q }): Promise<(Omit<PersonShape, 'email'> & { email: string | null })[]> {
    const emails = seesEmail(ctx);
    return (await findPeople(ctx, q)).map(({ row }) => ({ ...row, email: emails ? row.email : null }));
  },
});

builder.queryField('searchPeople', (t) =>
  t.field({
    type: [PersonRef],
    description: searchPeople.description,
    complexity: fixedList(SEARCH_LIMIT),
    args: { q: t.arg.string({ required: true, description: '1 to 100 characters.' }) },
    resolve: (_root, args, ctx) => searchPeople.call(ctx, args, undefined),
  }),
);
