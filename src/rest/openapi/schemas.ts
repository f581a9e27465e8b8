import { STATUS_CODES } from 'node:http';
import { isEnumType } from 'graphql';
import { ROLES } from '../../auth/principal.js';
import { schema as graphqlSchema } from '../../schema/index.js';
import { PROJECT_NAME_MAX } from '../../schema/project.js';
import { EMAIL_VISIBLE_FROM } from '../../schema/person.js';
import { DEFAULT_PRIORITY, DEFAULT_STATUS, DESCRIPTION_MAX, ISSUE_PRIORITIES, ISSUE_STATUSES, TITLE_MAX } from '../../schema/workflow.js';
import type { Schema } from './types.js';

/** The values of a GraphQL enum, so that the document follows the schema instead of a copy of it. */
export function graphqlEnum(name: string): string[] {
  const type = graphqlSchema.getType(name);
  if (!isEnumType(type)) throw new Error(`OpenAPI: ${name} is not a GraphQL enum`);
  return type.getValues().map((v) => v.name);
}

export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });

/** An object with exactly these fields, every one always present (null where the schema allows it). */
function exact(description: string, properties: Record<string, Schema>): Schema {
  return { type: 'object', description, additionalProperties: false, required: Object.keys(properties), properties };
}

const uuid = (description?: string): Schema => ({ type: 'string', format: 'uuid', ...(description ? { description } : {}) });
const dateTime = (description: string): Schema => ({ type: 'string', format: 'date-time', description });
const nullableDateTime = (description: string): Schema => ({ type: ['string', 'null'], format: 'date-time', description });

export const PROJECT_KEY_PATTERN = '^[A-Za-z][A-Za-z0-9]{1,9}$';
export const ORG_SLUG_PATTERN = '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38}[A-Za-z0-9])?$';
export const TOKEN_PATTERN = '^tok_live_[0-9A-Za-z]{32}$';
export const INVITE_CODE_PATTERN = '^inv_[0-9A-Za-z_-]{24}$';

// ---- Example values, shared by the schemas' examples and the responses' examples. ----

export const EX = {
  userId: '5b0c1d2e-3f40-4a5b-8c6d-7e8f90a1b2c3',
  otherUserId: '6c1d2e3f-4051-4b6c-9d7e-8f90a1b2c3d4',
  orgId: '0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d',
  membershipId: '1b2c3d4e-5f60-4b7c-9d8e-0f1a2b3c4d5e',
  projectId: '2c3d4e5f-6071-4c8d-8e9f-1a2b3c4d5e6f',
  issueId: '3d4e5f60-7182-4d9e-9fa0-2b3c4d5e6f70',
  keyId: '4e5f6071-8293-4eaf-a0b1-3c4d5e6f7081',
  invitationId: '7f8091a2-b3c4-4d5e-8f60-718293a4b5c6',
  created: '2026-01-31T12:00:00.000Z',
  updated: '2026-02-02T09:30:00.000Z',
  token: 'tok_live_A1b2C3d4E5f6G7h8J9k0L1m2N3p4Q5r6',
  inviteCode: 'inv_Zx8Qm2Lk7Wn4Rt1Yb6Pv9Hc3',
} as const;

export const EXAMPLES = {
  user: { id: EX.userId, email: 'olivia@example.com', name: 'Olivia Owner', username: 'olivia', locale: 'en' },
  project: { id: EX.projectId, name: 'Website', key: 'WEB', issue_count: 12, created_at: EX.created, updated_at: EX.updated },
  issue: {
    id: EX.issueId,
    key: 'WEB-12',
    project_id: EX.projectId,
    number: 12,
    title: 'Fix the login redirect loop',
    status: 'In Progress',
    priority: 'high',
    description: 'Signing in from /settings sends the browser back and forth.',
    assignee_id: EX.userId,
    created_at: EX.created,
    updated_at: EX.updated,
  },
  apiKey: {
    id: EX.keyId,
    name: 'CI deploys',
    hint: 'Q5r6',
    status: 'active',
    user_id: EX.userId,
    created_at: EX.created,
    expires_at: null,
    last_used_at: '2026-02-02T09:30:00.000Z',
    revoked_at: null,
  },
  organization: { id: EX.orgId, name: 'Acme Corp', slug: 'acme', is_public: true },
} as const;

// ---- Enumerations: taken from the code that enforces them, so the document cannot drift. ----

const enums: Record<string, Schema> = {
  Role: {
    type: 'string',
    enum: ROLES,
    description: 'A role in an organization, from least to most powerful: each can do everything the ones before it can.',
  },
  IssueStatus: {
    type: 'string',
    enum: ISSUE_STATUSES,
    description: 'Case-sensitive. In workflow order (the order of `sort=status`).',
    examples: [DEFAULT_STATUS],
  },
  IssuePriority: {
    type: 'string',
    enum: ISSUE_PRIORITIES,
    description: 'Case-sensitive. Most urgent first (the order of `sort=priority`).',
    examples: [DEFAULT_PRIORITY],
  },
  ApiKeyStatus: { type: 'string', enum: graphqlEnum('ApiKeyStatus'), description: 'Derived: revoked, else expired, else active.' },
};

// ---- Resources (responses). Every field is always present: `required` lists them all. ----

const PROJECT_FIELDS = {
  id: uuid(),
  name: { type: 'string', description: `1 to ${PROJECT_NAME_MAX} characters.` },
  key: { type: 'string', description: 'Uppercase, unique in the organization; issue keys read `KEY-12`.' },
} satisfies Record<string, Schema>;

const ORG_FIELDS = {
  id: uuid(),
  name: { type: 'string' },
  slug: { type: 'string', description: 'Lowercase letters, digits and dashes; unique.' },
  is_public: { type: 'boolean', description: 'Listed in the public directory (`GET /orgs/search`).' },
} satisfies Record<string, Schema>;

const API_KEY_FIELDS = {
  id: uuid(),
  name: { type: 'string' },
  hint: { type: 'string', minLength: 4, maxLength: 4, description: 'The last 4 characters of the token, to recognise it.' },
  status: ref('ApiKeyStatus'),
  user_id: uuid('The user the key acts as (its creator).'),
  created_at: dateTime('Creation time.'),
  expires_at: nullableDateTime('When the key stops working; null: never.'),
  last_used_at: nullableDateTime('Last use, to the minute; null: never used.'),
  revoked_at: nullableDateTime('When it was revoked; null: not revoked.'),
} satisfies Record<string, Schema>;

const resources: Record<string, Schema> = {
  User: exact('The signed-in user.', {
    id: uuid(),
    email: { type: 'string', format: 'email' },
    name: { type: 'string' },
    username: { type: 'string' },
    locale: { type: 'string', description: 'Language code, e.g. `en`.' },
  }),
  ProjectSummary: exact('A project, briefly.', PROJECT_FIELDS),
  MyOrg: exact('One of the caller\'s memberships, with its organization\'s projects.', {
    employee_id: uuid('The membership id.'),
    org_id: uuid(),
    org_name: { type: 'string' },
    org_slug: { type: 'string' },
    role: ref('Role'),
    projects: { type: 'array', items: ref('ProjectSummary'), description: 'By key.' },
  }),
  MyOrgList: exact("The caller's organizations (only the bound one for an API key or OAuth token).", {
    orgs: { type: 'array', items: ref('MyOrg') },
    count: { type: 'integer', minimum: 0, description: 'The number of entries in `orgs`.' },
  }),
  Project: exact('A project of the organization.', {
    ...PROJECT_FIELDS,
    issue_count: { type: 'integer', minimum: 0, description: 'How many issues the project has now.' },
    created_at: dateTime('Creation time (ISO 8601, UTC).'),
    updated_at: dateTime('Last change (ISO 8601, UTC).'),
  }),
  Issue: exact('An issue. Times are ISO 8601 in UTC.', {
    id: uuid(),
    key: { type: 'string', description: 'The project key and the number: `WEB-12`. Changes when the project key does.' },
    project_id: uuid(),
    number: { type: 'integer', minimum: 1, description: 'Sequence number in the project: no gaps, no duplicates, never reused.' },
    title: { type: 'string' },
    status: ref('IssueStatus'),
    priority: ref('IssuePriority'),
    description: { type: ['string', 'null'] },
    assignee_id: { type: ['string', 'null'], format: 'uuid', description: 'A user id (see `GET /people/search`); null: unassigned.' },
    created_at: dateTime('Creation time.'),
    updated_at: dateTime('Last change.'),
  }),
  ApiKey: exact('An API key record: never the hash, never the token.', API_KEY_FIELDS),
  CreatedApiKey: exact('The new key record and, this once, its token.', {
    ...API_KEY_FIELDS,
    token: {
      type: 'string',
      pattern: TOKEN_PATTERN,
      description: 'The plaintext token: `tok_live_` and 32 base62 characters. Returned only here; store it now.',
    },
  }),
  Organization: exact('An organization, as the public directory shows it.', ORG_FIELDS),
  OrgMembership: exact("An organization with the caller's membership in it.", {
    ...ORG_FIELDS,
    role: ref('Role'),
    employee_id: uuid('The membership id.'),
  }),
  OrgMembershipList: exact("The caller's organizations (only the bound one for an API key or OAuth token).", {
    orgs: { type: 'array', items: ref('OrgMembership') },
    count: { type: 'integer', minimum: 0, description: 'The number of entries in `orgs`.' },
  }),
  Invitation: exact('A new invitation. The code is shown once and is single use.', {
    id: uuid(),
    role: ref('Role'),
    expires_at: dateTime('After this the code no longer works.'),
    invite_code: { type: 'string', pattern: INVITE_CODE_PATTERN, description: 'Give it to the person to invite (`POST /orgs/join`).' },
  }),
  Person: {
    type: 'object',
    description: `A member of the organization. \`email\` is present only for callers whose role is ${EMAIL_VISIBLE_FROM} or above.`,
    additionalProperties: false,
    required: ['id', 'name', 'username', 'role'],
    properties: {
      id: uuid('The user id (what `assignee_id` holds).'),
      name: { type: 'string' },
      username: { type: 'string' },
      role: ref('Role'),
      email: { type: 'string', format: 'email', description: `Only for the roles ${EMAIL_VISIBLE_FROM} and above.` },
    },
  },
  PaletteHit: {
    description: 'A command-palette hit: enough to show it and to open it. The fields depend on `type`.',
    oneOf: [ref('PaletteProjectHit'), ref('PaletteIssueHit'), ref('PalettePersonHit')],
    discriminator: {
      propertyName: 'type',
      mapping: {
        project: '#/components/schemas/PaletteProjectHit',
        issue: '#/components/schemas/PaletteIssueHit',
        person: '#/components/schemas/PalettePersonHit',
      },
    },
  },
  PaletteProjectHit: exact('A project.', {
    type: { const: 'project' },
    id: uuid('The project id.'),
    title: { type: 'string', description: "The project's name." },
    key: { type: 'string', description: 'The project key (`WEB`).' },
  }),
  PaletteIssueHit: exact('An issue.', {
    type: { const: 'issue' },
    id: uuid('The issue id.'),
    title: { type: 'string', description: "The issue's title." },
    key: { type: 'string', description: 'The issue key (`WEB-12`).' },
    project_id: uuid("The issue's project."),
  }),
  PalettePersonHit: exact('A person.', {
    type: { const: 'person' },
    id: uuid('The user id.'),
    title: { type: 'string', description: "The person's name." },
    username: { type: 'string' },
  }),
};

// ---- Request bodies. Unknown fields are refused (400), hence additionalProperties: false. ----

const issueTitle: Schema = { type: 'string', minLength: 1, maxLength: TITLE_MAX, description: `1 to ${TITLE_MAX} characters after trimming.` };
const issueDescription: Schema = { type: ['string', 'null'], maxLength: DESCRIPTION_MAX, description: `At most ${DESCRIPTION_MAX} characters; null: none.` };
const projectName: Schema = { type: 'string', minLength: 1, maxLength: PROJECT_NAME_MAX, description: `1 to ${PROJECT_NAME_MAX} characters after trimming.` };
const projectKey: Schema = {
  type: 'string',
  pattern: PROJECT_KEY_PATTERN,
  description: '2 to 10 letters or digits, starting with a letter; stored in uppercase. Unique in the organization (else 409).',
};

const requests: Record<string, Schema> = {
  IssueCreate: {
    type: 'object',
    additionalProperties: false,
    required: ['project_id', 'title'],
    properties: {
      project_id: uuid('A project of the organization (else 404).'),
      title: issueTitle,
      status: { ...ref('IssueStatus'), default: DEFAULT_STATUS },
      priority: { ...ref('IssuePriority'), default: DEFAULT_PRIORITY },
      description: issueDescription,
      assignee_id: { type: ['string', 'null'], format: 'uuid', description: 'A member of the organization; null: unassigned.' },
    },
  },
  IssuePatch: {
    type: 'object',
    description: 'JSON merge patch: a field left out stays as it is; `null` clears `description` or `assignee_id` (and is a 400 for the others).',
    additionalProperties: false,
    properties: {
      title: issueTitle,
      status: ref('IssueStatus'),
      priority: ref('IssuePriority'),
      description: issueDescription,
      assignee_id: { type: ['string', 'null'], format: 'uuid', description: 'A member of the organization; null: unassigned.' },
    },
  },
  ProjectCreate: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'key'],
    properties: { name: projectName, key: projectKey },
  },
  ProjectUpdate: {
    type: 'object',
    description: 'The fields sent change, the others stay. A new key renames every issue key of the project (`WEB-12` becomes `SITE-12`).',
    additionalProperties: false,
    properties: { name: projectName, key: projectKey },
  },
  ApiKeyCreate: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'What the key is for, e.g. "CI deploys". 1 to 100 characters.' },
      expires_at: { type: ['string', 'null'], format: 'date-time', description: 'Optional, in the future; null or absent: never expires.' },
    },
  },
  OrgCreate: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'slug'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 100 },
      slug: {
        type: 'string',
        pattern: ORG_SLUG_PATTERN,
        description: '1 to 40 letters, digits or dashes, not starting or ending with a dash; stored in lowercase. Unique (else 409).',
      },
      is_public: { type: 'boolean', default: false, description: 'List it in the public directory.' },
    },
  },
  OrgJoin: {
    type: 'object',
    additionalProperties: false,
    required: ['invite_code'],
    properties: { invite_code: { type: 'string', description: 'The code from `POST /invitations`.' } },
  },
  InvitationCreate: {
    type: 'object',
    additionalProperties: false,
    required: ['role'],
    properties: {
      role: { ...ref('Role'), description: 'The role the invited person gets: no higher than your own (else 403).' },
      expires_in_days: { type: 'integer', minimum: 1, maximum: 30, default: 7 },
    },
  },
};

// ---- Problems (RFC 9457). One schema per status, each listing the codes that status carries. ----

/** Every stable `code`, by HTTP status. README "Errors" lists the same. */
export const PROBLEM_CODES = {
  400: ['validation_failed', 'malformed_json', 'bad_user_input', 'conflicting_credentials'],
  401: ['unauthenticated', 'token_malformed', 'token_invalid', 'token_revoked', 'token_expired', 'token_in_url'],
  403: ['forbidden', 'insufficient_scope', 'org_mismatch', 'org_forbidden', 'csrf_rejected'],
  404: ['not_found'],
  405: ['method_not_allowed'],
  409: ['conflict', 'key_limit_reached'],
  413: ['payload_too_large'],
  415: ['unsupported_media_type'],
  429: ['rate_limited'],
  500: ['internal'],
} as const;

export type ProblemStatus = keyof typeof PROBLEM_CODES;
export const PROBLEM_STATUSES = Object.keys(PROBLEM_CODES).map(Number) as ProblemStatus[];

export const PROBLEM_SCHEMA_NAMES: Record<ProblemStatus, string> = {
  400: 'BadRequestProblem',
  401: 'UnauthorizedProblem',
  403: 'ForbiddenProblem',
  404: 'NotFoundProblem',
  405: 'MethodNotAllowedProblem',
  409: 'ConflictProblem',
  413: 'PayloadTooLargeProblem',
  415: 'UnsupportedMediaTypeProblem',
  429: 'TooManyRequestsProblem',
  500: 'InternalProblem',
};

/** The problem body `HttpProblem.toResponse()` writes: `codes` are those this schema admits. */
function problemSchema(status: ProblemStatus, codes: readonly string[], description: string, errors?: Schema): Schema {
  const properties: Record<string, Schema> = {
    type: {
      type: 'string',
      format: 'uri',
      pattern: `^urn:workmgmt:problem:(${codes.join('|')})$`,
      description: '`urn:workmgmt:problem:<code>`.',
    },
    title: { const: STATUS_CODES[status], description: 'The HTTP reason phrase.' },
    status: { const: status },
    detail: { type: 'string', description: 'For people: what went wrong and what to do.' },
    code: codes.length === 1 ? { const: codes[0], description: 'Stable, for programs.' } : { type: 'string', enum: codes, description: 'Stable, for programs.' },
    request_id: { type: 'string', maxLength: 128, description: "The request's `X-Request-Id` (the client's, or one the service made): quote it to an operator." },
    ...(errors ? { errors } : {}),
  };
  return { type: 'object', description, additionalProperties: false, required: Object.keys(properties), properties };
}

const [VALIDATION_FAILED, ...OTHER_400_CODES] = PROBLEM_CODES[400];

const problemSchemas: Record<string, Schema> = {
  FieldError: exact('One bad input: the field as the client named it (`title`, `project_id`, `limit`) and why.', {
    field: { type: 'string' },
    message: { type: 'string' },
  }),
  // 400 is the one status with two shapes: validation_failed lists the fields at fault, always; the others have no `errors`.
  BadRequestProblem: {
    description: 'An RFC 9457 problem with status 400.',
    oneOf: [ref('ValidationProblem'), ref('MalformedRequestProblem')],
  },
  ValidationProblem: problemSchema(400, [VALIDATION_FAILED], 'Bad input: every bad field or parameter is in `errors`.', {
    type: 'array',
    minItems: 1,
    items: ref('FieldError'),
  }),
  MalformedRequestProblem: problemSchema(400, OTHER_400_CODES, 'A request that could not be read: not JSON, an undecodable value, conflicting credentials.'),
  ...Object.fromEntries(
    PROBLEM_STATUSES.filter((status) => status !== 400).map((status) => [
      PROBLEM_SCHEMA_NAMES[status],
      problemSchema(status, PROBLEM_CODES[status], `An RFC 9457 problem with status ${status}.`),
    ]),
  ),
};

// ---- GraphQL, loosely: the request and the result as GraphQL over HTTP defines them. ----

const graphql: Record<string, Schema> = {
  GraphQLRequest: {
    type: 'object',
    required: ['query'],
    properties: {
      query: { type: 'string', description: 'A GraphQL document (see `schema.graphql`).' },
      operationName: { type: ['string', 'null'] },
      variables: { type: ['object', 'null'] },
      extensions: { type: ['object', 'null'] },
    },
  },
  GraphQLResponse: {
    type: 'object',
    description: 'A GraphQL result. Typed mutation errors are members of the result unions; others are in `errors` with `extensions.code`.',
    minProperties: 1,
    properties: {
      data: { type: ['object', 'null'] },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['message'],
          properties: {
            message: { type: 'string' },
            locations: { type: 'array', items: { type: 'object' } },
            path: { type: 'array', items: { type: ['string', 'integer'] } },
            extensions: { type: 'object' },
          },
        },
      },
      extensions: { type: 'object' },
    },
  },
  OpenApiDocument: {
    type: 'object',
    description: 'This document (OpenAPI 3.1).',
    required: ['openapi', 'info', 'paths'],
    properties: { openapi: { type: 'string', pattern: '^3\\.1\\.\\d+$' }, info: { type: 'object' }, paths: { type: 'object' } },
  },
};

export const schemas: Record<string, Schema> = { ...enums, ...resources, ...requests, ...problemSchemas, ...graphql };
