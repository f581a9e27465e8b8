import { z } from 'zod';
import { LIST_BOUNDS } from '../../schema/core/list-bounds.js';
import { listMemberships } from '../../schema/organizations/membership.js';
import { getMe } from '../../schema/people/user.js';
import { MyOrgJson, OrgMembershipJson } from '../../schema/organizations/representation.js';
import { UserJson } from '../../schema/people/representation.js';
import { route } from '../route.js';
import { EXAMPLE } from './examples.js';

/** `{ orgs: [...], count }`, the spec's list of the caller's organizations. */
const orgList = (description: string, item: z.ZodType, id: string) =>
  z
    .strictObject({
      orgs: z.array(item).max(LIST_BOUNDS.memberships),
      count: z.int().min(0).max(LIST_BOUNDS.memberships).meta({ description: 'The number of entries in `orgs`.' }),
    })
    .meta({ id, description });

const memberships = (ctx: Parameters<typeof listMemberships.run>[0], select: Record<string, unknown>) =>
  listMemberships.run(ctx, {}, { select });

export const meRoutes = [
  route({
    method: 'get',
    path: '/me',
    operationId: 'getMe',
    tool: { name: 'who_am_i', toolsets: ['account'] },
    summary: 'The signed-in user',
    tag: 'Me',
    operation: getMe,
    success: { status: 200, description: 'The user.', schema: UserJson.schema, examples: { olivia: EXAMPLE.user } },
    async handle(ctx) {
      return { body: UserJson.present(await getMe.run(ctx, {}, { select: UserJson.select })) };
    },
  }),
  route({
    method: 'get',
    path: '/me/orgs',
    operationId: 'listMyOrgs',
    tool: { name: 'list_my_orgs', toolsets: ['account'] },
    summary: "The caller's organizations with their projects",
    description: 'An API key or OAuth token sees only its own organization.',
    tag: 'Me',
    operation: listMemberships,
    success: {
      status: 200,
      description: 'The memberships.',
      schema: orgList(
        "The caller's organizations (only the bound one for an API key or OAuth token).",
        MyOrgJson.schema,
        'MyOrgList',
      ),
      examples: { one: EXAMPLE.myOrgs },
    },
    async handle(ctx) {
      const orgs = (await memberships(ctx, MyOrgJson.select)).map((m) => MyOrgJson.present(m as never));
      return { body: { orgs, count: orgs.length } };
    },
  }),
  route({
    method: 'get',
    path: '/orgs',
    operationId: 'listOrgs',
    summary: "The caller's organizations",
    description: 'With the role and membership id in each; an API key or OAuth token sees only its own organization.',
    tag: 'Organizations',
    operation: listMemberships,
    success: {
      status: 200,
      description: 'The memberships.',
      schema: orgList(
        "The caller's organizations (only the bound one for an API key or OAuth token).",
        OrgMembershipJson.schema,
        'OrgMembershipList',
      ),
      examples: { one: { orgs: [EXAMPLE.membership], count: 1 } },
    },
    async handle(ctx) {
      const orgs = (await memberships(ctx, OrgMembershipJson.select)).map((m) => OrgMembershipJson.present(m as never));
      return { body: { orgs, count: orgs.length } };
    },
  }),
];
