import { z } from 'zod';
import type { Prisma } from '../../generated/prisma/client.js';
import type { ROLES } from '../../auth/principal.js';
import { builder } from '../core/builder.js';
import { firstArg, firstInput, LIST_BOUNDS, membershipsCost } from '../core/list-bounds.js';
import { defineOperation } from '../core/operation.js';
import { viewer } from '../people/viewer.js';

export const RoleEnum = builder.enumType('Role', {
  values: {
    viewer: { description: 'Reads projects, issues and people.' },
    member: { description: 'A viewer who also creates and changes issues.' },
    manager: { description: 'A member who also manages projects, deletes issues and creates API keys.' },
    admin: { description: 'A manager who also manages members, invitations, every API key and the webhooks.' },
    owner: { description: 'An admin who can also make owners; an organization keeps at least one.' },
  } satisfies Record<(typeof ROLES)[number], unknown>,
  description: "A member's role in an organization, from least to most powerful.",
});

builder.prismaObject('Membership', {
  description: "The viewer's membership of one organization (the REST API's employee).",
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The employee id.' }),
    role: t.expose('role', { type: RoleEnum, description: 'Your role in it.' }),
    organization: t.relation('org', { description: 'The organization.' }),
  }),
});

export const listMemberships = defineOperation({
  name: 'listMemberships',
  description: `The viewer's organizations with their role in each, oldest first, at most ${LIST_BOUNDS.memberships}. A credential bound to one organization (API key, OAuth token) sees only that one.`,
  kind: 'read',
  access: {},
  input: z.strictObject({ first: firstInput(LIST_BOUNDS.memberships) }),
  run(ctx, input, query: { select?: Prisma.MembershipSelect }) {
    const me = viewer(ctx);
    return ctx.prisma.membership.findMany({
      ...query,
      where: { userId: me.userId, ...(me.orgBound && me.org ? { orgId: me.org.id } : {}) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: input.first ?? LIST_BOUNDS.memberships,
    });
  },
});

builder.queryField('memberships', (t) =>
  t.prismaField({
    type: ['Membership'],
    description: listMemberships.description,
    args: { first: t.arg.int(firstArg(LIST_BOUNDS.memberships)) },
    complexity: membershipsCost,
    resolve: (query, _root, args, ctx) => listMemberships.call(ctx, args, query),
  }),
);
