import { z } from 'zod';
import { SEARCH_LIMIT } from '../../schema/core/search-text.js';
import { createInvitation, joinOrganization, MAX_PENDING_INVITATIONS } from '../../schema/organizations/invitation.js';
import { createOrganization, searchOrganizations } from '../../schema/organizations/organization.js';
import { camelKeys, once, snakeBody } from '../inputs.js';
import { InvitationJson, OrganizationJson, OrgMembershipJson } from '../../schema/organizations/representation.js';
import { route } from '../route.js';
import { EXAMPLE } from './examples.js';

export const orgRoutes = [
  route({
    method: 'post',
    path: '/orgs',
    operationId: 'createOrg',
    summary: 'Create an organization',
    description: 'The caller becomes its owner. Not with an API key (a cross-organization operation).',
    tag: 'Organizations',
    operation: createOrganization,
    body: snakeBody(createOrganization.input),
    success: {
      status: 201,
      description: "The organization and the caller's owner membership.",
      schema: OrgMembershipJson.schema,
      examples: { created: EXAMPLE.membership },
    },
    errors: { 409: 'The slug is taken.' },
    async handle(ctx, { body }) {
      const membership = await createOrganization.run(ctx, createOrganization.parse(camelKeys(body)), {
        select: OrgMembershipJson.select,
      });
      return { body: OrgMembershipJson.present(membership as never) };
    },
  }),
  route({
    method: 'get',
    path: '/orgs/search',
    operationId: 'searchOrgs',
    summary: 'Search the public directory',
    description:
      'Organizations listed as public, by name or slug, at most 20. Not with an API key (a cross-organization operation).',
    tag: 'Organizations',
    operation: searchOrganizations,
    query: z.object({ q: once(searchOrganizations.input.shape.q).meta({ description: '1 to 100 characters.' }) }),
    success: {
      status: 200,
      description: 'The matching organizations.',
      schema: z.array(OrganizationJson.schema).max(SEARCH_LIMIT),
      examples: { acme: [EXAMPLE.organization] },
    },
    async handle(ctx, { query }) {
      const found = await searchOrganizations.run(ctx, searchOrganizations.parse(query), {
        select: OrganizationJson.select,
      });
      return { body: found.map((org) => OrganizationJson.present(org as never)) };
    },
  }),
  route({
    method: 'post',
    path: '/orgs/join',
    operationId: 'joinOrg',
    summary: 'Join an organization with an invite code',
    description: "With the invitation's role. Not with an API key (a cross-organization operation).",
    tag: 'Organizations',
    operation: joinOrganization,
    body: z.strictObject({
      invite_code: joinOrganization.input.shape.code.meta({ description: 'The code from `POST /invitations`.' }),
    }),
    names: { code: 'invite_code' },
    success: {
      status: 201,
      description: 'The new membership.',
      schema: OrgMembershipJson.schema,
      examples: { joined: { ...EXAMPLE.membership, role: 'member' } },
    },
    errors: {
      404: 'The code is unknown, used or expired.',
      409: 'The caller is already a member (the code stays usable).',
    },
    async handle(ctx, { body }) {
      const membership = await joinOrganization.run(ctx, joinOrganization.parse({ code: body.invite_code }), {
        select: OrgMembershipJson.select,
      });
      return { body: OrgMembershipJson.present(membership as never) };
    },
  }),
  route({
    method: 'post',
    path: '/invitations',
    operationId: 'createInvitation',
    summary: 'Invite someone',
    description:
      "A single-use invite code and the link that carries it, shown once, for a role no higher than the caller's own. Owners and admins.",
    tag: 'Organizations',
    operation: createInvitation,
    body: snakeBody(createInvitation.input),
    success: {
      status: 201,
      description: 'The invitation, its code and its link.',
      schema: InvitationJson.schema,
      examples: { invitation: EXAMPLE.invitation },
    },
    errors: {
      409: `The organization already has ${MAX_PENDING_INVITATIONS} pending invitations (\`invitation_limit_reached\`).`,
    },
    async handle(ctx, { body }) {
      return {
        body: InvitationJson.present(
          await createInvitation.run(ctx, createInvitation.parse(camelKeys(body)), undefined),
        ),
      };
    },
  }),
];
