import { GLOBAL_POLICY, ROUTE_POLICIES, type Policy } from '../../limits/policy.js';
import { MAX_ACTIVE_KEYS } from '../../schema/api-key.js';
import { ISSUE_SORT_FIELDS } from '../../schema/issue-order.js';
import { SEARCH_TEXT_MAX } from '../../schema/search-text.js';
import { anyCredential, notApiKey, paramRef, problem, problemResponse, responseRef, withRateLimitHeaders } from './components.js';
import { EX, EXAMPLES, graphqlEnum, ref } from './schemas.js';
import type { Example, Operation, Parameter, PathItem, Reference, RequestBody, Response, Schema, SecurityRequirement } from './types.js';

const JSON_TYPE = 'application/json';

type Examples = Record<string, Example>;

/** A JSON success response with the rate-limit headers (and any others). */
function ok(description: string, schema: Schema, examples: Examples, extraHeaders: string[] = []): Response {
  return { description, headers: withRateLimitHeaders(extraHeaders), content: { [JSON_TYPE]: { schema, examples } } };
}

function noContent(description: string): Response {
  return { description, headers: withRateLimitHeaders() };
}

function jsonBody(schema: Schema, examples: Examples, mediaTypes: string[] = [JSON_TYPE]): RequestBody {
  return { required: true, content: Object.fromEntries(mediaTypes.map((type) => [type, { schema, examples }])) };
}

const arrayOf = (name: string, description: string): Schema => ({ type: 'array', items: ref(name), description });

/** The extra bucket an operation draws from, on top of the global one. */
function policies(...route: Policy[]) {
  return [GLOBAL_POLICY, ...route].map((p) => ({ name: p.name, limit: p.limit, window_seconds: p.windowMs / 1000 }));
}

interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  security: SecurityRequirement[];
  parameters?: (Parameter | Reference)[];
  requestBody?: RequestBody;
  success: Record<string, Response>;
  /** Error responses beyond those every operation can give (400, 401, 403, 429, 500). */
  errors?: Record<string, Response | Reference>;
  rateLimit?: Policy;
}

/** An operation with the responses every request can get, whatever the route. */
function operation(spec: OperationSpec): Operation {
  const body: Record<string, Reference> = spec.requestBody ? { '413': responseRef('PayloadTooLarge'), '415': responseRef('UnsupportedMediaType') } : {};
  const responses: Record<string, Response | Reference> = {
    ...spec.success,
    '400': responseRef('BadRequest'),
    '401': responseRef('Unauthorized'),
    '403': responseRef('Forbidden'),
    ...spec.errors,
    ...body,
    '429': responseRef('TooManyRequests'),
    '500': responseRef('InternalError'),
  };
  const sorted = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security: spec.security,
    parameters: [...(spec.parameters ?? []), paramRef('XOrgId')],
    ...(spec.requestBody ? { requestBody: spec.requestBody } : {}),
    responses: sorted,
    'x-rate-limit-policies': policies(...(spec.rateLimit ? [spec.rateLimit] : [])),
  };
}

function conflict(description: string, examples: Examples): Response {
  return problemResponse(409, description, examples);
}

function validation(field: string, message: string): Example {
  return { summary: `Bad ${field}`, value: problem(400, `${field}: ${message}`, 'validation_failed', [{ field, message }]) };
}

const notFound = responseRef('NotFound');

// ---- Issues list parameters ----

const lower = (values: readonly string[]) => values.map((v) => v.toLowerCase());

function listParameters(): Parameter[] {
  const bound = (name: string, what: string): Parameter => ({
    name,
    in: 'query',
    description: `${what}, strictly. ISO 8601: a date (\`2026-01-31\`, midnight UTC) or a date-time with a zone (\`2026-01-31T12:00:00Z\`, \`...+02:00\`).`,
    schema: { type: 'string', anyOf: [{ format: 'date' }, { format: 'date-time' }] },
  });
  const anyOf = (name: string, enumName: string, what: string): Parameter => ({
    name,
    in: 'query',
    description: `Any of these ${what}: repeat the parameter or separate values with commas (\`${name}=a,b\`).`,
    style: 'form',
    explode: true,
    schema: { type: 'array', items: ref(enumName), minItems: 1 },
  });
  return [
    { name: 'project_id', in: 'query', description: 'Issues of this project (another organization\'s project: 404).', schema: { type: 'string', format: 'uuid' } },
    anyOf('status', 'IssueStatus', 'statuses'),
    anyOf('priority', 'IssuePriority', 'priorities'),
    {
      name: 'assignee_id',
      in: 'query',
      description: 'Assigned to this user id, or `none` for unassigned issues.',
      schema: { type: 'string', anyOf: [{ format: 'uuid' }, { const: 'none' }] },
    },
    {
      name: 'q',
      in: 'query',
      description: `Case-insensitive substring of the title or the description, 1 to ${SEARCH_TEXT_MAX} characters (\`%\` and \`_\` are plain characters).`,
      schema: { type: 'string', minLength: 1, maxLength: SEARCH_TEXT_MAX },
    },
    bound('created_after', 'Created after'),
    bound('created_before', 'Created before'),
    bound('updated_after', 'Last changed after'),
    bound('updated_before', 'Last changed before'),
    {
      name: 'sort',
      in: 'query',
      description:
        '`priority` sorts by urgency and `status` by workflow (newest first among equals); `title` in the database collation. Every order ends with the issue id.',
      schema: { type: 'string', enum: lower(ISSUE_SORT_FIELDS), default: 'created_at' },
    },
    {
      name: 'direction',
      in: 'query',
      description: 'Default `desc` for `created_at` and `updated_at` (newest first), `asc` for the others.',
      schema: { type: 'string', enum: lower(graphqlEnum('SortDirection')) },
    },
    { name: 'limit', in: 'query', description: 'Page size.', schema: { type: 'integer', minimum: 1, maximum: 100, default: 50 } },
    {
      name: 'cursor',
      in: 'query',
      description: 'Where to continue: take it from the `Link` header. It only fits the sort and direction that made it (else 400 on `cursor`).',
      schema: { type: 'string' },
    },
  ];
}

// ---- Paths ----

export function paths(): Record<string, PathItem> {
  const issue = EXAMPLES.issue;
  const project = EXAMPLES.project;
  const membership = { ...EXAMPLES.organization, role: 'owner', employee_id: EX.membershipId };

  return {
    '/me': {
      get: operation({
        operationId: 'getMe',
        summary: 'The signed-in user',
        tag: 'Me',
        security: anyCredential('read'),
        success: { '200': ok('The user.', ref('User'), { olivia: { value: EXAMPLES.user } }) },
      }),
    },
    '/me/orgs': {
      get: operation({
        operationId: 'listMyOrgs',
        summary: "The caller's organizations with their projects",
        description: 'An API key or OAuth token sees only its own organization.',
        tag: 'Me',
        security: anyCredential('read'),
        success: {
          '200': ok('The memberships.', ref('MyOrgList'), {
            one: {
              value: {
                orgs: [
                  {
                    employee_id: EX.membershipId,
                    org_id: EX.orgId,
                    org_name: 'Acme Corp',
                    org_slug: 'acme',
                    role: 'owner',
                    projects: [{ id: EX.projectId, name: 'Website', key: 'WEB' }],
                  },
                ],
                count: 1,
              },
            },
          }),
        },
      }),
    },
    '/projects': {
      get: operation({
        operationId: 'listProjects',
        summary: "The organization's projects, by key",
        description: 'A bare array, not paged. Any role.',
        tag: 'Projects',
        security: anyCredential('read'),
        success: { '200': ok('The projects.', arrayOf('Project', 'By key.'), { projects: { value: [project] } }) },
      }),
      post: operation({
        operationId: 'createProject',
        summary: 'Create a project',
        description: 'Manager or above.',
        tag: 'Projects',
        security: anyCredential('write'),
        requestBody: jsonBody(ref('ProjectCreate'), { website: { value: { name: 'Website', key: 'web' } } }),
        success: {
          '201': ok('Created.', ref('Project'), { created: { value: { ...project, issue_count: 0, updated_at: EX.created } } }, ['Location']),
        },
        errors: {
          '409': conflict('The key is in use in this organization (even by a concurrent request).', {
            conflict: { value: problem(409, 'Another project in this organization already has the key WEB.', 'conflict') },
          }),
        },
        rateLimit: ROUTE_POLICIES.projectWrite,
      }),
    },
    '/projects/{id}': {
      parameters: [paramRef('ProjectId')],
      get: operation({
        operationId: 'getProject',
        summary: 'One project',
        description: 'Any role.',
        tag: 'Projects',
        security: anyCredential('read'),
        success: { '200': ok('The project.', ref('Project'), { project: { value: project } }) },
        errors: { '404': notFound },
      }),
      put: operation({
        operationId: 'updateProject',
        summary: 'Change a project',
        description: 'The fields sent change, the others stay. Manager or above.',
        tag: 'Projects',
        security: anyCredential('write'),
        requestBody: jsonBody(ref('ProjectUpdate'), { rename: { value: { name: 'Public website', key: 'SITE' } } }),
        success: { '200': ok('The project, changed.', ref('Project'), { renamed: { value: { ...project, name: 'Public website', key: 'SITE' } } }) },
        errors: {
          '404': notFound,
          '409': conflict('The new key is in use in this organization.', {
            conflict: { value: problem(409, 'Another project in this organization already has the key MOB.', 'conflict') },
          }),
        },
        rateLimit: ROUTE_POLICIES.projectWrite,
      }),
      delete: operation({
        operationId: 'deleteProject',
        summary: 'Delete a project',
        description: 'Manager or above. A project that still has issues is refused unless `force=true`, which deletes it and all its issues in one transaction.',
        tag: 'Projects',
        security: anyCredential('write'),
        parameters: [
          {
            name: 'force',
            in: 'query',
            description: 'Also delete its issues.',
            schema: { type: 'boolean', default: false },
          },
        ],
        success: { '204': noContent('Deleted.') },
        errors: {
          '404': notFound,
          '409': conflict('The project still has issues (send `force=true`).', {
            conflict: { value: problem(409, 'The project has 12 issues. Delete them first, or delete with force to remove them with the project.', 'conflict') },
          }),
        },
        rateLimit: ROUTE_POLICIES.projectWrite,
      }),
    },
    '/issues': {
      get: operation({
        operationId: 'listIssues',
        summary: 'List issues: filters, sorting, keyset paging',
        description:
          'A bare array, one page. Filters combine with AND. When there is a next page, `Link: <...>; rel="next"` carries its URL; following the links visits every ' +
          'matching issue exactly once, even while issues change. A bad value is a 400 listing every bad parameter. Any role.',
        tag: 'Issues',
        security: anyCredential('read'),
        parameters: listParameters(),
        success: {
          '200': ok('The page of issues.', arrayOf('Issue', 'In the requested order.'), { page: { value: [issue] } }, ['Link']),
        },
        errors: {
          '400': problemResponse(400, 'Bad parameters: every one is listed in `errors`.', {
            validation_failed: {
              value: problem(400, 'status: must each be one of: Backlog, Todo, In Progress, In Review, Done, Canceled; limit: must be between 1 and 100', 'validation_failed', [
                { field: 'status', message: 'must each be one of: Backlog, Todo, In Progress, In Review, Done, Canceled' },
                { field: 'limit', message: 'must be between 1 and 100' },
              ]),
            },
          }),
          '404': notFound,
        },
      }),
      post: operation({
        operationId: 'createIssue',
        summary: 'Create an issue',
        description: 'Member or above. The number is the next in the project (no gaps, no duplicates, even under concurrent creates).',
        tag: 'Issues',
        security: anyCredential('write'),
        requestBody: jsonBody(ref('IssueCreate'), {
          minimal: { value: { project_id: EX.projectId, title: 'Fix the login redirect loop' } },
          full: {
            value: {
              project_id: EX.projectId,
              title: 'Fix the login redirect loop',
              status: 'Todo',
              priority: 'urgent',
              description: 'Signing in from /settings sends the browser back and forth.',
              assignee_id: EX.userId,
            },
          },
        }),
        success: { '201': ok('Created.', ref('Issue'), { created: { value: issue } }, ['Location']) },
        errors: {
          '400': problemResponse(400, 'A bad or unknown field (each in `errors`), or a body that is not a JSON object.', {
            validation_failed: validation('title', 'is required'),
            unknown_field: validation('org_id', 'is not a known field'),
          }),
          '404': notFound,
        },
      }),
    },
    '/issues/{id}': {
      parameters: [paramRef('IssueId')],
      get: operation({
        operationId: 'getIssue',
        summary: 'One issue, by id or key',
        description: 'Any role.',
        tag: 'Issues',
        security: anyCredential('read'),
        success: { '200': ok('The issue.', ref('Issue'), { issue: { value: issue } }) },
        errors: { '404': notFound },
      }),
      patch: operation({
        operationId: 'updateIssue',
        summary: 'Change an issue (JSON merge patch)',
        description:
          'A field left out stays as it is; `null` clears `description` or `assignee_id` and is a 400 for the others. Values are checked as on create. Member or above.',
        tag: 'Issues',
        security: anyCredential('write'),
        requestBody: jsonBody(
          ref('IssuePatch'),
          { close: { value: { status: 'Done' } }, unassign: { value: { assignee_id: null, priority: 'low' } } },
          [JSON_TYPE, 'application/merge-patch+json'],
        ),
        success: { '200': ok('The issue, changed.', ref('Issue'), { closed: { value: { ...issue, status: 'Done' } } }) },
        errors: {
          '400': problemResponse(400, 'A bad or unknown field (each in `errors`), or a body that is not a JSON object.', {
            validation_failed: validation('title', 'must be a string'),
          }),
          '404': notFound,
        },
      }),
      delete: operation({
        operationId: 'deleteIssue',
        summary: 'Delete an issue',
        description: 'Manager or above (members cancel issues instead: status `Canceled`). Issue numbers are never reused.',
        tag: 'Issues',
        security: anyCredential('write'),
        success: { '204': noContent('Deleted.') },
        errors: { '404': notFound },
      }),
    },
    '/api-keys': {
      get: operation({
        operationId: 'listApiKeys',
        summary: "The caller's API keys, newest first",
        description: 'With `all=true` (owners and admins), every key of the organization.',
        tag: 'API keys',
        security: anyCredential('read'),
        parameters: [{ name: 'all', in: 'query', description: "Every member's keys (owners and admins; else 403).", schema: { type: 'boolean', default: false } }],
        success: { '200': ok('The keys.', arrayOf('ApiKey', 'Newest first.'), { keys: { value: [EXAMPLES.apiKey] } }) },
      }),
      post: operation({
        operationId: 'createApiKey',
        summary: 'Create an API key',
        description:
          `Owners, admins and managers, from a session or an OAuth token: an API key can neither create nor revoke keys (403). At most ${MAX_ACTIVE_KEYS} active keys ` +
          `per user per organization (409 \`key_limit_reached\`); ${ROUTE_POLICIES.apiKeyCreate.limit} creations per hour per user (429).`,
        tag: 'API keys',
        security: notApiKey('write'),
        requestBody: jsonBody(ref('ApiKeyCreate'), {
          ci: { value: { name: 'CI deploys' } },
          expiring: { value: { name: 'One-off export', expires_at: '2026-03-01T00:00:00Z' } },
        }),
        success: {
          '201': ok(
            'Created: the key record plus `token`, the only time it is ever returned.',
            ref('CreatedApiKey'),
            { created: { value: { ...EXAMPLES.apiKey, last_used_at: null, token: EX.token } } },
            ['Location'],
          ),
        },
        errors: {
          '409': conflict(`The user already has ${MAX_ACTIVE_KEYS} active keys in this organization.`, {
            key_limit_reached: {
              value: problem(409, `You already have ${MAX_ACTIVE_KEYS} active keys in this organization. Revoke one first.`, 'key_limit_reached'),
            },
          }),
        },
        rateLimit: ROUTE_POLICIES.apiKeyCreate,
      }),
    },
    '/api-keys/{id}': {
      parameters: [paramRef('ApiKeyId')],
      delete: operation({
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key',
        description:
          "Its next request gets 401 `token_revoked`. Idempotent. The key's owner may revoke it, and so may the organization's owners and admins; anyone else gets 404. Not from an API key (403).",
        tag: 'API keys',
        security: notApiKey('write'),
        success: { '204': noContent('Revoked (or already revoked).') },
        errors: { '404': notFound },
      }),
    },
    '/orgs': {
      get: operation({
        operationId: 'listOrgs',
        summary: "The caller's organizations",
        description: 'An API key or OAuth token sees only its own organization.',
        tag: 'Organizations',
        security: anyCredential('read'),
        success: { '200': ok('The organizations, with the caller\'s role in each.', ref('OrgMembershipList'), { one: { value: { orgs: [membership], count: 1 } } }) },
      }),
      post: operation({
        operationId: 'createOrg',
        summary: 'Create an organization',
        description: 'The caller becomes its owner. A cross-organization operation: 403 for API keys.',
        tag: 'Organizations',
        security: notApiKey('write'),
        requestBody: jsonBody(ref('OrgCreate'), { acme: { value: { name: 'Acme Corp', slug: 'acme', is_public: true } } }),
        success: { '201': ok("Created: the organization with the caller's owner membership.", ref('OrgMembership'), { created: { value: membership } }) },
        errors: {
          '409': conflict('The slug is taken.', { conflict: { value: problem(409, 'The slug "acme" is taken.', 'conflict') } }),
        },
      }),
    },
    '/orgs/search': {
      get: operation({
        operationId: 'searchOrgs',
        summary: 'Search the public directory',
        description: 'Organizations with `is_public`, by name or slug, at most 20. A cross-organization operation: 403 for API keys.',
        tag: 'Organizations',
        security: notApiKey('read'),
        parameters: [paramRef('SearchQuery')],
        success: { '200': ok('The matches, by name.', arrayOf('Organization', 'By name; at most 20.'), { acme: { value: [EXAMPLES.organization] } }) },
        rateLimit: ROUTE_POLICIES.search,
      }),
    },
    '/orgs/join': {
      post: operation({
        operationId: 'joinOrg',
        summary: 'Join an organization with an invite code',
        description: "Joins with the invitation's role. A cross-organization operation: 403 for API keys.",
        tag: 'Organizations',
        security: notApiKey('write'),
        requestBody: jsonBody(ref('OrgJoin'), { code: { value: { invite_code: EX.inviteCode } } }),
        success: { '201': ok('Joined: the new membership.', ref('OrgMembership'), { joined: { value: { ...membership, role: 'member' } } }) },
        errors: {
          '404': problemResponse(404, 'The code is unknown, used or expired.', {
            not_found: { value: problem(404, 'No invitation (the code is unknown, used or expired) with that id exists in this organization.', 'not_found') },
          }),
          '409': conflict('Already a member (the code stays usable).', {
            conflict: { value: problem(409, 'You are already a member of this organization.', 'conflict') },
          }),
        },
      }),
    },
    '/invitations': {
      post: operation({
        operationId: 'createInvitation',
        summary: 'Create an invite code',
        description: 'Owners and admins, for a role no higher than their own (else 403). Single use.',
        tag: 'Organizations',
        security: anyCredential('write'),
        requestBody: jsonBody(ref('InvitationCreate'), { member: { value: { role: 'member', expires_in_days: 7 } } }),
        success: {
          '201': ok('Created: the code, shown once.', ref('Invitation'), {
            created: { value: { id: EX.invitationId, role: 'member', expires_at: '2026-02-07T12:00:00.000Z', invite_code: EX.inviteCode } },
          }),
        },
      }),
    },
    '/people/search': {
      get: operation({
        operationId: 'searchPeople',
        summary: "Search the organization's members",
        description:
          'By name or username (and by email for managers and above). Email addresses are shown only to managers, admins and owners; for the others `email` is left out.',
        tag: 'Search',
        security: anyCredential('read'),
        parameters: [paramRef('SearchQuery')],
        success: {
          '200': ok('The matches, best first; at most 20.', arrayOf('Person', 'Best first.'), {
            manager: { summary: 'As a manager', value: [{ id: EX.userId, name: 'Olivia Owner', username: 'olivia', role: 'owner', email: 'olivia@example.com' }] },
            member: { summary: 'As a member', value: [{ id: EX.userId, name: 'Olivia Owner', username: 'olivia', role: 'owner' }] },
          }),
        },
        rateLimit: ROUTE_POLICIES.search,
      }),
    },
    '/palette/search': {
      get: operation({
        operationId: 'paletteSearch',
        summary: 'Command-palette search across projects, issues and people',
        description:
          'Projects by key or name, issues by key (`WEB-12`) or title, people by name or username. An exact key first, then other exact matches, then prefixes, ' +
          'then substrings; within a rank projects before issues before people. At most 20.',
        tag: 'Search',
        security: anyCredential('read'),
        parameters: [paramRef('SearchQuery')],
        success: {
          '200': ok('The hits, best first.', arrayOf('PaletteHit', 'Best first; at most 20.'), {
            web: {
              value: [
                { type: 'project', id: EX.projectId, title: 'Website', key: 'WEB' },
                { type: 'issue', id: EX.issueId, title: 'Fix the login redirect loop', key: 'WEB-12', project_id: EX.projectId },
                { type: 'person', id: EX.otherUserId, title: 'Webster Jones', username: 'webster' },
              ],
            },
          }),
        },
        rateLimit: ROUTE_POLICIES.search,
      }),
    },
    '/graphql': {
      post: {
        operationId: 'graphql',
        summary: 'GraphQL',
        description:
          'GraphQL over HTTP with the same credentials and rules as REST (every REST route runs one of its operations). The schema is `schema.graphql`; ' +
          'GraphiQL answers a browser here when not in production. Answered as `application/graphql-response+json` when the client accepts it, else `application/json`.',
        tags: ['GraphQL'],
        security: anyCredential('read'),
        parameters: [paramRef('XOrgId')],
        requestBody: {
          required: true,
          content: {
            [JSON_TYPE]: { schema: ref('GraphQLRequest'), examples: { me: { value: { query: '{ me { id username } }' } } } },
          },
        },
        responses: {
          '200': {
            description: 'A GraphQL result (which may hold `errors`).',
            headers: withRateLimitHeaders(),
            content: {
              [JSON_TYPE]: { schema: ref('GraphQLResponse'), examples: { me: { value: { data: { me: { id: EX.userId, username: 'olivia' } } } } } },
              'application/graphql-response+json': { schema: ref('GraphQLResponse') },
            },
          },
          '400': {
            description: 'A request GraphQL refused before running it (unparsable, invalid, over a query limit).',
            headers: withRateLimitHeaders(),
            content: {
              [JSON_TYPE]: { schema: ref('GraphQLResponse') },
              'application/graphql-response+json': {
                schema: ref('GraphQLResponse'),
                examples: { syntax: { value: { errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 3 }] }] } } },
              },
            },
          },
          '401': responseRef('Unauthorized'),
          '403': {
            description: 'As for REST (a problem); or, for a mutation with a read-only OAuth token, a GraphQL result with `extensions.code = "INSUFFICIENT_SCOPE"`.',
            headers: withRateLimitHeaders(),
            content: {
              'application/problem+json': { schema: ref('ForbiddenProblem') },
              [JSON_TYPE]: { schema: ref('GraphQLResponse') },
              'application/graphql-response+json': { schema: ref('GraphQLResponse') },
            },
          },
          '413': responseRef('PayloadTooLarge'),
          '415': responseRef('UnsupportedMediaType'),
          '429': responseRef('TooManyRequests'),
          '500': responseRef('InternalError'),
        },
        'x-rate-limit-policies': policies(),
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'getOpenApiDocument',
        summary: 'This document',
        description: 'Public: no credential needed (one that is sent is ignored). Cacheable; supports `If-None-Match`.',
        tags: ['Meta'],
        security: [],
        parameters: [{ name: 'If-None-Match', in: 'header', description: 'The `ETag` of a copy you hold.', schema: { type: 'string' } }],
        responses: {
          '200': {
            description: 'The OpenAPI 3.1 document of this API.',
            headers: withRateLimitHeaders(['Cache-Control', 'ETag', 'Access-Control-Allow-Origin']),
            content: { [JSON_TYPE]: { schema: ref('OpenApiDocument') } },
          },
          '304': { description: 'Your copy is current.', headers: withRateLimitHeaders(['Cache-Control', 'ETag', 'Access-Control-Allow-Origin']) },
          '429': responseRef('TooManyRequests'),
        },
        'x-rate-limit-policies': policies(),
      },
    },
  };
}
