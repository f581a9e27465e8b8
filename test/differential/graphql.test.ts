import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CALLERS, describeCorpus, send, type Caller, type Recorded, type World } from './record.js';

/**
 * The GraphQL corpus: every root field with the nested selections dashboards use, connections
 * followed by their cursors, filters, aggregates, every mutation with its success and each
 * member of its error union, and the protocol's refusals (syntax, validation, depth, aliases,
 * cost, methods, media types, persisted documents), as every caller kind.
 */

/** A registered (trusted) document, sent by its hash. */
const PERSISTED = '{ me { username } issueStatuses }';
const persistedHash = createHash('sha256').update(PERSISTED).digest('hex');
const documentsFile = join(mkdtempSync(join(tmpdir(), 'corpus-graphql-')), 'documents.json');
writeFileSync(documentsFile, JSON.stringify({ [persistedHash]: PERSISTED }));

const ISSUE =
  'id key number title status priority description assigneeId assignee { username } projectId project { key } createdAt updatedAt';
const PAGE =
  'totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor } edges { cursor node { key title status priority } }';
const ERROR = '__typename ... on Error { code message }';
const VALIDATION = '... on ValidationError { fieldErrors { field message } }';
const NOT_FOUND = '... on NotFoundError { resource }';
const CONFLICT = '... on ConflictError { limit }';
const RATE_LIMITED = '... on RateLimitedError { retryAfter }';
const WEBHOOK = 'id url events description enabled rotating disabledReason failingSince createdAt';
const DELIVERY =
  'id messageId eventType state attempts responseStatus responseBody durationMs error nextAttemptAt deliveredAt createdAt';

/** A mutation field answering a union: its success's `data` selection and the error members it may hold. */
const result = (field: string, success: string, data: string, ...errors: string[]) =>
  `${field} { ${ERROR} ... on ${success} { data ${data ? `{ ${data} }` : ''} } ${errors.join(' ')} }`;

interface Step {
  caller: Caller;
  /** A GraphQL request body, or for GET the query string. */
  body?: unknown;
  get?: string;
  headers?: Record<string, string>;
  method?: string;
}

const READS = [
  '{ me { id email name username locale } }',
  '{ memberships { id role organization { id name slug isPublic projects { id key name issueCount } } } }',
  '{ projects { id key name issueCount createdAt updatedAt organization { slug } } }',
  `{ issues(first: 3) { ${PAGE} } }`,
  `{ issue(id: "WEB-1") { ${ISSUE} history(first: 5) { pageInfo { hasNextPage } edges { node { type via viaId actorId changes { field old new } } } } } }`,
  '{ issue(id: "RES-1") { key } }',
  `{ project(id: "WEB") { key name issueCount issues(first: 2) { ${PAGE} } } }`,
  '{ project(id: "RES") { key } }',
  // byProject waits for the writes below: the seeded projects hold as many issues each, an order the answer leaves open.
  '{ issueAggregates { total byStatus { status count } byPriority { priority count } createdPerWeek { weekStart count } completedPerWeek { count } } }',
  `{ webhooks { ${WEBHOOK} deliveries(first: 2) { eventType state attempts } } }`,
  '{ apiKeys { id name hint status ownerId expiresAt revokedAt createdAt } }',
  '{ apiKeys(all: true) { name ownerId status } }',
  '{ searchPeople(q: "m") { id name username email role } }',
  '{ paletteSearch(q: "web") { type id key title projectId username } }',
  '{ searchOrganizations(q: "ac") { id name slug isPublic } }',
  '{ issueStatuses issuePriorities }',
];

function steps(ids: Record<string, string>): Step[] {
  const all: Step[] = [];
  const q = (caller: Caller, query: string, variables?: Record<string, unknown>, operationName?: string) =>
    all.push({
      caller,
      body: { query, ...(variables ? { variables } : {}), ...(operationName ? { operationName } : {}) },
    });
  for (const caller of CALLERS) for (const query of READS) q(caller, query);

  // Nodes by id: the caller's own, another organization's, and nonsense.
  const nodes = '{ __typename id ... on Issue { key title } ... on Project { key } ... on User { username } }';
  q('member', `query($id: ID!) { node(id: $id) ${nodes} }`, { id: ids.web1 });
  q('member', `query($id: ID!) { node(id: $id) ${nodes} }`, { id: ids.olivia });
  q('member', `query($id: ID!) { node(id: $id) ${nodes} }`, { id: ids.res });
  q('member', `query($id: ID!) { node(id: $id) ${nodes} }`, { id: 'nonsense' });
  q('member', `query($ids: [ID!]!) { nodes(ids: $ids) ${nodes} }`, {
    ids: [ids.web, ids.web1, ids.res, ids.bella, ids.olivia],
  });
  q('globex', `query($id: ID!) { node(id: $id) ${nodes} }`, { id: ids.web1 });

  // The issue list: filters, orders, and their mistakes.
  const list = `query($filter: IssueFilter, $orderBy: IssueOrder, $first: Int, $last: Int, $after: String, $before: String, $projectId: ID) {
    issues(filter: $filter, orderBy: $orderBy, first: $first, last: $last, after: $after, before: $before, projectId: $projectId) { ${PAGE} } }`;
  const lists: Record<string, unknown>[] = [
    { filter: { status: ['TODO', 'DONE'] } },
    { filter: { priority: ['HIGH', 'LOW'] }, orderBy: { field: 'PRIORITY' } },
    { filter: { assigneeId: ids.olivia } },
    { filter: { assigneeId: 'none' } },
    { filter: { q: 'login' } },
    { filter: { title: { contains: 'issue' } } },
    { filter: { title: { startsWith: 'Set' } } },
    { filter: { title: { equals: 'nope' } } },
    { filter: { number: { gte: 2, lt: 4 } } },
    { filter: { number: { in: [1, 3] } } },
    { filter: { createdAfter: '2026-01-01T00:03:00Z' } },
    { filter: { createdBefore: '2026-01-01', updatedAfter: '2025-12-01T00:00:00+02:00' } },
    { filter: { or: [{ status: ['TODO'] }, { priority: ['URGENT'] }] } },
    { filter: { and: [{ status: ['TODO', 'BACKLOG'] }, { not: { priority: ['NONE'] } }] } },
    { filter: { not: { or: [{ q: 'a' }, { number: { eq: 1 } }] } } },
    { orderBy: { field: 'TITLE', direction: 'ASC' } },
    { orderBy: { field: 'STATUS' } },
    { orderBy: { field: 'STATUS', direction: 'DESC' } },
    { orderBy: { field: 'UPDATED_AT', direction: 'ASC' }, first: 2 },
    { orderBy: { field: 'CREATED_AT' }, last: 2 },
    { projectId: ids.web, first: 100 },
    { projectId: 'MOB' },
    { projectId: ids.res },
    { first: 101 },
    { first: -1 },
    { first: 2, last: 2 },
    { after: 'garbage' },
    { filter: { status: ['NOPE'] } },
    { filter: { createdAfter: 'yesterday' } },
    { filter: { not: { not: { not: { not: { not: { q: 'x' } } } } } } },
    { filter: { or: Array.from({ length: 11 }, () => ({ q: 'x' })) } },
    { filter: { number: { in: Array.from({ length: 101 }, (_, n) => n) } } },
    { filter: { q: '' } },
  ];
  for (const variables of lists) q('member', list, variables);
  // Follow the pages forward and back: `<end>` and `<start>` are the previous answer's cursors.
  q('viewer', list, { projectId: ids.web, first: 2 });
  q('viewer', list, { projectId: ids.web, first: 2, after: '<end>' });
  q('viewer', list, { projectId: ids.web, first: 2, after: '<end>' });
  q('viewer', list, { projectId: ids.web, last: 2, before: '<start>' });
  q('viewer', list, { orderBy: { field: 'PRIORITY', direction: 'DESC' }, first: 3 });
  q('viewer', list, { orderBy: { field: 'PRIORITY', direction: 'DESC' }, first: 3, after: '<end>' });
  q(
    'viewer',
    `{ issue(id: "WEB-1") { history(first: 1) { pageInfo { hasNextPage endCursor } edges { cursor node { type } } } } }`,
  );

  // Issues: create, update, delete, with each error.
  const createIssue = `mutation($input: CreateIssueInput!) { ${result('createIssue(input: $input)', 'MutationCreateIssueSuccess', ISSUE, VALIDATION, NOT_FOUND)} }`;
  for (const caller of CALLERS)
    q(caller, createIssue, { input: { projectId: ids.web, title: `GraphQL issue by ${caller}`, priority: 'HIGH' } });
  q('member', createIssue, {
    input: {
      projectId: 'web',
      title: 'Full',
      status: 'IN_PROGRESS',
      priority: 'LOW',
      description: 'd',
      assigneeId: ids.olivia,
    },
  });
  q('member', createIssue, { input: { projectId: ids.web, title: '' } });
  q('member', createIssue, { input: { projectId: ids.web, title: 'x'.repeat(256) } });
  q('member', createIssue, { input: { projectId: ids.res, title: 'Other org' } });
  q('member', createIssue, { input: { projectId: 'NOPE', title: 'No project' } });
  q('member', createIssue, { input: { projectId: ids.web, title: 'Outsider', assigneeId: ids.bella } });
  q('member', createIssue, { input: { projectId: ids.web } });
  q('member', createIssue, { input: { projectId: ids.web, title: 'Bad', status: 'NOPE' } });
  q('member', createIssue, { input: { projectId: ids.web, title: 'Extra', colour: 'red' } });
  const updateIssue = `mutation($id: ID!, $input: UpdateIssueInput!) { ${result('updateIssue(id: $id, input: $input)', 'MutationUpdateIssueSuccess', ISSUE, VALIDATION, NOT_FOUND)} }`;
  for (const caller of CALLERS) q(caller, updateIssue, { id: 'WEB-1', input: { status: 'DONE' } });
  q('member', updateIssue, { id: 'WEB-2', input: { title: 'Renamed', description: null, assigneeId: null } });
  q('member', updateIssue, { id: 'WEB-2', input: { title: null } });
  q('member', updateIssue, { id: 'WEB-2', input: { title: '', priority: null } });
  q('member', updateIssue, { id: 'WEB-2', input: { assigneeId: ids.bella } });
  q('member', updateIssue, { id: 'RES-1', input: { title: 'Other org' } });
  q('member', updateIssue, { id: ids.web1, input: {} });
  const deleteIssue = `mutation($id: ID!) { ${result('deleteIssue(id: $id)', 'MutationDeleteIssueSuccess', '', NOT_FOUND)} }`;
  for (const caller of CALLERS) q(caller, deleteIssue, { id: 'WEB-4' });
  q('manager', deleteIssue, { id: 'WEB-4' });
  q('manager', deleteIssue, { id: 'RES-1' });
  q('manager', deleteIssue, { id: 'nonsense' });

  // Aggregates under a filter, of one project, and their mistakes (after the writes: no two projects hold as many issues).
  const aggregates = `query($filter: IssueFilter, $projectId: ID, $weeks: Int) {
    issueAggregates(filter: $filter, projectId: $projectId, weeks: $weeks) { total byStatus { status count } byPriority { priority count } byProject { project { key } count } createdPerWeek { count } completedPerWeek { count } } }`;
  for (const variables of [
    { filter: { priority: ['HIGH'] } },
    { projectId: ids.web, weeks: 2 },
    { weeks: 0 },
    { weeks: 105 },
    { projectId: ids.res },
    { filter: { priority: ['NOPE'] } },
  ]) {
    q('viewer', aggregates, variables);
  }

  // Projects.
  const PROJECT = 'id key name issueCount createdAt updatedAt organization { slug }';
  const createProject = `mutation($input: CreateProjectInput!) { ${result('createProject(input: $input)', 'MutationCreateProjectSuccess', PROJECT, VALIDATION, CONFLICT, RATE_LIMITED)} }`;
  for (const [n, caller] of CALLERS.entries())
    q(caller, createProject, { input: { name: `GraphQL ${caller}`, key: `G${n}X` } });
  q('manager', createProject, { input: { name: 'Dup', key: 'WEB' } });
  q('manager', createProject, { input: { name: 'Lower', key: 'low1' } });
  q('manager', createProject, { input: { name: '', key: '1A' } });
  q('manager', createProject, { input: { name: 'x'.repeat(101), key: 'TOOLONGKEY99' } });
  const updateProject = `mutation($id: ID!, $input: UpdateProjectInput!) { ${result('updateProject(id: $id, input: $input)', 'MutationUpdateProjectSuccess', PROJECT, VALIDATION, NOT_FOUND, CONFLICT, RATE_LIMITED)} }`;
  q('manager', updateProject, { id: ids.mob, input: { name: 'Mobile' } });
  q('manager', updateProject, { id: 'MOB', input: { key: 'APP' } });
  q('manager', updateProject, { id: 'APP', input: { key: 'WEB' } });
  q('manager', updateProject, { id: 'APP', input: { key: '!' } });
  q('manager', updateProject, { id: ids.res, input: { name: 'Theirs' } });
  q('member', updateProject, { id: 'APP', input: { name: 'Member' } });
  q('viewer', `{ issues(projectId: "APP", first: 1) { edges { node { key } } } }`);
  const deleteProject = `mutation($id: ID!, $force: Boolean) { ${result('deleteProject(id: $id, force: $force)', 'MutationDeleteProjectSuccess', '', NOT_FOUND, CONFLICT, RATE_LIMITED)} }`;
  q('member', deleteProject, { id: 'APP' });
  q('manager', deleteProject, { id: 'APP' });
  q('manager', deleteProject, { id: 'APP', force: true });
  q('manager', deleteProject, { id: 'APP' });
  q('manager', deleteProject, { id: ids.res });

  // API keys: created from a session or OAuth token, 10 an hour, revoked.
  const createApiKey = `mutation($input: CreateApiKeyInput!) { ${result('createApiKey(input: $input)', 'MutationCreateApiKeySuccess', 'token apiKey { id name hint status ownerId expiresAt }', VALIDATION, CONFLICT, RATE_LIMITED)} }`;
  for (const caller of CALLERS) q(caller, createApiKey, { input: { name: `graphql ${caller}` } });
  q('session', createApiKey, { input: { name: '' } });
  q('session', createApiKey, { input: { name: 'past', expiresAt: '2020-01-01T00:00:00Z' } });
  // The tenth creation of the hour and the eleventh, refused: without the message, whose seconds count down as the corpus runs.
  const burst =
    'mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { __typename ... on Error { code } ... on MutationCreateApiKeySuccess { data { apiKey { id name } } } } }';
  for (let n = 0; n < 9; n++) q('session', burst, { input: { name: `burst ${n}` } });
  const revokeApiKey = `mutation($id: ID!) { ${result('revokeApiKey(id: $id)', 'MutationRevokeApiKeySuccess', 'name status', NOT_FOUND)} }`;
  q('session', revokeApiKey, { id: '<new-key>' });
  q('session', revokeApiKey, { id: '<new-key>' });
  q('globex', revokeApiKey, { id: '<new-key>' });
  q('session', revokeApiKey, { id: 'not-a-uuid' });

  // Invitations and organizations.
  const createInvitation = `mutation($role: Role!, $email: String, $days: Int) { ${result('createInvitation(role: $role, email: $email, expiresInDays: $days)', 'MutationCreateInvitationSuccess', 'code url mailed invitation { id role email expiresAt }', VALIDATION, CONFLICT)} }`;
  for (const caller of CALLERS) q(caller, createInvitation, { role: 'member' });
  q('session', createInvitation, { role: 'owner', days: 3 });
  q('admin', createInvitation, { role: 'owner' });
  q('session', createInvitation, { role: 'viewer', days: 0, email: 'not an email' });
  q('session', createInvitation, { role: 'member', email: 'new.person@example.com', days: 30 });
  const joinOrganization = `mutation($code: String!) { ${result('joinOrganization(code: $code)', 'MutationJoinOrganizationSuccess', 'id role organization { slug }', NOT_FOUND, CONFLICT)} }`;
  q('globex', joinOrganization, { code: '<invite>' });
  q('session', joinOrganization, { code: '<invite>' });
  q('session', joinOrganization, { code: 'inv_nope' });
  const createOrganization = `mutation($input: CreateOrganizationInput!) { ${result('createOrganization(input: $input)', 'MutationCreateOrganizationSuccess', 'id role organization { name slug isPublic }', VALIDATION, CONFLICT)} }`;
  for (const caller of CALLERS)
    q(caller, createOrganization, { input: { name: `GraphQL ${caller}`, slug: `graphql-${caller.toLowerCase()}` } });
  q('session', createOrganization, { input: { name: 'Dup', slug: 'acme' } });
  q('session', createOrganization, { input: { name: '', slug: '-bad-' } });
  q('session', createOrganization, { input: { name: 'Listed', slug: 'listed-co', isPublic: true } });
  q('session', '{ searchOrganizations(q: "listed") { name slug } memberships { role organization { slug } } }');

  // Webhooks: owners and admins.
  const createWebhook = `mutation($input: CreateWebhookInput!) { ${result('createWebhook(input: $input)', 'MutationCreateWebhookSuccess', `secret webhook { ${WEBHOOK} }`, VALIDATION, CONFLICT)} }`;
  for (const caller of ['globex', 'member', 'oauthRead', 'admin'] as Caller[]) {
    q(caller, createWebhook, {
      input: {
        url: `http://127.0.0.1:9/graphql/${caller}`,
        events: ['issue.created', 'project.deleted'],
        description: `graphql ${caller}`,
      },
    });
  }
  q('admin', createWebhook, { input: { url: 'ftp://x', events: ['issue.moved'] } });
  q('admin', createWebhook, { input: { url: 'http://127.0.0.1:9/x', events: [], description: 'd'.repeat(501) } });
  const updateWebhook = `mutation($id: ID!, $input: UpdateWebhookInput!) { ${result('updateWebhook(id: $id, input: $input)', 'MutationUpdateWebhookSuccess', `secret webhook { ${WEBHOOK} }`, VALIDATION, NOT_FOUND)} }`;
  q('admin', updateWebhook, { id: '<webhook-admin>', input: { events: ['*'], description: 'graphql everything' } });
  q('admin', updateWebhook, { id: '<webhook-admin>', input: { rotateSecret: true } });
  q('admin', updateWebhook, { id: '<webhook-admin>', input: { enabled: false } });
  q('admin', updateWebhook, { id: '<webhook-admin>', input: { url: 'gopher://x' } });
  q('globex', updateWebhook, { id: '<webhook-admin>', input: { enabled: true } });
  q(
    'admin',
    `query($id: ID!) { ${result('webhook(id: $id)', 'QueryWebhookSuccess', `${WEBHOOK} deliveries { eventType state }`, NOT_FOUND)} }`,
    { id: '<webhook-admin>' },
  );
  q('globex', `query($id: ID!) { ${result('webhook(id: $id)', 'QueryWebhookSuccess', 'id', NOT_FOUND)} }`, {
    id: '<webhook-admin>',
  });
  const pingWebhook = `mutation($id: ID!) { ${result('pingWebhook(id: $id)', 'MutationPingWebhookSuccess', DELIVERY, NOT_FOUND)} }`;
  q('admin', pingWebhook, { id: '<webhook-admin>' });
  q('member', pingWebhook, { id: '<webhook-admin>' });
  q('admin', pingWebhook, { id: ids.web });
  const redeliver = `mutation($webhookId: ID!, $deliveryId: ID!) { ${result('redeliverWebhookDelivery(webhookId: $webhookId, deliveryId: $deliveryId)', 'MutationRedeliverWebhookDeliverySuccess', DELIVERY, NOT_FOUND)} }`;
  q('admin', redeliver, { webhookId: '<webhook-admin>', deliveryId: '<delivery>' });
  q('admin', redeliver, { webhookId: '<webhook-admin>', deliveryId: ids.web });
  const deleteWebhook = `mutation($id: ID!) { ${result('deleteWebhook(id: $id)', 'MutationDeleteWebhookSuccess', '', NOT_FOUND)} }`;
  q('globex', deleteWebhook, { id: '<webhook-admin>' });
  q('globex', deleteWebhook, { id: '<webhook-globex>' });
  q('globex', deleteWebhook, { id: '<webhook-globex>' });
  q('owner', `{ webhooks { description events enabled } }`);

  // Comments: written by role, read through Issue.comments (oldest first), edited and deleted
  // by their author or an admin; `<comment>` names the last one created.
  const FORBIDDEN = '... on ForbiddenError { code }';
  const COMMENT = 'id issueId authorId body author { username }';
  const createComment = `mutation($issueId: ID!, $input: CreateCommentInput!) { ${result('createComment(issueId: $issueId, input: $input)', 'MutationCreateCommentSuccess', COMMENT, VALIDATION, NOT_FOUND)} }`;
  for (const caller of CALLERS) q(caller, createComment, { issueId: 'WEB-2', input: { body: `GraphQL ${caller}` } });
  q('member', createComment, { issueId: 'WEB-2', input: { body: '  ' } });
  q('member', createComment, { issueId: 'RES-1', input: { body: 'Other org' } });
  q('member', createComment, { issueId: 'WEB-2', input: { body: 'Mine' } });
  q(
    'viewer',
    `{ issue(id: "WEB-2") { comments(first: 2) { edges { node { body author { name } } } pageInfo { hasNextPage } } } }`,
  );
  q('globex', `{ issue(id: "WEB-2") { comments { edges { node { body } } } } }`);
  const updateComment = `mutation($id: ID!, $input: UpdateCommentInput!) { ${result('updateComment(id: $id, input: $input)', 'MutationUpdateCommentSuccess', COMMENT, VALIDATION, NOT_FOUND, FORBIDDEN)} }`;
  q('manager', updateComment, { id: '<comment>', input: { body: 'Not yours' } });
  q('member', updateComment, { id: '<comment>', input: { body: 'Changed' } });
  q('admin', updateComment, { id: '<comment>', input: { body: 'Moderated' } });
  q('globex', updateComment, { id: '<comment>', input: { body: 'Theirs' } });
  const deleteComment = `mutation($id: ID!) { ${result('deleteComment(id: $id)', 'MutationDeleteCommentSuccess', '', NOT_FOUND, FORBIDDEN)} }`;
  q('viewer', deleteComment, { id: '<comment>' });
  q('member', deleteComment, { id: '<comment>' });
  q('member', deleteComment, { id: '<comment>' });

  // The protocol: documents that do not parse or validate, limits, operations, variables.
  q('member', '{ me { id }');
  q('member', '{ nope }');
  q('member', '{ me { id nope } }');
  q('member', 'query($id: ID!) { issue(id: $id) { key } }');
  q('member', 'query($id: ID!) { issue(id: $id) { key } }', { id: 7 });
  q('member', 'query($f: IssueFilter) { issues(filter: $f) { totalCount } }', { f: { status: 'TODO', colour: 1 } });
  q('member', 'query A { me { id } } query B { issueStatuses }');
  q('member', 'query A { me { id } } query B { issueStatuses }', undefined, 'B');
  q('member', 'query A { me { id } }', undefined, 'C');
  q(
    'member',
    `{ memberships { organization { projects { issues { edges { node { project { issues { edges { node { project { key } } } } } } } } } } } }`,
  );
  q('member', `{ ${Array.from({ length: 16 }, (_, n) => `a${n}: issueStatuses`).join(' ')} }`);
  q('member', `{ issueStatuses ${Array.from({ length: 1000 }, () => '__typename').join(' ')} }`);
  q(
    'member',
    '{ issues(first: 100) { edges { node { project { issues(first: 100) { edges { node { description } } } } } } } }',
  );
  q('member', '{ me @skip(if: false) @include(if: true) { id } }');
  q('member', '{ __schema { queryType { name } mutationType { name } subscriptionType { name } } }');
  q('member', '{ __type(name: "IssueStatus") { kind enumValues { name } } }');
  q('member', 'mutation { createIssue }');
  all.push({ caller: 'member', body: { query: PERSISTED } });
  all.push({ caller: 'member', body: { extensions: { persistedQuery: { version: 1, sha256Hash: persistedHash } } } });
  all.push({ caller: 'member', body: { extensions: { persistedQuery: { version: 1, sha256Hash: '0'.repeat(64) } } } });
  all.push({ caller: 'member', body: { variables: {} } });
  all.push({ caller: 'member', body: { query: 7 } });
  all.push({ caller: 'member', body: [{ query: '{ me { id } }' }, { query: '{ issueStatuses }' }] });
  all.push({ caller: 'member', body: '{"query": ' });
  all.push({
    caller: 'member',
    body: 'query=%7B%20me%20%7B%20id%20%7D%20%7D',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  all.push({ caller: 'member', body: '{ me { id } }', headers: { 'content-type': 'text/plain' } });
  all.push({ caller: 'member', body: { query: '{ me { id } }' }, headers: { accept: 'text/html' } });
  all.push({
    caller: 'member',
    body: { query: '{ me { id } }' },
    headers: { accept: 'application/graphql-response+json' },
  });
  all.push({ caller: 'member', get: 'query=%7B%20me%20%7B%20username%20%7D%20%7D' });
  all.push({
    caller: 'member',
    get: 'query=query(%24id%3A%20ID!)%20%7B%20issue(id%3A%20%24id)%20%7B%20key%20%7D%20%7D&variables=%7B%22id%22%3A%22WEB-2%22%7D',
  });
  all.push({
    caller: 'member',
    get: 'query=mutation%20%7B%20deleteIssue(id%3A%20%22WEB-1%22)%20%7B%20__typename%20%7D%20%7D',
  });
  all.push({ caller: 'anonymous', get: 'query=%7B%20me%20%7B%20id%20%7D%20%7D' });
  all.push({ caller: 'member', get: '' });
  all.push({ caller: 'member', method: 'PUT', body: { query: '{ me { id } }' } });
  all.push({ caller: 'member', method: 'DELETE' });

  // Bulk mutations, last, so that every answer above stays as it was.
  const BULK_VALIDATION = '... on ValidationError { fieldErrors { index field message } }';
  const updateIssues = `mutation($ids: [ID!]!, $change: IssuesChangeInput!) { ${result('updateIssues(ids: $ids, change: $change)', 'MutationUpdateIssuesSuccess', 'key status priority assignee { username }', BULK_VALIDATION, RATE_LIMITED)} }`;
  const createIssues = `mutation($issues: [CreateIssueInput!]!) { ${result('createIssues(issues: $issues)', 'MutationCreateIssuesSuccess', 'key title status', BULK_VALIDATION, RATE_LIMITED)} }`;
  for (const caller of CALLERS) q(caller, updateIssues, { ids: ['WEB-2', 'WEB-3'], change: { priority: 'LOW' } });
  q('member', updateIssues, { ids: ['WEB-2', 'RES-1', 'WEB-2'], change: { status: 'TODO' } });
  q('member', updateIssues, { ids: ['WEB-2'], change: {} });
  q('member', createIssues, { issues: [{ projectId: ids.web, title: 'GraphQL bulk' }] });
  q('member', createIssues, {
    issues: [
      { projectId: ids.res, title: 'Theirs' },
      { projectId: ids.web, title: '' },
    ],
  });
  return all;
}

async function run(world: World): Promise<Recorded[]> {
  const out: Recorded[] = [];
  const last: Record<string, string> = {
    end: '',
    start: '',
    'new-key': '',
    invite: '',
    'webhook-admin': '',
    'webhook-globex': '',
    delivery: '',
    comment: '',
  };
  for (const step of steps(world.ids)) {
    const body =
      typeof step.body === 'object'
        ? JSON.parse(
            JSON.stringify(step.body).replace(/"<([a-z-]+)>"/g, (m, name: string) =>
              name in last ? JSON.stringify(last[name]) : m,
            ),
          )
        : step.body;
    const method = step.method ?? (step.get === undefined ? 'POST' : 'GET');
    const path = step.get === undefined ? '/api/graphql' : `/api/graphql${step.get ? `?${step.get}` : ''}`;
    const { parsed, recorded } = await send(world, step.caller, method, path, body, step.headers);
    out.push(recorded);
    // What the next steps refer to: the page's cursors, the key, invite code and delivery made last, each caller's webhook.
    const data = (
      parsed as {
        data?: Record<
          string,
          { pageInfo?: { startCursor?: string; endCursor?: string }; data?: Record<string, unknown> }
        >;
      } | null
    )?.data;
    if (data?.issues?.pageInfo) {
      last.end = data.issues.pageInfo.endCursor ?? '';
      last.start = data.issues.pageInfo.startCursor ?? '';
    }
    const made = (field: string) => data?.[field]?.data;
    if (made('createApiKey')) last['new-key'] = (made('createApiKey')!.apiKey as { id: string }).id;
    if (made('createInvitation')) last.invite = made('createInvitation')!.code as string;
    if (made('createWebhook')) last[`webhook-${step.caller}`] = (made('createWebhook')!.webhook as { id: string }).id;
    if (made('pingWebhook')) last.delivery = made('pingWebhook')!.id as string;
    if (made('createComment')?.id && step.caller === 'member') last.comment = made('createComment')!.id as string;
  }
  return out;
}

describeCorpus('graphql', run, { graphqlTrustedDocuments: documentsFile });
