import { z } from 'zod';
import type { Prisma } from '../generated/prisma/client.js';
import { ROLES } from '../auth/principal.js';
import { builder } from './builder.js';
import { defineOperation } from './operation.js';
import { viewer } from './viewer.js';

export const RoleEnum = builder.enumType('Role', {
  values: ROLES,
  description: 'A member\'s role in an organization, from least to most powerful.',
});

builder.prismaObject('Membership', {
  description: "The viewer's membership of one organization (the REST API's employee).",
  select: { id: true },
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The employee id.' }),
    role: t.expose('role', { type: RoleEnum }),
    organization: t.relation('org'),
  }),
});

export const listMemberships = defineOperation({
  name: 'listMemberships',
  description:
    "The viewer's organizations with their role in each. A credential bound to one organization (API key, OAuth token) sees only that one.",
  kind: 'read',
  access: {},
  input: z.strictObject({}),
  run(ctx, _input, query: { select?: Prisma.MembershipSelect }) {
    const me = viewer(ctx);
    return ctx.prisma.membership.findMany({
      ...query,
      where: { userId: me.userId, ...(me.orgBound && me.org ? { orgId: me.org.id } : {}) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
  },
});

builder.queryField('memberships', (t) =>
  t.prismaField({
    type: ['Membership'],
    description: listMemberships.description,
    resolve: (query, _root, _args, ctx) => listMemberships.call(ctx, {}, query),
  }),
);
