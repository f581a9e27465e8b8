import { z } from 'zod';
import { ROLES } from '../../auth/principal.js';
import type { Invitation, Membership, Organization } from '../../generated/prisma/client.js';
import { INVITE_CODE_LENGTH, INVITE_CODE_PATTERN } from './invitation.js';
import { LIST_BOUNDS } from '../core/list-bounds.js';
import { ORG_NAME_MAX, ORG_SLUG_MAX } from './organization.js';
import { ProjectSummaryJson, type ProjectRow } from '../projects/representation.js';
import { column, representation, text, uuid, type Field } from '../core/representation.js';

/** Organizations, memberships and invitations as REST answers them. */

export const RoleSchema = z.enum(ROLES as [string, ...string[]]).meta({
  id: 'Role',
  description: 'A role in an organization, from least to most powerful: each can do everything the ones before it can.',
});
const orgFields = {
  id: column<Organization, 'id'>('id', uuid('The organization id.')),
  name: column<Organization, 'name'>('name', text(ORG_NAME_MAX, 'Display name.')),
  slug: column<Organization, 'slug'>('slug', text(ORG_SLUG_MAX, 'Lowercase letters, digits and dashes; unique.')),
  is_public: column<Organization, 'isPublic'>(
    'isPublic',
    z.boolean().meta({ description: 'Listed in the public directory (`GET /orgs/search`).' }),
  ),
};
export const OrganizationJson = representation<Organization>(
  'Organization',
  'An organization, as the public directory shows it.',
  orgFields,
);

type MembershipRow = Membership & { org: Organization & { projects: ProjectRow[] } };
const viaOrg = (field: Field<Organization>): Field<MembershipRow> => ({
  schema: field.schema,
  select: { org: { select: field.select } },
  value: (row) => field.value(row.org),
});

export const OrgMembershipJson = representation<MembershipRow>(
  'OrgMembership',
  "An organization with the caller's membership in it.",
  {
    id: viaOrg(orgFields.id),
    name: viaOrg(orgFields.name),
    slug: viaOrg(orgFields.slug),
    is_public: viaOrg(orgFields.is_public),
    role: column('role', RoleSchema),
    employee_id: column('id', uuid('The membership id.')),
  },
);

export const MyOrgJson = representation<MembershipRow>(
  'MyOrg',
  "One of the caller's memberships, with its organization's projects.",
  {
    employee_id: column('id', uuid('The membership id.')),
    org_id: viaOrg(orgFields.id),
    org_name: viaOrg(orgFields.name),
    org_slug: viaOrg(orgFields.slug),
    role: column('role', RoleSchema),
    projects: {
      schema: z
        .array(ProjectSummaryJson.schema)
        .max(LIST_BOUNDS.organizationProjects)
        .meta({ description: `By key; at most ${LIST_BOUNDS.organizationProjects}.` }),
      select: {
        org: {
          select: {
            projects: {
              select: ProjectSummaryJson.select,
              orderBy: [{ key: 'asc' }],
              take: LIST_BOUNDS.organizationProjects,
            },
          },
        },
      },
      value: (row) => row.org.projects.map((p) => ProjectSummaryJson.present(p)),
    },
  },
);

export const InvitationJson = representation<{ invitation: Invitation; code: string; url: string; mailed: boolean }>(
  'Invitation',
  'A new invitation. The code and the link are one secret, shown once and single use.',
  {
    id: { schema: uuid(), value: (row) => row.invitation.id },
    role: { schema: RoleSchema, value: (row) => row.invitation.role },
    expires_at: {
      schema: z.iso.datetime().meta({ description: 'After this the code no longer works.' }),
      value: (row) => row.invitation.expiresAt.toISOString(),
    },
    invite_code: {
      schema: z
        .string()
        .length(INVITE_CODE_LENGTH)
        .regex(INVITE_CODE_PATTERN)
        .meta({ description: 'Give it to the person to invite (`POST /orgs/join`).' }),
      value: (row) => row.code,
    },
    invite_url: {
      schema: z.url().meta({
        description:
          'The invitation link: whoever opens it creates an account (or signs in) and joins. Redeems the same invitation as the code.',
      }),
      value: (row) => row.url,
    },
    email: {
      schema: z.string().max(254).nullable().meta({ description: 'The email given for the invitation, if any.' }),
      value: (row) => row.invitation.email,
    },
    mailed: {
      schema: z.boolean().meta({
        description: 'Whether the link was mailed to `email` (the service sends mail when configured with SMTP_URL).',
      }),
      value: (row) => row.mailed,
    },
  },
);
