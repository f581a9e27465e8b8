import { z } from 'zod';
import { ROLES } from '../auth/principal.js';
import type { ApiKey, Invitation, Issue, Membership, Organization, Project, User } from '../generated/prisma/client.js';
import { apiKeyStatus, API_KEY_STATUSES } from '../schema/api-key-status.js';
import { INVITE_CODE_LENGTH, INVITE_CODE_PATTERN } from '../schema/invitation.js';
import { LIST_BOUNDS } from '../schema/list-bounds.js';
import { API_KEY_NAME_MAX } from '../schema/api-key.js';
import { ORG_NAME_MAX, ORG_SLUG_MAX } from '../schema/organization.js';
import { EMAIL_VISIBLE_FROM } from '../schema/person.js';
import { PROJECT_KEY_MAX, PROJECT_KEY_PATTERN, PROJECT_NAME_MAX } from '../schema/project-fields.js';
import { EMAIL_MAX, LOCALE_MAX, USER_NAME_MAX, USERNAME_MAX } from '../schema/user-fields.js';
import type { PaletteHitShape } from '../schema/palette.js';
import { DESCRIPTION_MAX, ISSUE_PRIORITIES, ISSUE_STATUSES, DEFAULT_PRIORITY, DEFAULT_STATUS, TITLE_MAX } from '../schema/workflow.js';
import { column, representation, timeColumn, type Field } from './representation.js';

/** The resources of the REST API, each declared once (see representation.ts). */

const uuid = (description?: string) => (description ? z.uuid().meta({ description }) : z.uuid());
/** Text of at most `max` characters: the limit of the operation that writes it. */
const text = (max: number, description?: string) => (description ? z.string().max(max).meta({ description }) : z.string().max(max));

// Limits of values the API shows, from the rules that make them.
/** `WEB-12`: a project key, a dash and an issue number (at most PostgreSQL's int4, 10 digits). */
const ISSUE_KEY_MAX = PROJECT_KEY_MAX + 1 + 10;
/** PostgreSQL's int4: issue numbers and counts. */
const INT4_MAX = 2 ** 31 - 1;

// ---- Enumerations, from the code that enforces them. ----

export const RoleSchema = z
  .enum(ROLES as [string, ...string[]])
  .meta({ id: 'Role', description: 'A role in an organization, from least to most powerful: each can do everything the ones before it can.' });
export const IssueStatusSchema = z
  .enum(ISSUE_STATUSES)
  .meta({ id: 'IssueStatus', description: 'Case-sensitive. In workflow order (the order of `sort=status`).', examples: [DEFAULT_STATUS] });
export const IssuePrioritySchema = z
  .enum(ISSUE_PRIORITIES)
  .meta({ id: 'IssuePriority', description: 'Case-sensitive. Most urgent first (the order of `sort=priority`).', examples: [DEFAULT_PRIORITY] });
const ApiKeyStatusSchema = z.enum(API_KEY_STATUSES).meta({ id: 'ApiKeyStatus', description: 'Derived: revoked, else expired, else active.' });

// ---- Resources. ----

export const UserJson = representation<Pick<User, 'id' | 'email' | 'name' | 'username' | 'locale'>>('User', 'The signed-in user.', {
  id: column('id', uuid('The user id.')),
  email: column('email', z.email().max(EMAIL_MAX).meta({ description: 'Sign-in address, lowercase.' })),
  name: column('name', text(USER_NAME_MAX, 'Display name.')),
  username: column('username', text(USERNAME_MAX, 'Unique handle.')),
  locale: column('locale', text(LOCALE_MAX, 'Language code, e.g. `en`.')),
});

type ProjectRow = Project & { _count: { issues: number } };
const projectSummary = {
  id: column<ProjectRow, 'id'>('id', uuid('The project id.')),
  name: column<ProjectRow, 'name'>('name', text(PROJECT_NAME_MAX, `1 to ${PROJECT_NAME_MAX} characters.`)),
  key: column<ProjectRow, 'key'>('key', text(PROJECT_KEY_MAX, 'Uppercase, unique in the organization; issue keys read `KEY-12`.').regex(PROJECT_KEY_PATTERN)),
};

export const ProjectJson = representation<ProjectRow>('Project', 'A project of the organization.', {
  ...projectSummary,
  issue_count: {
    schema: z.int().min(0).max(INT4_MAX).meta({ description: 'How many issues the project has now.' }),
    select: { _count: { select: { issues: true } } },
    value: (row) => row._count.issues,
  },
  created_at: timeColumn('createdAt', 'Creation time (ISO 8601, UTC).'),
  updated_at: timeColumn('updatedAt', 'Last change (ISO 8601, UTC).'),
});

export const ProjectSummaryJson = representation<ProjectRow>('ProjectSummary', 'A project, briefly.', projectSummary);

type IssueRow = Issue & { project: { key: string } };
export const IssueJson = representation<IssueRow>('Issue', 'An issue. Times are ISO 8601 in UTC.', {
  id: column('id', uuid('The issue id.')),
  key: {
    schema: text(ISSUE_KEY_MAX, 'The project key and the number: `WEB-12`. Changes when the project key does.'),
    select: { number: true, project: { select: { key: true } } },
    value: (row) => `${row.project.key}-${row.number}`,
  },
  project_id: column('projectId', uuid('The project it belongs to.')),
  number: column('number', z.int().min(1).max(INT4_MAX).meta({ description: 'Sequence number in the project: no gaps, no duplicates, never reused.' })),
  title: column('title', text(TITLE_MAX, `1 to ${TITLE_MAX} characters.`)),
  status: column('status', IssueStatusSchema),
  priority: column('priority', IssuePrioritySchema),
  description: column('description', z.string().max(DESCRIPTION_MAX).nullable().meta({ description: `Free text, at most ${DESCRIPTION_MAX.toLocaleString('en')} characters; null: none.` })),
  assignee_id: column('assigneeId', z.uuid().nullable().meta({ description: 'A user id (see `GET /people/search`); null: unassigned.' })),
  created_at: timeColumn('createdAt', 'Creation time.'),
  updated_at: timeColumn('updatedAt', 'Last change.'),
});

const apiKeyFields: Record<string, Field<ApiKey>> = {
  id: column('id', uuid('The key id.')),
  name: column('name', text(API_KEY_NAME_MAX, 'What the key is for.')),
  hint: column('hint', z.string().min(4).max(4).meta({ description: 'The last 4 characters of the token, to recognise it.' })),
  status: { schema: ApiKeyStatusSchema, select: { revokedAt: true, expiresAt: true }, value: (key) => apiKeyStatus(key) },
  user_id: column('userId', uuid('The user the key acts as (its creator).')),
  created_at: timeColumn('createdAt', 'Creation time.'),
  expires_at: timeColumn('expiresAt', 'When the key stops working; null: never.', true),
  last_used_at: timeColumn('lastUsedAt', 'Last use, to the minute; null: never used.', true),
  revoked_at: timeColumn('revokedAt', 'When it was revoked; null: not revoked.', true),
};
export const ApiKeyJson = representation<ApiKey>('ApiKey', 'An API key record: never the hash, never the token.', apiKeyFields);

export const CreatedApiKeyJson = representation<{ apiKey: ApiKey; token: string }>('CreatedApiKey', 'The new key record and, this once, its token.', {
  ...Object.fromEntries(Object.entries(apiKeyFields).map(([name, field]) => [name, { ...field, value: (row: { apiKey: ApiKey }) => field.value(row.apiKey) }])),
  token: {
    schema: z
      .string()
      .length(41)
      .regex(/^tok_live_[0-9A-Za-z]{32}$/)
      .meta({ description: 'The plaintext token: `tok_live_` and 32 base62 characters. Returned only here; store it now.' }),
    value: (row) => row.token,
  },
});

const orgFields = {
  id: column<Organization, 'id'>('id', uuid('The organization id.')),
  name: column<Organization, 'name'>('name', text(ORG_NAME_MAX, 'Display name.')),
  slug: column<Organization, 'slug'>('slug', text(ORG_SLUG_MAX, 'Lowercase letters, digits and dashes; unique.')),
  is_public: column<Organization, 'isPublic'>('isPublic', z.boolean().meta({ description: 'Listed in the public directory (`GET /orgs/search`).' })),
};
export const OrganizationJson = representation<Organization>('Organization', 'An organization, as the public directory shows it.', orgFields);

type MembershipRow = Membership & { org: Organization & { projects: ProjectRow[] } };
const viaOrg = (field: Field<Organization>): Field<MembershipRow> => ({
  schema: field.schema,
  select: { org: { select: field.select } },
  value: (row) => field.value(row.org),
});

export const OrgMembershipJson = representation<MembershipRow>('OrgMembership', "An organization with the caller's membership in it.", {
  id: viaOrg(orgFields.id),
  name: viaOrg(orgFields.name),
  slug: viaOrg(orgFields.slug),
  is_public: viaOrg(orgFields.is_public),
  role: column('role', RoleSchema),
  employee_id: column('id', uuid('The membership id.')),
});

export const MyOrgJson = representation<MembershipRow>('MyOrg', "One of the caller's memberships, with its organization's projects.", {
  employee_id: column('id', uuid('The membership id.')),
  org_id: viaOrg(orgFields.id),
  org_name: viaOrg(orgFields.name),
  org_slug: viaOrg(orgFields.slug),
  role: column('role', RoleSchema),
  projects: {
    schema: z.array(ProjectSummaryJson.schema).max(LIST_BOUNDS.organizationProjects).meta({ description: `By key; at most ${LIST_BOUNDS.organizationProjects}.` }),
    select: { org: { select: { projects: { select: ProjectSummaryJson.select, orderBy: [{ key: 'asc' }], take: LIST_BOUNDS.organizationProjects } } } },
    value: (row) => row.org.projects.map((p) => ProjectSummaryJson.present(p)),
  },
});

export const InvitationJson = representation<{ invitation: Invitation; code: string; url: string; mailed: boolean }>(
  'Invitation',
  'A new invitation. The code and the link are one secret, shown once and single use.',
  {
    id: { schema: uuid(), value: (row) => row.invitation.id },
    role: { schema: RoleSchema, value: (row) => row.invitation.role },
    expires_at: { schema: z.iso.datetime().meta({ description: 'After this the code no longer works.' }), value: (row) => row.invitation.expiresAt.toISOString() },
    invite_code: {
      schema: z
        .string()
        .length(INVITE_CODE_LENGTH)
        .regex(INVITE_CODE_PATTERN)
        .meta({ description: 'Give it to the person to invite (`POST /orgs/join`).' }),
      value: (row) => row.code,
    },
    invite_url: {
      schema: z.url().meta({ description: 'The invitation link: whoever opens it creates an account (or signs in) and joins. Redeems the same invitation as the code.' }),
      value: (row) => row.url,
    },
    email: { schema: z.string().max(254).nullable().meta({ description: 'The email given for the invitation, if any.' }), value: (row) => row.invitation.email },
    mailed: { schema: z.boolean().meta({ description: 'Whether the link was mailed to `email` (the service sends mail when configured with SMTP_URL).' }), value: (row) => row.mailed },
  },
);

interface PersonRow {
  id: string;
  name: string;
  username: string;
  role: string;
  email: string | null;
}
export const PersonJson = representation<PersonRow>(
  'Person',
  `A member of the organization. \`email\` is present only for callers whose role is ${EMAIL_VISIBLE_FROM} or above.`,
  {
    id: column('id', uuid('The user id (what `assignee_id` holds).')),
    name: column('name', text(USER_NAME_MAX, 'Display name.')),
    username: column('username', text(USERNAME_MAX, 'Unique handle.')),
    role: column('role', RoleSchema),
    email: { ...column('email', z.email().max(EMAIL_MAX).meta({ description: `Only for the roles ${EMAIL_VISIBLE_FROM} and above.` })), omitNull: true },
  },
);

const paletteHit = representation<PaletteHitShape>('PaletteHit', 'A command-palette hit: enough to show it and to open it.', {
  type: { schema: z.enum(['project', 'issue', 'person']).meta({ description: 'What the hit is.' }), value: (hit) => hit.type.toLowerCase() },
  id: column('id', uuid('The project, issue or user id.')),
  title: column('title', text(Math.max(PROJECT_NAME_MAX, TITLE_MAX, USER_NAME_MAX), "The project's name, the issue's title or the person's name.")),
  key: { ...column('key', text(ISSUE_KEY_MAX, 'The project key (`WEB`) or the issue key (`WEB-12`).')), omitNull: true },
  project_id: { ...column('projectId', uuid("An issue's project.")), omitNull: true },
  username: { ...column('username', text(USERNAME_MAX, "A person's username.")), omitNull: true },
});

const TITLE_MAX_OF: Record<string, number> = { project: PROJECT_NAME_MAX, issue: TITLE_MAX, person: USER_NAME_MAX };

// Each type of hit has exactly its own fields: the document says which, one object per type.
const hitOf = (type: string, title: string, fields: Record<string, z.ZodType>) =>
  z.strictObject({ type: z.literal(type), id: uuid(`The ${type === 'person' ? 'user' : type} id.`), title: text(TITLE_MAX_OF[type]!, title), ...fields }).meta({ id: `Palette${type[0]!.toUpperCase()}${type.slice(1)}Hit` });

export const PaletteHitJson = {
  ...paletteHit,
  schema: z
    .discriminatedUnion('type', [
      hitOf('project', "The project's name.", { key: text(PROJECT_KEY_MAX, 'The project key (`WEB`).') }),
      hitOf('issue', "The issue's title.", { key: text(ISSUE_KEY_MAX, 'The issue key (`WEB-12`).'), project_id: uuid("The issue's project.") }),
      hitOf('person', "The person's name.", { username: text(USERNAME_MAX) }),
    ])
    .meta({ id: 'PaletteHit', description: 'A command-palette hit: enough to show it and to open it. The fields depend on `type`.' }),
};
