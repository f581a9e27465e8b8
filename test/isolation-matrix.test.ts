/**
 * The isolation and authorization matrix: every REST route (and, through /api/mcp, every MCP tool,
 * with the answers of the route it is made from) and every GraphQL query and mutation of
 * schema.graphql, called by every kind of caller, on an object of the caller's organization (org A,
 * acme) and on one of another organization (org B, globex), with the exact expected answer of
 * each cell written out in the tables below. The tables are the rules (docs/api.md, and the
 * authScopes of src/schema):
 *
 * - anonymous: 401 everywhere (GraphQL too: refused before it runs);
 * - another organization's object, by id or by key, on every method: 404 (GraphQL NOT_FOUND),
 *   exactly the answer an id that exists nowhere gets, and never any of its data; lists and
 *   searches contain zero foreign ids. (A role too low for an operation is refused with 403
 *   before any lookup, so the 403 is the same for an own, a foreign and a missing id.)
 * - viewer reads only; member also creates and edits issues; manager and above also write
 *   projects and delete issues; owners and admins invite and list every key;
 * - API keys are created (manager and above) and revoked only from a session or an OAuth token,
 *   never from a key (403); a manager may revoke only their own keys (another's: 404);
 * - cross-organization operations (create, join, search organizations) are 403 for keys.
 *
 * Callers: the demo PATs of acme (viewer victor, member mark, who is also a member of globex,
 * manager maya, admin adam, owner olivia), an OAuth token of maya bound to acme (scope read write)
 * and maya's browser session (with X-Org-Id: acme and Origin, as the browser pages send them).
 *
 * REST cells expect an HTTP status. GraphQL cells expect 401 (anonymous) or, over HTTP 200, an
 * outcome: 'ok', or the error code (FORBIDDEN, NOT_FOUND) of the error or the result union member.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mintApiKey } from '../src/auth/api-keys.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { ROUTES } from '../src/rest/routes/index.js';
import { sealSecret } from '../src/webhooks/secret-box.js';
import { newSigningSecret } from '../src/webhooks/signing.js';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';
import {
  CALLERS,
  get,
  gql,
  gqlOutcome,
  organizationIds,
  result,
  sameAnswer,
  sendRaw,
  type Answer,
  type Caller,
  type PatCaller,
  type PerCaller,
  type Req,
} from './support/isolation.js';
import { authorizeParams, obtainTokens, pkce, registerClient } from './support/oauth.js';

let t: TestApp;
// Rate limits (search and project writes 30/60 s, key creation 10/hour per user, 600/60 s per
// credential) must never decide a cell: every cell starts an hour later on the limiter's clock.
let clock = 1_000_000;
const tick = () => {
  clock += 3_601_000;
};

let acme = '';
let globex = '';
const uid = { olivia: '', adam: '', maya: '', mark: '', victor: '', bella: '' };
const pats = {} as Record<PatCaller, string>;
let oauthToken = '';
let mayaCookie = '';
let markCookie = '';
let markOAuthToken = '';
let markGlobexPat = '';
let bellaPat = '';

// Org A's objects.
let web = { id: '', key: 'WEB' };
let web1 = { id: '', key: 'WEB-1' };
/** A project of acme made for this file: fresh issues go there. */
let scratch = { id: '', key: '' };
let scratchIssue = { id: '', key: '' };
// Org B's objects.
let res = { id: '', key: 'RES' };
let resIssues: { id: string; key: string }[] = [];
let bellaKey = '';
let markGlobexKey = '';
/** Ids no caller acting in acme may ever see (globex's own id is checked apart: the public directory shows it). */
let FOREIGN: string[] = [];
// Webhooks: one of acme (with a delivery) and one of globex.
let acmeHook = '';
let acmeDelivery = '';
let globexHook = '';
/** A comment on a globex issue. */
let globexComment = '';
let globexBefore: unknown;
// Labels: one of acme, one of globex.
let acmeLabel = { id: '', name: '' };
let globexLabel = { id: '', name: '' };

const MISSING_ID = '00000000-0000-4000-8000-000000000000';
const MISSING_KEY = 'ZZZ-999';

let matrixCells = 0;
let furtherChecks = 0;

const actingUser = (caller: Caller): string =>
  ({
    anonymous: uid.maya,
    viewer: uid.victor,
    member: uid.mark,
    manager: uid.maya,
    admin: uid.adam,
    owner: uid.olivia,
    oauth: uid.maya,
    session: uid.maya,
  })[caller];

function credentials(caller: Caller): Record<string, string> {
  if (caller === 'anonymous') return {};
  if (caller === 'oauth') return { authorization: `Bearer ${oauthToken}` };
  if (caller === 'session') return { cookie: mayaCookie, origin: ORIGIN, 'x-org-id': acme };
  return { authorization: `Bearer ${pats[caller]}` };
}

const send = (caller: Caller, req: Req) => sendRaw(t, req, credentials(caller));
const sendAs = (headers: Record<string, string>, req: Req) => sendRaw(t, req, headers);
const db = () => t.app.db.prisma;

function leaksIn(text: string, directory = false): string[] {
  const found = FOREIGN.filter((id) => text.includes(id));
  if (!directory && text.includes(globex)) found.push(`globex org id`);
  if (!directory && /globex/i.test(text)) found.push('"globex"');
  if (text.includes('bella@example.com')) found.push('bella@example.com');
  return found;
}

async function globexState() {
  const p = db();
  return {
    org: await p.organization.findUnique({ where: { id: globex } }),
    projects: await p.project.findMany({ where: { orgId: globex }, orderBy: { id: 'asc' } }),
    issues: await p.issue.findMany({ where: { orgId: globex }, orderBy: { id: 'asc' } }),
    memberships: await p.membership.findMany({ where: { orgId: globex }, orderBy: { id: 'asc' } }),
    keys: (await p.apiKey.findMany({ where: { orgId: globex }, orderBy: { id: 'asc' } })).map((k) => ({
      id: k.id,
      userId: k.userId,
      name: k.name,
      revokedAt: k.revokedAt,
      expiresAt: k.expiresAt,
    })),
    invitations: await p.invitation.count({ where: { orgId: globex } }),
    comments: await p.comment.findMany({ where: { orgId: globex }, orderBy: { id: 'asc' } }),
  };
}

// ---------------------------------------------------------------------------------------------
// Fixtures made for one cell (own-org writes need an object of their own).

let seq = 0;
async function freshProject(): Promise<{ id: string; key: string }> {
  const key = `MX${++seq}`;
  const answer = await send('owner', { method: 'POST', path: '/api/projects', body: { name: `Matrix ${key}`, key } });
  if (answer.status !== 201) throw new Error(`fixture project: ${answer.status} ${answer.text}`);
  return answer.json;
}
/** A webhook to a public address literal (no DNS, and the test app runs no delivery worker). */
async function freshHook(orgId = acme): Promise<string> {
  const hook = await db().webhook.create({
    data: {
      orgId,
      url: 'https://93.184.215.14/hook',
      events: ['*'],
      secret: sealSecret(newSigningSecret(), undefined),
    },
  });
  return hook.id;
}

async function freshLabel(orgId = acme, name = `matrix-label-${++seq}`): Promise<{ id: string; name: string }> {
  return db().label.create({
    data: { orgId, name, nameKey: name, color: '#123456' },
    select: { id: true, name: true },
  });
}
const labelName = async (id: string) => (await db().label.findUnique({ where: { id } }))?.name ?? null;
/** The issue the label rows change, its labels reset by each cell (fresh issues would push WEB-1 off the first list page). */
async function labelledIssue(labelled: boolean): Promise<{ id: string; key: string }> {
  await db().issueLabel.deleteMany({ where: { issueId: scratchIssue.id } });
  if (labelled)
    await db().issueLabel.create({ data: { orgId: acme, issueId: scratchIssue.id, labelId: acmeLabel.id } });
  return scratchIssue;
}
const carries = async (issueId: string, labelId: string) =>
  (await db().issueLabel.count({ where: { issueId, labelId } })) === 1;

async function freshIssue(): Promise<{ id: string; key: string }> {
  const answer = await send('owner', {
    method: 'POST',
    path: '/api/issues',
    body: { project_id: scratch.id, title: 'Matrix fixture' },
  });
  if (answer.status !== 201) throw new Error(`fixture issue: ${answer.status} ${answer.text}`);
  return answer.json;
}
/** A comment written straight into the database (a viewer cannot write one through the API). */
async function freshComment(authorId: string, issueId = scratchIssue.id, orgId = acme): Promise<string> {
  const comment = await db().comment.create({
    data: { orgId, issueId, authorId, body: 'Matrix comment' },
    select: { id: true },
  });
  return comment.id;
}
const commentBody = async (id: string) => (await db().comment.findUnique({ where: { id } }))?.body ?? null;
async function freshKey(userId: string): Promise<string> {
  return (await mintApiKey(db(), { userId, orgId: acme, name: 'matrix fixture' })).key.id;
}
const projectName = async (id: string) => (await db().project.findUnique({ where: { id } }))?.name ?? null;
const issueTitle = async (id: string) => (await db().issue.findUnique({ where: { id } }))?.title ?? null;
const keyRevoked = async (id: string) => (await db().apiKey.findUniqueOrThrow({ where: { id } })).revokedAt !== null;

async function allInAcme(kind: 'project' | 'issue' | 'apiKey', ids: string[]) {
  const rows =
    kind === 'project'
      ? await db().project.findMany({ where: { id: { in: ids } }, select: { orgId: true } })
      : kind === 'issue'
        ? await db().issue.findMany({ where: { id: { in: ids } }, select: { orgId: true } })
        : await db().apiKey.findMany({ where: { id: { in: ids } }, select: { orgId: true } });
  expect(rows).toHaveLength(new Set(ids).size);
  expect(rows.filter((r) => r.orgId !== acme)).toEqual([]);
}

/** Org lists: PATs and OAuth tokens see only acme; the session sees acme and never globex (maya is not in it). */
function onlyAcme(orgIds: string[], caller: Caller) {
  expect(orgIds).toContain(acme);
  expect(orgIds).not.toContain(globex);
  if (caller !== 'session') expect(orgIds).toEqual([acme]);
}

// ---------------------------------------------------------------------------------------------
// The matrix.

type Action = 'read' | 'list' | 'create' | 'update' | 'delete';
type Target = 'own' | 'foreign' | 'colleague' | '-';
type Expected = number | 'ok' | 'FORBIDDEN' | 'NOT_FOUND' | 'VALIDATION_FAILED';
const OK = 'ok';
const FB = 'FORBIDDEN';
const NF = 'NOT_FOUND';
/** A bulk call naming another organization's issue or project: the item is bad (by index), as one that exists nowhere. */
const VF = 'VALIDATION_FAILED';

interface Cell {
  req: Req;
  /** Runs after the call; `ok` tells whether it succeeded (2xx, or GraphQL 'ok'). */
  check?(answer: Answer, caller: Caller, ok: boolean): Promise<void> | void;
}

interface Row {
  surface: 'REST' | 'GraphQL' | 'MCP' | 'MCP 2026';
  name: string;
  action: Action;
  target: Target;
  expect: PerCaller<Expected>;
  cell(caller: Caller): Promise<Cell> | Cell;
  /** For a foreign target: the same request naming something that exists nowhere; the answer must be identical. */
  missing?: () => Req;
  /** The public organization directory may name globex (never its projects, issues or people). */
  directory?: boolean;
  /** GraphQL: the root field whose outcome is read. */
  field?: string;
}

const rest = (
  name: string,
  action: Action,
  target: Target,
  expected: PerCaller<number>,
  cell: Row['cell'],
  extra: Partial<Row> = {},
): Row => ({
  surface: 'REST',
  name,
  action,
  target,
  expect: expected,
  cell,
  ...extra,
});
const graph = (
  field: string,
  name: string,
  action: Action,
  target: Target,
  expected: PerCaller<Expected>,
  cell: Row['cell'],
  extra: Partial<Row> = {},
): Row => ({ surface: 'GraphQL', field, name, action, target, expect: expected, cell, ...extra });

// Checks shared by the two surfaces.
const projectUpdated = (id: string, before: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await projectName(id)).toBe(ok ? 'Renamed by the matrix' : before);
const projectDeleted = (id: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await projectName(id)).toEqual(ok ? null : expect.any(String));
const issueUpdated = (id: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await issueTitle(id)).toBe(ok ? 'Patched by the matrix' : 'Matrix fixture');
const issueStatus = async (id: string) => (await db().issue.findUnique({ where: { id } }))?.status ?? null;
/** A bulk change sets the status In Review: it did exactly when the call succeeded. */
const issueBulkChanged = (id: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await issueStatus(id)).toBe(ok ? 'In Review' : 'Backlog');
const issueDeleted = (id: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await issueTitle(id)).toBe(ok ? null : 'Matrix fixture');
const keyRevokedIff = (id: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await keyRevoked(id)).toBe(ok);
/** A caller's fresh key to revoke (for anonymous, one of maya's). */
const ownKey = (caller: Caller) => freshKey(actingUser(caller));
/** A fresh key of someone else in acme. */
const colleagueKey = (caller: Caller) => freshKey(actingUser(caller) === uid.victor ? uid.adam : uid.victor);

const projectReq = {
  read: (id: string) => get(`/api/projects/${id}`),
  update: (id: string): Req => ({
    method: 'PUT',
    path: `/api/projects/${id}`,
    body: { name: 'Renamed by the matrix' },
  }),
  delete: (id: string): Req => ({ method: 'DELETE', path: `/api/projects/${id}?force=true` }),
};
const issueReq = {
  read: (idOrKey: string) => get(`/api/issues/${idOrKey}`),
  update: (idOrKey: string): Req => ({
    method: 'PATCH',
    path: `/api/issues/${idOrKey}`,
    body: { title: 'Patched by the matrix' },
  }),
  delete: (idOrKey: string): Req => ({ method: 'DELETE', path: `/api/issues/${idOrKey}` }),
  create: (projectId: string): Req => ({
    method: 'POST',
    path: '/api/issues',
    body: { project_id: projectId, title: 'Created by the matrix' },
  }),
};
const revokeReq = (id: string): Req => ({ method: 'DELETE', path: `/api/api-keys/${id}` });
const commentReq = {
  list: (issue: string) => get(`/api/issues/${issue}/comments`),
  create: (issue: string): Req => ({
    method: 'POST',
    path: `/api/issues/${issue}/comments`,
    body: { body: 'Written by the matrix' },
  }),
  update: (issue: string, id: string): Req => ({
    method: 'PATCH',
    path: `/api/issues/${issue}/comments/${id}`,
    body: { body: 'Edited by the matrix' },
  }),
  delete: (issue: string, id: string): Req => ({ method: 'DELETE', path: `/api/issues/${issue}/comments/${id}` }),
};
const commentEdited = (id: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await commentBody(id)).toBe(ok ? 'Edited by the matrix' : 'Matrix comment');
const commentDeleted = (id: string) => async (_a: Answer, _c: Caller, ok: boolean) =>
  expect(await commentBody(id)).toBe(ok ? null : 'Matrix comment');
/** Someone else in acme than the caller: whose comment a caller may change only as an owner or admin. */
const colleagueOf = (caller: Caller) => (actingUser(caller) === uid.mark ? uid.olivia : uid.mark);
const bulkReq = {
  change: (ids: string[]): Req => ({
    method: 'POST',
    path: '/api/issues/bulk',
    body: { ids, change: { status: 'In Review' } },
  }),
  create: (projectId: string): Req => ({
    method: 'POST',
    path: '/api/issues/bulk',
    body: { issues: [{ project_id: projectId, title: 'Created in bulk by the matrix' }] },
  }),
};

// prettier-ignore
const REST: Row[] = [
  //   route                                       action    target       anon viewer member manager admin owner oauth session
  rest('GET /api/me', 'read', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/me'),
    check: (a, c, ok) => {
      if (ok) expect(a.json.id).toBe(actingUser(c));
    },
  })),
  rest('GET /api/me/orgs', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/me/orgs'),
    check: (a, c, ok) => {
      if (ok)
        onlyAcme(
          a.json.orgs.map((o: { org_id: string }) => o.org_id),
          c,
        );
    },
  })),
  rest('GET /api/orgs', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/orgs'),
    check: (a, c, ok) => {
      if (ok)
        onlyAcme(
          a.json.orgs.map((o: { id: string }) => o.id),
          c,
        );
    },
  })),
  rest(
    'GET /api/orgs/search?q=o (public directory)',
    'list',
    '-',
    [401, 403, 403, 403, 403, 403, 200, 200],
    () => ({
      req: get('/api/orgs/search?q=o'),
      check: (a, _c, ok) => {
        if (ok) for (const org of a.json) expect(Object.keys(org).sort()).toEqual(['id', 'is_public', 'name', 'slug']);
      },
    }),
    { directory: true },
  ),
  rest('POST /api/orgs', 'create', '-', [401, 403, 403, 403, 403, 403, 201, 201], () => ({
    req: { method: 'POST', path: '/api/orgs', body: { name: 'Matrix Org', slug: `matrix-org-${++seq}` } },
  })),
  rest('POST /api/orgs/join (unknown code)', 'create', '-', [401, 403, 403, 403, 403, 403, 404, 404], () => ({
    req: { method: 'POST', path: '/api/orgs/join', body: { invite_code: 'inv_no-such-code' } },
  })),
  rest('POST /api/invitations', 'create', '-', [401, 403, 403, 403, 201, 201, 403, 403], () => ({
    req: { method: 'POST', path: '/api/invitations', body: { role: 'viewer' } },
  })),

  rest('GET /api/projects', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/projects'),
    check: async (a, _c, ok) => {
      if (ok) {
        const ids = a.json.map((p: { id: string }) => p.id);
        expect(ids).toContain(web.id);
        await allInAcme('project', ids);
      }
    },
  })),
  rest('GET /api/projects/:id', 'read', 'own', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: projectReq.read(web.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.id).toBe(web.id);
    },
  })),
  rest(
    'GET /api/projects/:id',
    'read',
    'foreign',
    [401, 404, 404, 404, 404, 404, 404, 404],
    () => ({
      req: projectReq.read(res.id),
    }),
    { missing: () => projectReq.read(MISSING_ID) },
  ),
  rest('POST /api/projects', 'create', '-', [401, 403, 403, 201, 201, 201, 201, 201], () => ({
    req: { method: 'POST', path: '/api/projects', body: { name: 'Matrix new', key: `MN${++seq}` } },
  })),
  rest('PUT /api/projects/:id', 'update', 'own', [401, 403, 403, 200, 200, 200, 200, 200], async () => {
    const p = await freshProject();
    return { req: projectReq.update(p.id), check: projectUpdated(p.id, `Matrix ${p.key}`) };
  }),
  rest(
    'PUT /api/projects/:id',
    'update',
    'foreign',
    [401, 403, 403, 404, 404, 404, 404, 404],
    () => ({
      req: projectReq.update(res.id),
    }),
    { missing: () => projectReq.update(MISSING_ID) },
  ),
  rest('DELETE /api/projects/:id?force=true', 'delete', 'own', [401, 403, 403, 204, 204, 204, 204, 204], async () => {
    const p = await freshProject();
    return { req: projectReq.delete(p.id), check: projectDeleted(p.id) };
  }),
  rest(
    'DELETE /api/projects/:id?force=true',
    'delete',
    'foreign',
    [401, 403, 403, 404, 404, 404, 404, 404],
    () => ({
      req: projectReq.delete(res.id),
    }),
    { missing: () => projectReq.delete(MISSING_ID) },
  ),

  rest('GET /api/issues', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    // Oldest first: the rows below create issues (bulk creates a page's worth), and the seeded
    // WEB-1 must stay on the first page whichever surface runs the row last.
    req: get('/api/issues?limit=100&sort=created_at&direction=asc'),
    check: async (a, _c, ok) => {
      if (ok) {
        const ids = a.json.map((i: { id: string }) => i.id);
        expect(ids).toContain(web1.id);
        await allInAcme('issue', ids);
      }
    },
  })),
  rest('GET /api/issues?project_id=', 'list', 'own', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get(`/api/issues?project_id=${web.id}`),
    check: (a, _c, ok) => {
      if (ok) expect(a.json).toHaveLength(4);
    },
  })),
  rest(
    'GET /api/issues?project_id=',
    'list',
    'foreign',
    [401, 404, 404, 404, 404, 404, 404, 404],
    () => ({
      req: get(`/api/issues?project_id=${res.id}`),
    }),
    { missing: () => get(`/api/issues?project_id=${MISSING_ID}`) },
  ),
  rest('POST /api/issues {project_id}', 'create', 'own', [401, 403, 201, 201, 201, 201, 201, 201], () => ({
    req: issueReq.create(scratch.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.project_id).toBe(scratch.id);
    },
  })),
  rest(
    'POST /api/issues {project_id}',
    'create',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({
      req: issueReq.create(res.id),
    }),
    { missing: () => issueReq.create(MISSING_ID) },
  ),
  rest('GET /api/issues/:id', 'read', 'own', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: issueReq.read(web1.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.key).toBe('WEB-1');
    },
  })),
  rest(
    'GET /api/issues/:id',
    'read',
    'foreign',
    [401, 404, 404, 404, 404, 404, 404, 404],
    () => ({
      req: issueReq.read(resIssues[0]!.id),
    }),
    { missing: () => issueReq.read(MISSING_ID) },
  ),
  rest('GET /api/issues/:key (any case)', 'read', 'own', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: issueReq.read('web-1'),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.id).toBe(web1.id);
    },
  })),
  rest(
    'GET /api/issues/:key (any case)',
    'read',
    'foreign',
    [401, 404, 404, 404, 404, 404, 404, 404],
    () => ({
      req: issueReq.read('res-1'),
    }),
    { missing: () => issueReq.read(MISSING_KEY) },
  ),
  rest('PATCH /api/issues/:id', 'update', 'own', [401, 403, 200, 200, 200, 200, 200, 200], async () => {
    const i = await freshIssue();
    return { req: issueReq.update(i.id), check: issueUpdated(i.id) };
  }),
  rest(
    'PATCH /api/issues/:id',
    'update',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({
      req: issueReq.update(resIssues[1]!.id),
    }),
    { missing: () => issueReq.update(MISSING_ID) },
  ),
  rest('PATCH /api/issues/:key', 'update', 'own', [401, 403, 200, 200, 200, 200, 200, 200], async () => {
    const i = await freshIssue();
    return { req: issueReq.update(i.key), check: issueUpdated(i.id) };
  }),
  rest(
    'PATCH /api/issues/:key',
    'update',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({
      req: issueReq.update('RES-2'),
    }),
    { missing: () => issueReq.update(MISSING_KEY) },
  ),
  rest('POST /api/issues/bulk {ids}', 'update', 'own', [401, 403, 200, 200, 200, 200, 200, 200], async () => {
    const i = await freshIssue();
    return { req: bulkReq.change([i.key]), check: issueBulkChanged(i.id) };
  }),
  rest(
    'POST /api/issues/bulk {ids}',
    'update',
    'foreign',
    [401, 403, 400, 400, 400, 400, 400, 400],
    () => ({
      req: bulkReq.change([resIssues[1]!.id]),
    }),
    { missing: () => bulkReq.change([MISSING_ID]) },
  ),
  rest(
    'POST /api/issues/bulk {ids: key}',
    'update',
    'foreign',
    [401, 403, 400, 400, 400, 400, 400, 400],
    () => ({
      req: bulkReq.change(['RES-2']),
    }),
    { missing: () => bulkReq.change([MISSING_KEY]) },
  ),
  rest('POST /api/issues/bulk {issues}', 'create', 'own', [401, 403, 200, 200, 200, 200, 200, 200], () => ({
    req: bulkReq.create(scratch.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json[0].project_id).toBe(scratch.id);
    },
  })),
  rest(
    'POST /api/issues/bulk {issues}',
    'create',
    'foreign',
    [401, 403, 400, 400, 400, 400, 400, 400],
    () => ({
      req: bulkReq.create(res.id),
    }),
    { missing: () => bulkReq.create(MISSING_ID) },
  ),
  rest('DELETE /api/issues/:id', 'delete', 'own', [401, 403, 403, 204, 204, 204, 204, 204], async () => {
    const i = await freshIssue();
    return { req: issueReq.delete(i.id), check: issueDeleted(i.id) };
  }),
  rest(
    'DELETE /api/issues/:id',
    'delete',
    'foreign',
    [401, 403, 403, 404, 404, 404, 404, 404],
    () => ({
      req: issueReq.delete(resIssues[2]!.id),
    }),
    { missing: () => issueReq.delete(MISSING_ID) },
  ),
  rest('DELETE /api/issues/:key', 'delete', 'own', [401, 403, 403, 204, 204, 204, 204, 204], async () => {
    const i = await freshIssue();
    return { req: issueReq.delete(i.key), check: issueDeleted(i.id) };
  }),
  rest(
    'DELETE /api/issues/:key',
    'delete',
    'foreign',
    [401, 403, 403, 404, 404, 404, 404, 404],
    () => ({
      req: issueReq.delete('RES-3'),
    }),
    { missing: () => issueReq.delete(MISSING_KEY) },
  ),

  rest('GET /api/people/search?q=a', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/people/search?q=a'),
    check: (a, c, ok) => {
      if (!ok) return;
      expect(a.json.length).toBeGreaterThan(0);
      // Email addresses: managers, admins and owners only.
      const seesEmail = !['viewer', 'member'].includes(c);
      for (const person of a.json) expect('email' in person).toBe(seesEmail);
    },
  })),
  rest('GET /api/people/search?q=bella', 'list', 'foreign', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/people/search?q=bella'),
    check: (a, _c, ok) => {
      if (ok) expect(a.json).toEqual([]);
    },
  })),
  rest('GET /api/palette/search?q=continuous', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/palette/search?q=continuous'),
    // "Set up continuous integration" is issue 1 of WEB, MOB and globex's RES: only acme's come back.
    check: (a, _c, ok) => {
      if (ok) expect(a.json.map((h: { key: string }) => h.key).sort()).toEqual(['MOB-1', 'WEB-1']);
    },
  })),
  rest('GET /api/palette/search?q=RES-1', 'list', 'foreign', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/palette/search?q=RES-1'),
    check: (a, _c, ok) => {
      if (ok) expect(a.json).toEqual([]);
    },
  })),

  rest('GET /api/api-keys', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/api-keys'),
    check: async (a, c, ok) => {
      if (!ok) return;
      expect(a.json.length).toBeGreaterThan(0);
      for (const key of a.json) expect(key.user_id).toBe(actingUser(c));
      await allInAcme(
        'apiKey',
        a.json.map((k: { id: string }) => k.id),
      );
    },
  })),
  rest('GET /api/api-keys?all=true', 'list', '-', [401, 403, 403, 403, 200, 200, 403, 403], () => ({
    req: get('/api/api-keys?all=true'),
    check: async (a, _c, ok) => {
      if (!ok) return;
      expect(new Set(a.json.map((k: { user_id: string }) => k.user_id)).size).toBeGreaterThan(1);
      await allInAcme(
        'apiKey',
        a.json.map((k: { id: string }) => k.id),
      );
    },
  })),
  rest('POST /api/api-keys', 'create', '-', [401, 403, 403, 403, 403, 403, 201, 201], () => ({
    req: { method: 'POST', path: '/api/api-keys', body: { name: 'matrix' } },
    check: (a, c, ok) => {
      if (ok) expect(a.json.user_id).toBe(actingUser(c));
    },
  })),
  rest('DELETE /api/api-keys/:id (own key)', 'delete', 'own', [401, 403, 403, 403, 403, 403, 204, 204], async (c) => {
    const id = await ownKey(c);
    return { req: revokeReq(id), check: keyRevokedIff(id) };
  }),
  rest(
    "DELETE /api/api-keys/:id (another member's key)",
    'delete',
    'colleague',
    [401, 403, 403, 403, 403, 403, 404, 404],
    async (c) => {
      const id = await colleagueKey(c);
      return { req: revokeReq(id), check: keyRevokedIff(id) };
    },
  ),
  rest(
    'DELETE /api/api-keys/:id',
    'delete',
    'foreign',
    [401, 403, 403, 403, 403, 403, 404, 404],
    () => ({
      req: revokeReq(markGlobexKey),
    }),
    { missing: () => revokeReq(MISSING_ID) },
  ),
  rest('GET /api/webhooks', 'list', '-', [401, 403, 403, 403, 200, 200, 403, 403], () => ({
    req: get('/api/webhooks'),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.map((w: { id: string }) => w.id)).not.toContain(globexHook);
    },
  })),
  rest(
    'GET /api/webhooks/:id',
    'read',
    'foreign',
    [401, 403, 403, 403, 404, 404, 403, 403],
    () => ({
      req: get(`/api/webhooks/${globexHook}`),
    }),
    { missing: () => get(`/api/webhooks/${MISSING_ID}`) },
  ),
  rest(
    'PATCH /api/webhooks/:id',
    'update',
    'foreign',
    [401, 403, 403, 403, 404, 404, 403, 403],
    () => ({
      req: { method: 'PATCH', path: `/api/webhooks/${globexHook}`, body: { rotate_secret: true } },
    }),
    { missing: () => ({ method: 'PATCH', path: `/api/webhooks/${MISSING_ID}`, body: { rotate_secret: true } }) },
  ),
  rest('GET /api/webhooks/:id/deliveries', 'list', 'own', [401, 403, 403, 403, 200, 200, 403, 403], () => ({
    req: get(`/api/webhooks/${acmeHook}/deliveries`),
  })),
  rest('GET /api/issues/:id/history', 'list', 'own', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/issues/WEB-1/history'),
  })),
  rest(
    'GET /api/issues/:id/history',
    'list',
    'foreign',
    [401, 404, 404, 404, 404, 404, 404, 404],
    () => ({
      req: get(`/api/issues/${resIssues[0]!.id}/history`),
    }),
    { missing: () => get(`/api/issues/${MISSING_ID}/history`) },
  ),

  rest('GET /api/issues/:id/comments', 'list', 'own', [401, 200, 200, 200, 200, 200, 200, 200], async () => {
    // An issue of its own: the scratch issue gathers more comments than a page (oldest first) holds.
    const issue = await freshIssue();
    const id = await freshComment(uid.mark, issue.id);
    return {
      req: commentReq.list(issue.key),
      check: (a, _c, ok) => {
        if (ok) expect(a.json.map((c: { id: string }) => c.id)).toContain(id);
      },
    };
  }),
  rest(
    'GET /api/issues/:id/comments',
    'list',
    'foreign',
    [401, 404, 404, 404, 404, 404, 404, 404],
    () => ({ req: commentReq.list(resIssues[0]!.id) }),
    { missing: () => commentReq.list(MISSING_ID) },
  ),
  rest('POST /api/issues/:id/comments', 'create', 'own', [401, 403, 201, 201, 201, 201, 201, 201], (c) => ({
    req: commentReq.create(scratchIssue.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json).toMatchObject({ issue_id: scratchIssue.id, author_id: actingUser(c) });
    },
  })),
  rest(
    'POST /api/issues/:id/comments',
    'create',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({ req: commentReq.create(resIssues[0]!.key) }),
    { missing: () => commentReq.create(MISSING_KEY) },
  ),
  rest(
    'PATCH /api/issues/:id/comments/:comment_id',
    'update',
    'own',
    [401, 403, 200, 200, 200, 200, 200, 200],
    async (c) => {
      const id = await freshComment(actingUser(c));
      return { req: commentReq.update(scratchIssue.id, id), check: commentEdited(id) };
    },
  ),
  rest(
    'PATCH /api/issues/:id/comments/:comment_id',
    'update',
    'colleague',
    [401, 403, 403, 403, 200, 200, 403, 403],
    async (c) => {
      const id = await freshComment(colleagueOf(c));
      return { req: commentReq.update(scratchIssue.id, id), check: commentEdited(id) };
    },
  ),
  rest(
    'PATCH /api/issues/:id/comments/:comment_id',
    'update',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({ req: commentReq.update(resIssues[0]!.id, globexComment) }),
    { missing: () => commentReq.update(MISSING_ID, MISSING_ID) },
  ),
  rest(
    'DELETE /api/issues/:id/comments/:comment_id',
    'delete',
    'own',
    [401, 403, 204, 204, 204, 204, 204, 204],
    async (c) => {
      const id = await freshComment(actingUser(c));
      return { req: commentReq.delete(scratchIssue.id, id), check: commentDeleted(id) };
    },
  ),
  rest(
    'DELETE /api/issues/:id/comments/:comment_id',
    'delete',
    'colleague',
    [401, 403, 403, 403, 204, 204, 403, 403],
    async (c) => {
      const id = await freshComment(colleagueOf(c));
      return { req: commentReq.delete(scratchIssue.id, id), check: commentDeleted(id) };
    },
  ),
  rest(
    'DELETE /api/issues/:id/comments/:comment_id',
    'delete',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({ req: commentReq.delete(resIssues[0]!.id, globexComment) }),
    { missing: () => commentReq.delete(MISSING_ID, MISSING_ID) },
  ),
  rest('GET /api/labels', 'list', '-', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get('/api/labels'),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.map((l: { id: string }) => l.id)).toContain(acmeLabel.id);
    },
  })),
  rest('POST /api/labels', 'create', '-', [401, 403, 403, 201, 201, 201, 201, 201], () => ({
    req: { method: 'POST', path: '/api/labels', body: { name: `matrix-new-${++seq}`, color: '#abcdef' } },
  })),
  rest('GET /api/labels/:id', 'read', 'own', [401, 200, 200, 200, 200, 200, 200, 200], () => ({
    req: get(`/api/labels/${acmeLabel.name}`),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.id).toBe(acmeLabel.id);
    },
  })),
  rest(
    'GET /api/labels/:id',
    'read',
    'foreign',
    [401, 404, 404, 404, 404, 404, 404, 404],
    () => ({ req: get(`/api/labels/${globexLabel.id}`) }),
    { missing: () => get(`/api/labels/${MISSING_ID}`) },
  ),
  rest('PATCH /api/labels/:id', 'update', 'own', [401, 403, 403, 200, 200, 200, 200, 200], async () => {
    const label = await freshLabel();
    return {
      req: { method: 'PATCH', path: `/api/labels/${label.id}`, body: { name: `${label.name}-renamed` } },
      check: async (_a, _c, ok) => expect(await labelName(label.id)).toBe(ok ? `${label.name}-renamed` : label.name),
    };
  }),
  rest(
    'PATCH /api/labels/:id',
    'update',
    'foreign',
    [401, 403, 403, 404, 404, 404, 404, 404],
    () => ({ req: { method: 'PATCH', path: `/api/labels/${globexLabel.id}`, body: { color: '#000000' } } }),
    { missing: () => ({ method: 'PATCH', path: `/api/labels/${MISSING_ID}`, body: { color: '#000000' } }) },
  ),
  rest('DELETE /api/labels/:id', 'delete', 'own', [401, 403, 403, 204, 204, 204, 204, 204], async () => {
    const label = await freshLabel();
    return {
      req: { method: 'DELETE', path: `/api/labels/${label.id}` },
      check: async (_a, _c, ok) => expect(await labelName(label.id)).toBe(ok ? null : label.name),
    };
  }),
  rest(
    'DELETE /api/labels/:id',
    'delete',
    'foreign',
    [401, 403, 403, 404, 404, 404, 404, 404],
    () => ({ req: { method: 'DELETE', path: `/api/labels/${globexLabel.id}` } }),
    { missing: () => ({ method: 'DELETE', path: `/api/labels/${MISSING_ID}` }) },
  ),
  rest('POST /api/issues/:id/labels', 'update', 'own', [401, 403, 200, 200, 200, 200, 200, 200], async () => {
    const issue = await labelledIssue(false);
    return {
      req: { method: 'POST', path: `/api/issues/${issue.key}/labels`, body: { labels: [acmeLabel.name] } },
      check: async (_a, _c, ok) => expect(await carries(issue.id, acmeLabel.id)).toBe(ok),
    };
  }),
  rest(
    'POST /api/issues/:id/labels',
    'update',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({ req: { method: 'POST', path: `/api/issues/${resIssues[0]!.id}/labels`, body: { labels: [] } } }),
    { missing: () => ({ method: 'POST', path: `/api/issues/${MISSING_ID}/labels`, body: { labels: [] } }) },
  ),
  rest(
    "POST /api/issues/:id/labels (another organization's label)",
    'update',
    'foreign',
    [401, 403, 400, 400, 400, 400, 400, 400],
    () => ({
      req: { method: 'POST', path: `/api/issues/${scratchIssue.id}/labels`, body: { labels: [globexLabel.id] } },
      check: async () => expect(await carries(scratchIssue.id, globexLabel.id)).toBe(false),
    }),
    {
      missing: () => ({
        method: 'POST',
        path: `/api/issues/${scratchIssue.id}/labels`,
        body: { labels: [MISSING_ID] },
      }),
    },
  ),
  rest('PUT /api/issues/:id/labels', 'update', 'own', [401, 403, 200, 200, 200, 200, 200, 200], async () => {
    const issue = await labelledIssue(false);
    return {
      req: { method: 'PUT', path: `/api/issues/${issue.id}/labels`, body: { labels: [acmeLabel.id] } },
      check: async (_a, _c, ok) => expect(await carries(issue.id, acmeLabel.id)).toBe(ok),
    };
  }),
  rest(
    'PUT /api/issues/:id/labels',
    'update',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({ req: { method: 'PUT', path: `/api/issues/${resIssues[0]!.key}/labels`, body: { labels: [] } } }),
    { missing: () => ({ method: 'PUT', path: `/api/issues/${MISSING_KEY}/labels`, body: { labels: [] } }) },
  ),
  rest('DELETE /api/issues/:id/labels/:label', 'update', 'own', [401, 403, 200, 200, 200, 200, 200, 200], async () => {
    const issue = await labelledIssue(true);
    return {
      req: { method: 'DELETE', path: `/api/issues/${issue.id}/labels/${acmeLabel.name}` },
      check: async (_a, _c, ok) => expect(await carries(issue.id, acmeLabel.id)).toBe(!ok),
    };
  }),
  rest(
    'DELETE /api/issues/:id/labels/:label',
    'update',
    'foreign',
    [401, 403, 404, 404, 404, 404, 404, 404],
    () => ({ req: { method: 'DELETE', path: `/api/issues/${resIssues[0]!.id}/labels/${acmeLabel.name}` } }),
    { missing: () => ({ method: 'DELETE', path: `/api/issues/${MISSING_ID}/labels/${acmeLabel.name}` }) },
  ),
];

// GraphQL documents.
const L = {
  label: `query($id: ID!) { label(id: $id) { id name } }`,
  createLabel: `mutation($input: CreateLabelInput!) { createLabel(input: $input) { ${result('MutationCreateLabelSuccess', '{ id }')} } }`,
  updateLabel: `mutation($id: ID!, $input: UpdateLabelInput!) { updateLabel(id: $id, input: $input) { ${result('MutationUpdateLabelSuccess', '{ id name }')} } }`,
  deleteLabel: `mutation($id: ID!) { deleteLabel(id: $id) { ${result('MutationDeleteLabelSuccess')} } }`,
  issueLabels: (field: string) =>
    `mutation($id: ID!, $labels: [ID!]!) { ${field}(id: $id, labels: $labels) { ${result(`Mutation${field[0]!.toUpperCase()}${field.slice(1)}Success`, '{ id labels { id name } }')} } }`,
};
const Q = {
  me: '{ me { id username } }',
  memberships: '{ memberships { id role organization { id slug projects { id key } } } }',
  projects: '{ projects { id key } }',
  project: 'query($id: ID!) { project(id: $id) { id key name issueCount } }',
  issue: 'query($id: ID!) { issue(id: $id) { id key title projectId } }',
  node: 'query($id: ID!) { node(id: $id) { __typename id ... on Issue { key } } }',
  nodes: 'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } }',
  issues: '{ issues(first: 100) { edges { node { id key projectId } } } }',
  projectIssues: 'query($p: ID) { issues(projectId: $p, first: 100) { edges { node { id key projectId } } } }',
  issueAggregates: 'query($p: ID) { issueAggregates(projectId: $p) { total byProject { projectId } } }',
  issueStatuses: '{ issueStatuses }',
  issuePriorities: '{ issuePriorities }',
  searchPeople: '{ searchPeople(q: "a") { id username role email } }',
  paletteSearch: '{ paletteSearch(q: "continuous") { type id key projectId } }',
  apiKeys: '{ apiKeys { id ownerId } }',
  apiKeysAll: '{ apiKeys(all: true) { id ownerId } }',
  searchOrganizations: '{ searchOrganizations(q: "o") { id slug isPublic } }',
  nested: `query($id: ID!) { issue(id: $id) { id project { id organization { id projects(first: 10) { id organization { id }
    issues(first: 100) { edges { node { id projectId assignee { id } } } } } } } } }`,
};
const M = {
  createProject: `mutation($input: CreateProjectInput!) { createProject(input: $input) { ${result('MutationCreateProjectSuccess', '{ id key }')} } }`,
  updateProject: `mutation($id: ID!, $input: UpdateProjectInput!) { updateProject(id: $id, input: $input) { ${result('MutationUpdateProjectSuccess', '{ id name }')} } }`,
  deleteProject: `mutation($id: ID!, $force: Boolean) { deleteProject(id: $id, force: $force) { ${result('MutationDeleteProjectSuccess')} } }`,
  createIssue: `mutation($input: CreateIssueInput!) { createIssue(input: $input) { ${result('MutationCreateIssueSuccess', '{ id key projectId }')} } }`,
  updateIssue: `mutation($id: ID!, $input: UpdateIssueInput!) { updateIssue(id: $id, input: $input) { ${result('MutationUpdateIssueSuccess', '{ id key title }')} } }`,
  deleteIssue: `mutation($id: ID!) { deleteIssue(id: $id) { ${result('MutationDeleteIssueSuccess')} } }`,
  updateIssues: `mutation($ids: [ID!]!, $change: IssuesChangeInput!) { updateIssues(ids: $ids, change: $change) { ${result('MutationUpdateIssuesSuccess', '{ id status }')} } }`,
  createIssues: `mutation($issues: [CreateIssueInput!]!) { createIssues(issues: $issues) { ${result('MutationCreateIssuesSuccess', '{ id projectId }')} } }`,
  createApiKey: `mutation($input: CreateApiKeyInput!) { createApiKey(input: $input) { ${result('MutationCreateApiKeySuccess', '{ token apiKey { id ownerId } }')} } }`,
  revokeApiKey: `mutation($id: ID!) { revokeApiKey(id: $id) { ${result('MutationRevokeApiKeySuccess', '{ id status }')} } }`,
  createOrganization: `mutation($input: CreateOrganizationInput!) { createOrganization(input: $input) { ${result('MutationCreateOrganizationSuccess', '{ id role organization { id slug } }')} } }`,
  joinOrganization: `mutation($code: String!) { joinOrganization(code: $code) { ${result('MutationJoinOrganizationSuccess', '{ id }')} } }`,
  createComment: `mutation($issueId: ID!, $input: CreateCommentInput!) { createComment(issueId: $issueId, input: $input) { ${result('MutationCreateCommentSuccess', '{ id issueId authorId }')} } }`,
  updateComment: `mutation($id: ID!, $input: UpdateCommentInput!) { updateComment(id: $id, input: $input) { ${result('MutationUpdateCommentSuccess', '{ id body }')} } }`,
  deleteComment: `mutation($id: ID!) { deleteComment(id: $id) { ${result('MutationDeleteCommentSuccess')} } }`,
  createInvitation: `mutation($role: Role!) { createInvitation(role: $role) { ${result('MutationCreateInvitationSuccess', '{ code invitation { id role } }')} } }`,
};
const g = {
  project: (id: string) => gql(Q.project, { id }),
  issue: (id: string) => gql(Q.issue, { id }),
  node: (id: string) => gql(Q.node, { id }),
  nodes: (ids: string[]) => gql(Q.nodes, { ids }),
  projectIssues: (p: string) => gql(Q.projectIssues, { p }),
  issueAggregates: (p?: string) => gql(Q.issueAggregates, { p }),
  updateProject: (id: string) => gql(M.updateProject, { id, input: { name: 'Renamed by the matrix' } }),
  deleteProject: (id: string) => gql(M.deleteProject, { id, force: true }),
  createIssue: (projectId: string) => gql(M.createIssue, { input: { projectId, title: 'Created by the matrix' } }),
  updateIssue: (id: string) => gql(M.updateIssue, { id, input: { title: 'Patched by the matrix' } }),
  deleteIssue: (id: string) => gql(M.deleteIssue, { id }),
  updateIssues: (ids: string[]) => gql(M.updateIssues, { ids, change: { status: 'IN_REVIEW' } }),
  createIssues: (projectId: string) =>
    gql(M.createIssues, { issues: [{ projectId, title: 'Created in bulk by the matrix' }] }),
  revokeApiKey: (id: string) => gql(M.revokeApiKey, { id }),
  createComment: (issueId: string) => gql(M.createComment, { issueId, input: { body: 'Written by the matrix' } }),
  updateComment: (id: string) => gql(M.updateComment, { id, input: { body: 'Edited by the matrix' } }),
  deleteComment: (id: string) => gql(M.deleteComment, { id }),
};
const edgeIds = (connection: { edges: { node: { id: string } }[] }) => connection.edges.map((e) => e.node.id);

// prettier-ignore
const GRAPHQL: Row[] = [
  //    field                  name                          action    target      anon viewer member manager admin owner oauth session
  graph('me', 'me', 'read', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.me),
    check: (a, c, ok) => {
      if (ok) expect(a.json.data.me.id).toBe(actingUser(c));
    },
  })),
  graph('memberships', 'memberships', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.memberships),
    check: (a, c, ok) => {
      if (ok)
        onlyAcme(
          a.json.data.memberships.map((m: { organization: { id: string } }) => m.organization.id),
          c,
        );
    },
  })),
  graph('projects', 'projects', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.projects),
    check: async (a, _c, ok) => {
      if (ok)
        await allInAcme(
          'project',
          a.json.data.projects.map((p: { id: string }) => p.id),
        );
    },
  })),
  graph('project', 'project(id)', 'read', 'own', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: g.project(web.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.data.project.id).toBe(web.id);
    },
  })),
  graph(
    'project',
    'project(id)',
    'read',
    'foreign',
    [401, NF, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.project(res.id),
    }),
    { missing: () => g.project(MISSING_ID) },
  ),
  graph('issue', 'issue(id)', 'read', 'own', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: g.issue(web1.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.data.issue.key).toBe('WEB-1');
    },
  })),
  graph(
    'issue',
    'issue(id)',
    'read',
    'foreign',
    [401, NF, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.issue(resIssues[0]!.id),
    }),
    { missing: () => g.issue(MISSING_ID) },
  ),
  graph('issue', 'issue(id: key)', 'read', 'own', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: g.issue('WEB-1'),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.data.issue.id).toBe(web1.id);
    },
  })),
  graph(
    'issue',
    'issue(id: key)',
    'read',
    'foreign',
    [401, NF, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.issue('RES-1'),
    }),
    { missing: () => g.issue(MISSING_KEY) },
  ),
  // node(id:) follows Relay: what is not yours to see is null, exactly like what does not exist.
  graph('node', 'node(id)', 'read', 'own', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: g.node(web1.id),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.data.node).toEqual({ __typename: 'Issue', id: web1.id, key: 'WEB-1' });
    },
  })),
  graph(
    'node',
    'node(id)',
    'read',
    'foreign',
    [401, OK, OK, OK, OK, OK, OK, OK],
    () => ({
      req: g.node(resIssues[0]!.id),
      check: (a, _c, ok) => {
        if (ok) expect(a.json.data.node).toBeNull();
      },
    }),
    { missing: () => g.node(MISSING_ID) },
  ),
  graph('nodes', 'nodes(ids)', 'list', 'foreign', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: g.nodes([web.id, res.id, resIssues[0]!.id]),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.data.nodes).toEqual([{ __typename: 'Project', id: web.id }, null, null]);
    },
  })),
  graph('issues', 'issues', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.issues),
    check: async (a, _c, ok) => {
      if (ok) await allInAcme('issue', edgeIds(a.json.data.issues));
    },
  })),
  graph('issues', 'issues(projectId)', 'list', 'own', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: g.projectIssues(web.id),
    check: (a, _c, ok) => {
      if (ok) expect(edgeIds(a.json.data.issues)).toHaveLength(4);
    },
  })),
  graph(
    'issues',
    'issues(projectId)',
    'list',
    'foreign',
    [401, NF, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.projectIssues(res.id),
    }),
    { missing: () => g.projectIssues(MISSING_ID) },
  ),
  graph('issueAggregates', 'issueAggregates', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: g.issueAggregates(),
    check: async (a, _c, ok) => {
      if (ok)
        await allInAcme(
          'project',
          a.json.data.issueAggregates.byProject.map((p: { projectId: string }) => p.projectId),
        );
    },
  })),
  graph(
    'issueAggregates',
    'issueAggregates(projectId)',
    'list',
    'foreign',
    [401, NF, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.issueAggregates(res.id),
    }),
    { missing: () => g.issueAggregates(MISSING_ID) },
  ),
  graph('issueStatuses', 'issueStatuses', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.issueStatuses),
  })),
  graph('issuePriorities', 'issuePriorities', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.issuePriorities),
  })),
  graph('searchPeople', 'searchPeople', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.searchPeople),
    check: (a, c, ok) => {
      if (!ok) return;
      const seesEmail = !['viewer', 'member'].includes(c);
      for (const person of a.json.data.searchPeople) expect(person.email === null).toBe(!seesEmail);
    },
  })),
  graph('paletteSearch', 'paletteSearch', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.paletteSearch),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.data.paletteSearch.map((h: { key: string }) => h.key).sort()).toEqual(['MOB-1', 'WEB-1']);
    },
  })),
  graph('apiKeys', 'apiKeys', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(Q.apiKeys),
    check: async (a, c, ok) => {
      if (!ok) return;
      for (const key of a.json.data.apiKeys) expect(key.ownerId).toBe(actingUser(c));
      await allInAcme(
        'apiKey',
        a.json.data.apiKeys.map((k: { id: string }) => k.id),
      );
    },
  })),
  graph('apiKeys', 'apiKeys(all: true)', 'list', '-', [401, FB, FB, FB, OK, OK, FB, FB], () => ({
    req: gql(Q.apiKeysAll),
    check: async (a, _c, ok) => {
      if (ok)
        await allInAcme(
          'apiKey',
          a.json.data.apiKeys.map((k: { id: string }) => k.id),
        );
    },
  })),
  graph(
    'searchOrganizations',
    'searchOrganizations',
    'list',
    '-',
    [401, FB, FB, FB, FB, FB, OK, OK],
    () => ({
      req: gql(Q.searchOrganizations),
    }),
    { directory: true },
  ),
  graph(
    'issue',
    'issue > project > organization > projects > issues',
    'read',
    'own',
    [401, OK, OK, OK, OK, OK, OK, OK],
    () => ({
      req: gql(Q.nested, { id: web1.id }),
      check: (a, _c, ok) => {
        if (ok) expect([...organizationIds(a.json.data)]).toEqual([acme]);
      },
    }),
  ),

  graph('createProject', 'createProject', 'create', '-', [401, FB, FB, OK, OK, OK, OK, OK], () => ({
    req: gql(M.createProject, { input: { name: 'Matrix new', key: `MG${++seq}` } }),
  })),
  graph('updateProject', 'updateProject', 'update', 'own', [401, FB, FB, OK, OK, OK, OK, OK], async () => {
    const p = await freshProject();
    return { req: g.updateProject(p.id), check: projectUpdated(p.id, `Matrix ${p.key}`) };
  }),
  graph(
    'updateProject',
    'updateProject',
    'update',
    'foreign',
    [401, FB, FB, NF, NF, NF, NF, NF],
    () => ({
      req: g.updateProject(res.id),
    }),
    { missing: () => g.updateProject(MISSING_ID) },
  ),
  graph('deleteProject', 'deleteProject(force: true)', 'delete', 'own', [401, FB, FB, OK, OK, OK, OK, OK], async () => {
    const p = await freshProject();
    return { req: g.deleteProject(p.id), check: projectDeleted(p.id) };
  }),
  graph(
    'deleteProject',
    'deleteProject(force: true)',
    'delete',
    'foreign',
    [401, FB, FB, NF, NF, NF, NF, NF],
    () => ({
      req: g.deleteProject(res.id),
    }),
    { missing: () => g.deleteProject(MISSING_ID) },
  ),
  graph('createIssue', 'createIssue(projectId)', 'create', 'own', [401, FB, OK, OK, OK, OK, OK, OK], () => ({
    req: g.createIssue(scratch.id),
  })),
  graph(
    'createIssue',
    'createIssue(projectId)',
    'create',
    'foreign',
    [401, FB, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.createIssue(res.id),
    }),
    { missing: () => g.createIssue(MISSING_ID) },
  ),
  graph('updateIssue', 'updateIssue(id)', 'update', 'own', [401, FB, OK, OK, OK, OK, OK, OK], async () => {
    const i = await freshIssue();
    return { req: g.updateIssue(i.id), check: issueUpdated(i.id) };
  }),
  graph(
    'updateIssue',
    'updateIssue(id)',
    'update',
    'foreign',
    [401, FB, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.updateIssue(resIssues[1]!.id),
    }),
    { missing: () => g.updateIssue(MISSING_ID) },
  ),
  graph('updateIssues', 'updateIssues(ids)', 'update', 'own', [401, FB, OK, OK, OK, OK, OK, OK], async () => {
    const i = await freshIssue();
    return { req: g.updateIssues([i.id]), check: issueBulkChanged(i.id) };
  }),
  graph(
    'updateIssues',
    'updateIssues(ids)',
    'update',
    'foreign',
    [401, FB, VF, VF, VF, VF, VF, VF],
    () => ({
      req: g.updateIssues([resIssues[1]!.id]),
    }),
    { missing: () => g.updateIssues([MISSING_ID]) },
  ),
  graph('createIssues', 'createIssues(projectId)', 'create', 'own', [401, FB, OK, OK, OK, OK, OK, OK], () => ({
    req: g.createIssues(scratch.id),
  })),
  graph(
    'createIssues',
    'createIssues(projectId)',
    'create',
    'foreign',
    [401, FB, VF, VF, VF, VF, VF, VF],
    () => ({
      req: g.createIssues(res.id),
    }),
    { missing: () => g.createIssues(MISSING_ID) },
  ),
  graph('updateIssue', 'updateIssue(id: key)', 'update', 'own', [401, FB, OK, OK, OK, OK, OK, OK], async () => {
    const i = await freshIssue();
    return { req: g.updateIssue(i.key), check: issueUpdated(i.id) };
  }),
  graph(
    'updateIssue',
    'updateIssue(id: key)',
    'update',
    'foreign',
    [401, FB, NF, NF, NF, NF, NF, NF],
    () => ({
      req: g.updateIssue('RES-2'),
    }),
    { missing: () => g.updateIssue(MISSING_KEY) },
  ),
  graph('deleteIssue', 'deleteIssue(id)', 'delete', 'own', [401, FB, FB, OK, OK, OK, OK, OK], async () => {
    const i = await freshIssue();
    return { req: g.deleteIssue(i.id), check: issueDeleted(i.id) };
  }),
  graph(
    'deleteIssue',
    'deleteIssue(id)',
    'delete',
    'foreign',
    [401, FB, FB, NF, NF, NF, NF, NF],
    () => ({
      req: g.deleteIssue(resIssues[2]!.id),
    }),
    { missing: () => g.deleteIssue(MISSING_ID) },
  ),
  graph('deleteIssue', 'deleteIssue(id: key)', 'delete', 'own', [401, FB, FB, OK, OK, OK, OK, OK], async () => {
    const i = await freshIssue();
    return { req: g.deleteIssue(i.key), check: issueDeleted(i.id) };
  }),
  graph('createComment', 'createComment(issueId)', 'create', 'own', [401, FB, OK, OK, OK, OK, OK, OK], () => ({
    req: g.createComment(scratchIssue.key),
  })),
  graph(
    'createComment',
    'createComment(issueId)',
    'create',
    'foreign',
    [401, FB, NF, NF, NF, NF, NF, NF],
    () => ({ req: g.createComment(resIssues[0]!.id) }),
    { missing: () => g.createComment(MISSING_ID) },
  ),
  graph('updateComment', 'updateComment(id)', 'update', 'own', [401, FB, OK, OK, OK, OK, OK, OK], async (c) => {
    const id = await freshComment(actingUser(c));
    return { req: g.updateComment(id), check: commentEdited(id) };
  }),
  graph('updateComment', 'updateComment(id)', 'update', 'colleague', [401, FB, FB, FB, OK, OK, FB, FB], async (c) => {
    const id = await freshComment(colleagueOf(c));
    return { req: g.updateComment(id), check: commentEdited(id) };
  }),
  graph(
    'updateComment',
    'updateComment(id)',
    'update',
    'foreign',
    [401, FB, NF, NF, NF, NF, NF, NF],
    () => ({ req: g.updateComment(globexComment) }),
    { missing: () => g.updateComment(MISSING_ID) },
  ),
  graph('deleteComment', 'deleteComment(id)', 'delete', 'own', [401, FB, OK, OK, OK, OK, OK, OK], async (c) => {
    const id = await freshComment(actingUser(c));
    return { req: g.deleteComment(id), check: commentDeleted(id) };
  }),
  graph('deleteComment', 'deleteComment(id)', 'delete', 'colleague', [401, FB, FB, FB, OK, OK, FB, FB], async (c) => {
    const id = await freshComment(colleagueOf(c));
    return { req: g.deleteComment(id), check: commentDeleted(id) };
  }),
  graph(
    'deleteComment',
    'deleteComment(id)',
    'delete',
    'foreign',
    [401, FB, NF, NF, NF, NF, NF, NF],
    () => ({ req: g.deleteComment(globexComment) }),
    { missing: () => g.deleteComment(MISSING_ID) },
  ),
  graph(
    'deleteIssue',
    'deleteIssue(id: key)',
    'delete',
    'foreign',
    [401, FB, FB, NF, NF, NF, NF, NF],
    () => ({
      req: g.deleteIssue('RES-3'),
    }),
    { missing: () => g.deleteIssue(MISSING_KEY) },
  ),
  graph('createApiKey', 'createApiKey', 'create', '-', [401, FB, FB, FB, FB, FB, OK, OK], () => ({
    req: gql(M.createApiKey, { input: { name: 'matrix' } }),
    check: (a, c, ok) => {
      if (ok) expect(a.json.data.createApiKey.data.apiKey.ownerId).toBe(actingUser(c));
    },
  })),
  graph('revokeApiKey', 'revokeApiKey (own key)', 'delete', 'own', [401, FB, FB, FB, FB, FB, OK, OK], async (c) => {
    const id = await ownKey(c);
    return { req: g.revokeApiKey(id), check: keyRevokedIff(id) };
  }),
  graph(
    'revokeApiKey',
    "revokeApiKey (another member's key)",
    'delete',
    'colleague',
    [401, FB, FB, FB, FB, FB, NF, NF],
    async (c) => {
      const id = await colleagueKey(c);
      return { req: g.revokeApiKey(id), check: keyRevokedIff(id) };
    },
  ),
  graph(
    'revokeApiKey',
    'revokeApiKey',
    'delete',
    'foreign',
    [401, FB, FB, FB, FB, FB, NF, NF],
    () => ({
      req: g.revokeApiKey(bellaKey),
    }),
    { missing: () => g.revokeApiKey(MISSING_ID) },
  ),
  graph('createOrganization', 'createOrganization', 'create', '-', [401, FB, FB, FB, FB, FB, OK, OK], () => ({
    req: gql(M.createOrganization, { input: { name: 'Matrix Org', slug: `matrix-org-${++seq}` } }),
  })),
  graph(
    'joinOrganization',
    'joinOrganization (unknown code)',
    'create',
    '-',
    [401, FB, FB, FB, FB, FB, NF, NF],
    () => ({
      req: gql(M.joinOrganization, { code: 'inv_no-such-code' }),
    }),
  ),
  graph('createInvitation', 'createInvitation', 'create', '-', [401, FB, FB, FB, OK, OK, FB, FB], () => ({
    req: gql(M.createInvitation, { role: 'viewer' }),
  })),
  graph('webhooks', 'webhooks', 'list', '-', [401, FB, FB, FB, OK, OK, FB, FB], () => ({
    req: gql('{ webhooks { id url } }'),
  })),
  graph('webhook', 'webhook', 'read', 'own', [401, FB, FB, FB, OK, OK, FB, FB], () => ({
    req: gql(`query($id: ID!) { webhook(id: $id) { ${result('QueryWebhookSuccess', '{ id }')} } }`, { id: acmeHook }),
  })),
  graph(
    'webhook',
    'webhook',
    'read',
    'foreign',
    [401, FB, FB, FB, NF, NF, FB, FB],
    () => ({
      req: gql(`query($id: ID!) { webhook(id: $id) { ${result('QueryWebhookSuccess', '{ id }')} } }`, {
        id: globexHook,
      }),
    }),
    {
      missing: () =>
        gql(`query($id: ID!) { webhook(id: $id) { ${result('QueryWebhookSuccess', '{ id }')} } }`, { id: MISSING_ID }),
    },
  ),
  graph('createWebhook', 'createWebhook', 'create', '-', [401, FB, FB, FB, OK, OK, FB, FB], () => ({
    req: gql(
      `mutation { createWebhook(input: { url: "https://93.184.215.14/new", events: ["*"] }) { ${result('MutationCreateWebhookSuccess', '{ secret }')} } }`,
    ),
  })),
  graph(
    'updateWebhook',
    'updateWebhook',
    'update',
    'foreign',
    [401, FB, FB, FB, NF, NF, FB, FB],
    () => ({
      req: gql(
        `mutation($id: ID!) { updateWebhook(id: $id, input: { description: "x" }) { ${result('MutationUpdateWebhookSuccess', '{ secret }')} } }`,
        { id: globexHook },
      ),
    }),
    {
      missing: () =>
        gql(
          `mutation($id: ID!) { updateWebhook(id: $id, input: { description: "x" }) { ${result('MutationUpdateWebhookSuccess', '{ secret }')} } }`,
          { id: MISSING_ID },
        ),
    },
  ),
  graph('deleteWebhook', 'deleteWebhook', 'delete', 'own', [401, FB, FB, FB, OK, OK, FB, FB], async () => {
    const id = await freshHook();
    return {
      req: gql(`mutation($id: ID!) { deleteWebhook(id: $id) { ${result('MutationDeleteWebhookSuccess')} } }`, { id }),
      check: async (_a, _c, ok) => expect(await db().webhook.count({ where: { id } })).toBe(ok ? 0 : 1),
    };
  }),
  graph('pingWebhook', 'pingWebhook', 'create', 'foreign', [401, FB, FB, FB, NF, NF, FB, FB], () => ({
    req: gql(`mutation($id: ID!) { pingWebhook(id: $id) { ${result('MutationPingWebhookSuccess', '{ id }')} } }`, {
      id: globexHook,
    }),
  })),
  graph(
    'redeliverWebhookDelivery',
    'redeliverWebhookDelivery',
    'create',
    'own',
    [401, FB, FB, FB, OK, OK, FB, FB],
    () => ({
      req: gql(
        `mutation($w: ID!, $d: ID!) { redeliverWebhookDelivery(webhookId: $w, deliveryId: $d) { ${result('MutationRedeliverWebhookDeliverySuccess', '{ id }')} } }`,
        { w: acmeHook, d: acmeDelivery },
      ),
    }),
  ),
  graph('labels', 'labels', 'list', '-', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql('{ labels { id name color } }'),
    check: (a, _c, ok) => {
      if (ok) expect(a.json.data.labels.map((l: { id: string }) => l.id)).toContain(acmeLabel.id);
    },
  })),
  graph('label', 'label', 'read', 'own', [401, OK, OK, OK, OK, OK, OK, OK], () => ({
    req: gql(L.label, { id: acmeLabel.id }),
  })),
  graph(
    'label',
    'label',
    'read',
    'foreign',
    [401, NF, NF, NF, NF, NF, NF, NF],
    () => ({ req: gql(L.label, { id: globexLabel.id }) }),
    { missing: () => gql(L.label, { id: MISSING_ID }) },
  ),
  graph('createLabel', 'createLabel', 'create', '-', [401, FB, FB, OK, OK, OK, OK, OK], () => ({
    req: gql(L.createLabel, { input: { name: `matrix-gql-${++seq}`, color: '#abcdef' } }),
  })),
  graph('updateLabel', 'updateLabel', 'update', 'own', [401, FB, FB, OK, OK, OK, OK, OK], async () => {
    const label = await freshLabel();
    return {
      req: gql(L.updateLabel, { id: label.id, input: { name: `${label.name}-x` } }),
      check: async (_a, _c, ok) => expect(await labelName(label.id)).toBe(ok ? `${label.name}-x` : label.name),
    };
  }),
  graph(
    'updateLabel',
    'updateLabel',
    'update',
    'foreign',
    [401, FB, FB, NF, NF, NF, NF, NF],
    () => ({ req: gql(L.updateLabel, { id: globexLabel.id, input: { color: '#000000' } }) }),
    { missing: () => gql(L.updateLabel, { id: MISSING_ID, input: { color: '#000000' } }) },
  ),
  graph('deleteLabel', 'deleteLabel', 'delete', 'own', [401, FB, FB, OK, OK, OK, OK, OK], async () => {
    const label = await freshLabel();
    return {
      req: gql(L.deleteLabel, { id: label.id }),
      check: async (_a, _c, ok) => expect(await labelName(label.id)).toBe(ok ? null : label.name),
    };
  }),
  graph(
    'deleteLabel',
    'deleteLabel',
    'delete',
    'foreign',
    [401, FB, FB, NF, NF, NF, NF, NF],
    () => ({ req: gql(L.deleteLabel, { id: globexLabel.id }) }),
    { missing: () => gql(L.deleteLabel, { id: MISSING_ID }) },
  ),
  ...(['addIssueLabels', 'removeIssueLabels', 'setIssueLabels'] as const).flatMap((field) => [
    graph(field, field, 'update', 'own', [401, FB, OK, OK, OK, OK, OK, OK], async () => {
      const issue = await labelledIssue(field === 'removeIssueLabels');
      return { req: gql(L.issueLabels(field), { id: issue.id, labels: [acmeLabel.name] }) };
    }),
    graph(
      field,
      field,
      'update',
      'foreign',
      [401, FB, NF, NF, NF, NF, NF, NF],
      () => ({ req: gql(L.issueLabels(field), { id: resIssues[0]!.id, labels: [] }) }),
      { missing: () => gql(L.issueLabels(field), { id: MISSING_ID, labels: [] }) },
    ),
  ]),
];

// ---------------------------------------------------------------------------------------------
// MCP: every REST row whose route is also a tool (src/rest/routes: `tool`) is asked again as a
// tools/call to /api/mcp, with the same arguments and the same expected answer per caller. The
// tool's result is read as the REST answer it stands for: an error result's problem gives the
// status and body, a success gives the route's status and its structured content (a list's items).

/** The tool route a REST request goes to, with its path parameters. */
function toolRoute(method: string, pathname: string) {
  for (const route of ROUTES) {
    if (!route.tool || route.method !== method.toLowerCase()) continue;
    const names: string[] = [];
    const source = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    const pattern = new RegExp(`^/api${source}$`);
    const match = pattern.exec(pathname);
    if (match)
      return { route, params: Object.fromEntries(names.map((name, i) => [name, decodeURIComponent(match[i + 1]!)])) };
  }
  return null;
}

/** A tools/call as a 2026-07-28 client sends it: its version in `_meta`, its method and tool in headers. */
function modernCall(name: string, args: object) {
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  return {
    headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
    params: { name, arguments: args, _meta },
  };
}

async function sendMcp(caller: Caller, req: Req, modern: boolean): Promise<Answer> {
  const url = new URL(req.path, ORIGIN);
  const target = toolRoute(req.method, url.pathname)!;
  const query: Record<string, string | string[]> = {};
  for (const name of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  const args = { ...target.params, ...query, ...(req.body as object) };
  const name = target.route.tool!.name;
  const call = modern ? modernCall(name, args) : { headers: {}, params: { name, arguments: args } };
  const raw = await sendRaw(
    t,
    {
      method: 'POST',
      path: '/api/mcp',
      headers: { accept: 'application/json, text/event-stream', ...call.headers },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: call.params },
    },
    credentials(caller),
  );
  if (raw.status !== 200) return raw;
  const toolResult = raw.json?.result as
    | { isError?: boolean; content: { text: string }[]; structuredContent?: { items?: unknown } }
    | undefined;
  if (!toolResult) return { ...raw, status: 500 };
  if (toolResult.isError) {
    const problem = JSON.parse(toolResult.content[0]!.text);
    return { ...raw, status: problem.status, json: problem };
  }
  const content = toolResult.structuredContent;
  return {
    ...raw,
    status: target.route.success.status,
    json: content && 'items' in content ? content.items : (content ?? null),
  };
}

const MCP: Row[] = REST.filter((row) => {
  const [method, path] = row.name.split(' ');
  return toolRoute(method!, path!.replace(/:\w+/g, 'x').replace(/\?.*$/, '')) !== null;
}).map((row) => ({
  ...row,
  surface: 'MCP',
  name: `MCP ${toolRoute(row.name.split(' ')[0]!, row.name.split(' ')[1]!.replace(/:\w+/g, 'x').replace(/\?.*$/, ''))!.route.tool!.name} (as ${row.name})`,
}));
/** The same rows in protocol 2026-07-28: the era changes how a call is framed, never who may do what. */
const MCP_2026: Row[] = MCP.map((row) => ({ ...row, surface: 'MCP 2026', name: row.name.replace(/^MCP/, 'MCP 2026') }));
const isMcp = (row: Row) => row.surface === 'MCP' || row.surface === 'MCP 2026';

async function runRow(row: Row) {
  const failures: string[] = [];
  for (const [i, caller] of CALLERS.entries()) {
    tick();
    matrixCells++;
    const expected = row.expect[i]!;
    const { req, check } = await row.cell(caller);
    const answer = isMcp(row) ? await sendMcp(caller, req, row.surface === 'MCP 2026') : await send(caller, req);
    const got = row.surface === 'GraphQL' ? gqlOutcome(answer, row.field!) : answer.status;
    const say = (message: string) => failures.push(`${caller}: ${message}`);
    if (got !== expected) say(`expected ${expected}, got ${got}: ${answer.text.slice(0, 300)}`);
    if (row.surface === 'GraphQL' && caller !== 'anonymous') {
      if (answer.status !== 200) say(`HTTP ${answer.status}`);
      // A refusal carries no data: a thrown error nulls the whole result, a typed error has no `data`.
      const value = answer.json?.data?.[row.field!];
      if (got !== 'ok' && value && typeof value === 'object' && 'data' in value) say('data returned with an error');
    }
    const leaks = leaksIn(answer.text, row.directory);
    if (leaks.length) say(`foreign data in the answer: ${leaks.join(', ')}`);
    if (row.missing) {
      const twin = isMcp(row)
        ? await sendMcp(caller, row.missing(), row.surface === 'MCP 2026')
        : await send(caller, row.missing());
      if (!sameAnswer(answer, twin))
        say(
          `a foreign object is told apart from a missing one: ${answer.status} ${answer.text} / ${twin.status} ${twin.text}`,
        );
    }
    try {
      const ok = row.surface === 'GraphQL' ? got === 'ok' : answer.status >= 200 && answer.status < 300;
      await check?.(answer, caller, ok);
    } catch (error) {
      say((error as Error).message);
    }
  }
  expect(failures).toEqual([]);
}

beforeAll(async () => {
  t = await startTestApp({}, { limiterStore: new MemoryStore({ now: () => clock }) });
  acme = t.org('acme').id;
  globex = t.org('globex').id;
  for (const name of Object.keys(uid) as (keyof typeof uid)[])
    uid[name] = t.user(name, name === 'bella' ? 'globex' : 'acme').id;
  pats.viewer = t.user('victor').token;
  pats.member = t.user('mark').token;
  pats.manager = t.user('maya').token;
  pats.admin = t.user('adam').token;
  pats.owner = t.user('olivia').token;
  markGlobexPat = t.user('mark', 'globex').token;
  bellaPat = t.user('bella', 'globex').token;
  mayaCookie = await t.signIn('maya@example.com');
  markCookie = await t.signIn('mark@example.com');
  oauthToken = (await obtainTokens(t.app, mayaCookie, acme, 'read write')).tokens.access_token!;
  markOAuthToken = (await obtainTokens(t.app, markCookie, acme, 'read write')).tokens.access_token!;

  const webProject = t.org('acme').projects.find((p) => p.key === 'WEB')!;
  web = { id: webProject.id, key: 'WEB' };
  web1 = { id: (await db().issue.findFirstOrThrow({ where: { projectId: web.id, number: 1 } })).id, key: 'WEB-1' };
  res = { id: t.org('globex').projects.find((p) => p.key === 'RES')!.id, key: 'RES' };
  resIssues = (await db().issue.findMany({ where: { orgId: globex }, orderBy: { number: 'asc' } })).map((i) => ({
    id: i.id,
    key: `RES-${i.number}`,
  }));
  expect(resIssues.map((i) => i.key)).toEqual(['RES-1', 'RES-2', 'RES-3', 'RES-4']);
  const globexKeys = await db().apiKey.findMany({ where: { orgId: globex } });
  bellaKey = globexKeys.find((k) => k.userId === uid.bella)!.id;
  markGlobexKey = globexKeys.find((k) => k.userId === uid.mark)!.id;
  acmeHook = await freshHook();
  globexHook = await freshHook(globex);
  acmeDelivery = (
    await db().webhookDelivery.create({
      data: {
        webhookId: acmeHook,
        orgId: acme,
        messageId: 'matrix',
        eventType: 'webhook.ping',
        payload: '{}',
        state: 'failed',
        nextAttemptAt: new Date(),
      },
    })
  ).id;
  globexComment = await freshComment(uid.bella, resIssues[0]!.id, globex);
  acmeLabel = await freshLabel();
  globexLabel = await freshLabel(globex, 'gx-only-label');
  FOREIGN = [
    res.id,
    ...resIssues.map((i) => i.id),
    uid.bella,
    ...globexKeys.map((k) => k.id),
    globexHook,
    globexComment,
    globexLabel.id,
    globexLabel.name,
  ];

  tick();
  const created = await send('owner', {
    method: 'POST',
    path: '/api/projects',
    body: { name: 'Matrix scratch', key: 'MTX' },
  });
  expect(created.status).toBe(201);
  scratch = created.json;
  scratchIssue = await freshIssue();
  globexBefore = await globexState();
});

afterAll(async () => {
  console.info(
    `isolation matrix: ${REST.length} REST rows + ${MCP.length} MCP rows (each in both eras) + ${GRAPHQL.length} GraphQL rows = ${REST.length + 2 * MCP.length + GRAPHQL.length} rows x ${CALLERS.length} callers = ` +
      `${matrixCells} cells (each foreign cell also compared with a missing id), plus ${furtherChecks} further checks`,
  );
  await t?.close();
});

describe('the foreign fixtures are real (positive controls)', () => {
  test("globex's own credentials reach every foreign object the matrix aims at", async () => {
    const bella = { authorization: `Bearer ${bellaPat}` };
    const reads: Req[] = [
      projectReq.read(res.id),
      get(`/api/issues?project_id=${res.id}`),
      ...resIssues.flatMap((i) => [issueReq.read(i.id), issueReq.read(i.key)]),
      g.project(res.id),
      g.issue('RES-1'),
    ];
    for (const req of reads) {
      tick();
      furtherChecks++;
      const answer = await sendAs(bella, req);
      expect(answer.status, req.path).toBe(200);
      if (req.path === '/api/graphql')
        expect(gqlOutcome(answer, 'project' in answer.json.data ? 'project' : 'issue')).toBe('ok');
    }
    const keys = await sendAs({ authorization: `Bearer ${markGlobexPat}` }, get('/api/api-keys'));
    expect(keys.json.map((k: { id: string }) => k.id)).toEqual([markGlobexKey]);
    // Mark's session acting in globex (he is a member there) reads globex's issue by key.
    const asGlobexMember = await sendAs({ cookie: markCookie, 'x-org-id': globex }, issueReq.read('RES-1'));
    expect(asGlobexMember.status).toBe(200);
    expect(asGlobexMember.json.id).toBe(resIssues[0]!.id);
    furtherChecks += 2;
  });
});

describe('REST matrix', () => {
  for (const row of REST) test(`${row.name} [${row.action}, ${row.target}]`, () => runRow(row));
});

describe('MCP matrix (the tools, with the answers of their REST routes)', () => {
  test('every tool has rows', () => {
    const tools = new Set(MCP.map((row) => row.name.split(' ')[1]));
    expect([...tools].sort()).toEqual(
      ROUTES.filter((route) => route.tool)
        .map((route) => route.tool!.name)
        .sort(),
    );
  });
  for (const row of MCP) test(`${row.name} [${row.action}, ${row.target}]`, () => runRow(row));
});

describe('MCP matrix in protocol 2026-07-28 (the same rows, the same answers)', () => {
  for (const row of MCP_2026) test(`${row.name} [${row.action}, ${row.target}]`, () => runRow(row));
});

describe('GraphQL matrix', () => {
  test('every query and mutation of schema.graphql has a row', async () => {
    const sdl = await import('node:fs/promises').then((fs) =>
      fs.readFile(new URL('../schema.graphql', import.meta.url), 'utf8'),
    );
    const fieldsOf = (type: string) =>
      [
        ...new RegExp(`type ${type} \\{([\\s\\S]*?)\\n\\}`)
          .exec(sdl)![1]!
          .replace(/"""[\s\S]*?"""/g, '')
          .matchAll(/^ {2}(\w+)[(:]/gm),
      ].map((m) => m[1]);
    const covered = new Set(GRAPHQL.map((row) => row.field));
    expect([...fieldsOf('Query'), ...fieldsOf('Mutation')].filter((f) => !covered.has(f))).toEqual([]);
  });
  for (const row of GRAPHQL) test(`${row.name} [${row.action}, ${row.target}]`, () => runRow(row));
});

describe('nested selections stay in the organization of the credential', () => {
  const DEEP = `{ memberships(first: 1) { id role organization { id slug projects(first: 100) { id key organization { id }
    issues(first: 5) { edges { node { id key projectId project { organization { id } } assignee { id } } } } } } } }`;
  const credentialsToCheck = (): [string, Record<string, string>, boolean][] => [
    ...(['viewer', 'member', 'manager', 'admin', 'owner'] as const).map(
      (c): [string, Record<string, string>, boolean] => [`${c} PAT`, credentials(c), true],
    ),
    ['OAuth token of maya (acme)', credentials('oauth'), true],
    // Mark is a member of globex too: his acme-bound token must still see acme only.
    ['OAuth token of mark bound to acme', { authorization: `Bearer ${markOAuthToken}` }, true],
    ['session of maya', credentials('session'), false],
  ];

  test('memberships > organization > projects > issues > project > organization: acme only', async () => {
    for (const [name, headers, bound] of credentialsToCheck()) {
      tick();
      furtherChecks++;
      const answer = await sendAs(headers, gql(DEEP));
      expect(answer.status, name).toBe(200);
      expect(answer.json.errors, name).toBeUndefined();
      expect(leaksIn(answer.text), name).toEqual([]);
      const orgs = organizationIds(answer.json.data);
      expect(orgs.has(globex), name).toBe(false);
      if (bound) {
        expect([...orgs], name).toEqual([acme]);
        expect(answer.json.data.memberships, name).toHaveLength(1);
      }
      const issueIds = answer.json.data.memberships
        .filter((m: { organization: { id: string } }) => m.organization.id === acme)
        .flatMap((m: { organization: { projects: { issues: { edges: { node: { id: string } }[] } }[] } }) =>
          m.organization.projects.flatMap((p) => edgeIds(p.issues)),
        );
      // The query is bounded (cost limit), so which of acme's issues it shows depends on the page; some must show.
      expect(issueIds.length, name).toBeGreaterThan(0);
    }
  });

  test('the same for REST /api/me/orgs and /api/orgs of mark, who is in both organizations', async () => {
    for (const [name, headers] of [
      ["mark's acme PAT", { authorization: `Bearer ${pats.member}` }],
      ["mark's acme OAuth token", { authorization: `Bearer ${markOAuthToken}` }],
    ] as const) {
      for (const path of ['/api/me/orgs', '/api/orgs']) {
        tick();
        furtherChecks++;
        const answer = await sendAs(headers, get(path));
        expect(answer.status, `${name} ${path}`).toBe(200);
        expect(leaksIn(answer.text), `${name} ${path}`).toEqual([]);
        expect(answer.json.count).toBe(1);
      }
    }
  });

  // FINDING: Organization.projects is a plain relation, so the public directory
  // (searchOrganizations, open to OAuth tokens and sessions) hands out another organization's
  // projects, their issues and their assignees' email addresses.
  test('searchOrganizations never reaches into another organization (projects, issues, people)', async () => {
    const query = `{ searchOrganizations(q: "globex") { id slug projects { id key issueCount
      issues(first: 100) { edges { node { id title description assignee { id email } } } } } } }`;
    for (const caller of ['oauth', 'session'] as const) {
      tick();
      furtherChecks++;
      const answer = await send(caller, gql(query));
      expect(answer.status, caller).toBe(200);
      // The directory may name globex; never its contents.
      expect(leaksIn(answer.text, true), caller).toEqual([]);
    }
  });
});

describe('bodies cannot set an organization, a user or a role', () => {
  const SMUGGLED = (): Record<string, [unknown, string]> => ({
    org_id: [globex, 'org_id'],
    // Named as the client sent it: the body is snake_case, and a camelCase name is simply unknown.
    orgId: [globex, 'orgId'],
    role: ['owner', 'role'],
    user_id: [uid.bella, 'user_id'],
  });
  const routes = (): { name: string; req: (extra: Record<string, unknown>) => Req; callers: Caller[] }[] => [
    {
      name: 'POST /api/issues',
      req: (x) => ({ method: 'POST', path: '/api/issues', body: { project_id: scratch.id, title: 'smuggled', ...x } }),
      callers: ['member', 'owner', 'oauth', 'session'],
    },
    {
      name: 'PATCH /api/issues/:id',
      req: (x) => ({ method: 'PATCH', path: `/api/issues/${scratchIssue.id}`, body: { title: 'smuggled', ...x } }),
      callers: ['member', 'owner', 'oauth', 'session'],
    },
    {
      name: 'POST /api/projects',
      req: (x) => ({ method: 'POST', path: '/api/projects', body: { name: 'Smuggled', key: `SM${++seq}`, ...x } }),
      callers: ['owner', 'oauth', 'session'],
    },
    {
      name: 'PUT /api/projects/:id',
      req: (x) => ({ method: 'PUT', path: `/api/projects/${scratch.id}`, body: { name: 'Smuggled', ...x } }),
      callers: ['owner', 'oauth', 'session'],
    },
    {
      name: 'POST /api/api-keys',
      req: (x) => ({ method: 'POST', path: '/api/api-keys', body: { name: 'smuggled', ...x } }),
      callers: ['oauth', 'session'],
    },
  ];

  async function counts() {
    const p = db();
    return {
      projects: await p.project.count(),
      issues: await p.issue.count(),
      keys: await p.apiKey.count(),
      memberships: await p.membership.count(),
    };
  }

  test('org_id, orgId, role and user_id in create and update bodies: 400, and nothing changes', async () => {
    const before = await counts();
    const failures: string[] = [];
    for (const route of routes()) {
      for (const [field, [value, reported]] of Object.entries(SMUGGLED())) {
        for (const caller of route.callers) {
          tick();
          furtherChecks++;
          const answer = await send(caller, route.req({ [field]: value }));
          const errors = answer.json?.errors ?? [];
          if (
            answer.status !== 400 ||
            answer.json?.code !== 'validation_failed' ||
            !errors.some(
              (e: { field: string; message: string }) => e.field === reported && e.message === 'is not a known field',
            )
          ) {
            failures.push(`${route.name} {${field}} as ${caller}: ${answer.status} ${answer.text.slice(0, 200)}`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
    expect(await counts()).toEqual(before);
    expect(await projectName(scratch.id)).toBe('Matrix scratch');
    expect(await issueTitle(scratchIssue.id)).toBe('Matrix fixture');
  });

  test('server-owned fields (id, number, key, issue_count, project_id after creation): 400', async () => {
    const cases: [string, Req][] = [
      [
        'PATCH issue project_id (foreign project)',
        { method: 'PATCH', path: `/api/issues/${scratchIssue.id}`, body: { project_id: res.id } },
      ],
      [
        'PATCH issue project_id (own project)',
        { method: 'PATCH', path: `/api/issues/${scratchIssue.id}`, body: { project_id: web.id } },
      ],
      ['PATCH issue id', { method: 'PATCH', path: `/api/issues/${scratchIssue.id}`, body: { id: resIssues[0]!.id } }],
      ['PATCH issue number', { method: 'PATCH', path: `/api/issues/${scratchIssue.id}`, body: { number: 1 } }],
      ['PATCH issue key', { method: 'PATCH', path: `/api/issues/${scratchIssue.id}`, body: { key: 'RES-1' } }],
      [
        'POST issue id',
        { method: 'POST', path: '/api/issues', body: { project_id: scratch.id, title: 'x', id: resIssues[0]!.id } },
      ],
      [
        'POST issue number',
        { method: 'POST', path: '/api/issues', body: { project_id: scratch.id, title: 'x', number: 1 } },
      ],
      [
        'POST project id',
        { method: 'POST', path: '/api/projects', body: { name: 'x', key: `SI${++seq}`, id: res.id } },
      ],
      ['PUT project id', { method: 'PUT', path: `/api/projects/${scratch.id}`, body: { id: res.id } }],
      ['PUT project issue_count', { method: 'PUT', path: `/api/projects/${scratch.id}`, body: { issue_count: 0 } }],
    ];
    const before = await counts();
    for (const [name, req] of cases) {
      tick();
      furtherChecks++;
      const answer = await send('owner', req);
      expect(answer.status, name).toBe(400);
      expect(answer.json.code, name).toBe('validation_failed');
    }
    expect(await counts()).toEqual(before);
    expect((await db().issue.findUniqueOrThrow({ where: { id: scratchIssue.id } })).projectId).toBe(scratch.id);
  });

  test('GraphQL input literals with orgId, role or userId fail validation and run nothing', async () => {
    const documents: [string, string][] = [
      ['createIssue', `mutation { createIssue(input: { projectId: "${MISSING_ID}", title: "x", %s }) { __typename } }`],
      ['updateIssue', `mutation { updateIssue(id: "${MISSING_ID}", input: { title: "x", %s }) { __typename } }`],
      ['createProject', 'mutation { createProject(input: { name: "x", key: "SMX", %s }) { __typename } }'],
      ['updateProject', `mutation { updateProject(id: "${MISSING_ID}", input: { name: "x", %s }) { __typename } }`],
      ['createApiKey', 'mutation { createApiKey(input: { name: "x", %s }) { __typename } }'],
    ];
    const before = await counts();
    for (const [name, template] of documents) {
      for (const field of [`orgId: "${globex}"`, 'role: "owner"', `userId: "${uid.bella}"`]) {
        tick();
        furtherChecks++;
        const answer = await send('session', gql(template.replace('%s', field)));
        expect(answer.status, `${name} ${field}`).toBe(200);
        expect(answer.json.data, `${name} ${field}`).toBeUndefined();
        expect(answer.json.errors[0].extensions.code, `${name} ${field}`).toBe('GRAPHQL_VALIDATION_FAILED');
      }
    }
    expect(await counts()).toEqual(before);
  });

  // FINDING: through variables, the unknown field is a variable coercion error, which the
  // error masking of src/graphql/yoga.ts treats as unexpected: "Unexpected error." with code
  // INTERNAL_SERVER_ERROR, logged as a server error. It is refused (nothing runs), but as our
  // fault rather than the client's.
  test('GraphQL variables with orgId, role or userId are refused as a client error, and run nothing', async () => {
    const cases: [string, string, Record<string, unknown>][] = [
      ['createIssue', M.createIssue, { input: { projectId: scratch.id, title: 'x', orgId: globex } }],
      ['updateIssue', M.updateIssue, { id: scratchIssue.id, input: { title: 'x', role: 'owner' } }],
      ['createProject', M.createProject, { input: { name: 'x', key: 'SMV', orgId: globex } }],
      ['updateProject', M.updateProject, { id: scratch.id, input: { name: 'x', orgId: globex } }],
      ['createApiKey', M.createApiKey, { input: { name: 'x', userId: uid.bella } }],
    ];
    const before = await counts();
    const failures: string[] = [];
    for (const [name, query, variables] of cases) {
      tick();
      furtherChecks++;
      const answer = await send('session', gql(query, variables));
      const code = answer.json?.errors?.[0]?.extensions?.code;
      if (answer.json?.data || !code || code === 'INTERNAL_SERVER_ERROR')
        failures.push(`${name}: ${answer.status} ${answer.text.slice(0, 200)}`);
    }
    expect(await counts()).toEqual(before);
    expect(failures).toEqual([]);
  });
});

describe('X-Org-Id cannot switch organizations', () => {
  const pat = (token: string) => ({ authorization: `Bearer ${token}` });
  const session = (cookie: string, orgId?: string) => ({
    cookie,
    origin: ORIGIN,
    ...(orgId === undefined ? {} : { 'x-org-id': orgId }),
  });
  const cases = (): { name: string; headers: Record<string, string>; req: Req; status: number; code: string }[] => [
    {
      name: "manager's PAT with X-Org-Id of globex",
      headers: { ...pat(pats.manager), 'x-org-id': globex },
      req: get('/api/projects'),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: "mark's acme PAT with X-Org-Id of globex (he is a member there): read",
      headers: { ...pat(pats.member), 'x-org-id': globex },
      req: issueReq.read(resIssues[0]!.id),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: "mark's acme PAT with X-Org-Id of globex: update",
      headers: { ...pat(pats.member), 'x-org-id': globex },
      req: issueReq.update(resIssues[0]!.id),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: "owner's PAT with X-Org-Id of globex: delete a project",
      headers: { ...pat(pats.owner), 'x-org-id': globex },
      req: projectReq.delete(res.id),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: 'PAT with an X-Org-Id that is not a UUID',
      headers: { ...pat(pats.owner), 'x-org-id': 'acme' },
      req: get('/api/projects'),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: 'PAT with an X-Org-Id listing both organizations',
      headers: { ...pat(pats.owner), 'x-org-id': `${acme}, ${globex}` },
      req: get('/api/projects'),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: 'PAT with X-Org-Id of globex on GraphQL',
      headers: { ...pat(pats.owner), 'x-org-id': globex },
      req: gql(Q.projects),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: "maya's session with X-Org-Id of globex (not a member)",
      headers: session(mayaCookie, globex),
      req: get('/api/projects'),
      status: 403,
      code: 'org_forbidden',
    },
    {
      name: "maya's session with X-Org-Id of globex: delete an issue",
      headers: session(mayaCookie, globex),
      req: issueReq.delete(resIssues[3]!.id),
      status: 403,
      code: 'org_forbidden',
    },
    {
      name: "maya's session with X-Org-Id of globex on GraphQL",
      headers: session(mayaCookie, globex),
      req: gql(Q.issues),
      status: 403,
      code: 'org_forbidden',
    },
    {
      name: 'session with an X-Org-Id of no organization',
      headers: session(mayaCookie, MISSING_ID),
      req: get('/api/projects'),
      status: 403,
      code: 'org_forbidden',
    },
    {
      name: 'session with an X-Org-Id that is not a UUID',
      headers: session(mayaCookie, 'acme'),
      req: get('/api/projects'),
      status: 403,
      code: 'org_forbidden',
    },
    {
      name: 'session with an X-Org-Id that is SQL',
      headers: session(mayaCookie, "' OR '1'='1"),
      req: get('/api/projects'),
      status: 403,
      code: 'org_forbidden',
    },
    {
      name: 'session with an X-Org-Id listing both organizations',
      headers: session(mayaCookie, `${acme}, ${globex}`),
      req: get('/api/projects'),
      status: 403,
      code: 'org_forbidden',
    },
    {
      name: "maya's OAuth token (acme) with X-Org-Id of globex",
      headers: { ...pat(oauthToken), 'x-org-id': globex },
      req: get('/api/projects'),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: "mark's OAuth token bound to acme with X-Org-Id of globex (he is a member there)",
      headers: { ...pat(markOAuthToken), 'x-org-id': globex },
      req: issueReq.read('RES-1'),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: 'OAuth token with an X-Org-Id that is not a UUID',
      headers: { ...pat(oauthToken), 'x-org-id': 'not-a-uuid' },
      req: get('/api/projects'),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: 'OAuth token with X-Org-Id of globex on GraphQL',
      headers: { ...pat(oauthToken), 'x-org-id': globex },
      req: gql(Q.projects),
      status: 403,
      code: 'org_mismatch',
    },
    {
      name: 'anonymous with X-Org-Id of acme',
      headers: { 'x-org-id': acme },
      req: get('/api/projects'),
      status: 401,
      code: 'unauthenticated',
    },
    {
      name: "mark's session acting in acme: globex's issue by id",
      headers: session(markCookie, acme),
      req: issueReq.read(resIssues[0]!.id),
      status: 404,
      code: 'not_found',
    },
    {
      name: "mark's session acting in acme: globex's issue by key",
      headers: session(markCookie, acme),
      req: issueReq.read('RES-1'),
      status: 404,
      code: 'not_found',
    },
    {
      name: "mark's session acting in acme: his own globex key",
      headers: session(markCookie, acme),
      req: revokeReq(markGlobexKey),
      status: 404,
      code: 'not_found',
    },
    {
      name: "mark's session acting in acme: globex's project",
      headers: session(markCookie, acme),
      req: projectReq.update(res.id),
      status: 403,
      code: 'forbidden',
    },
    {
      name: "mark's session without X-Org-Id (two organizations): must choose",
      headers: session(markCookie),
      req: get('/api/projects'),
      status: 403,
      code: 'forbidden',
    },
  ];

  test('each trick gets its exact refusal and no foreign data', async () => {
    const failures: string[] = [];
    for (const c of cases()) {
      tick();
      furtherChecks++;
      const answer = await sendAs(c.headers, c.req);
      if (answer.status !== c.status || answer.json?.code !== c.code)
        failures.push(`${c.name}: expected ${c.status} ${c.code}, got ${answer.status} ${answer.text.slice(0, 200)}`);
      const leaks = leaksIn(answer.text);
      if (leaks.length) failures.push(`${c.name}: foreign data ${leaks.join(', ')}`);
    }
    expect(failures).toEqual([]);
    expect(await keyRevoked(markGlobexKey)).toBe(false);
  });

  test('OAuth consent cannot bind a token to an organization the user is not in', async () => {
    const client = await registerClient(t.app);
    const { challenge } = pkce();
    const params = authorizeParams(client.client_id, challenge);
    const response = await t.app.fetch(
      formPost(
        '/oauth/authorize',
        { ...Object.fromEntries(params), org_id: globex, decision: 'allow' },
        { cookie: mayaCookie },
      ),
    );
    furtherChecks++;
    // The consent page again, with the error (400), and no redirect carrying a code.
    expect(response.status).toBe(400);
    expect(response.headers.get('location')).toBeNull();
    expect(await response.text()).toContain('Choose one of your organizations.');
    expect(await db().oAuthGrant.count({ where: { orgId: globex } })).toBe(0);
  });
});

describe('other people and keys of another organization', () => {
  test('a foreign user cannot be assigned, nor used as a filter that finds anything', async () => {
    const checks: [string, Req, number][] = [
      [
        'create with a foreign assignee',
        { method: 'POST', path: '/api/issues', body: { project_id: scratch.id, title: 'x', assignee_id: uid.bella } },
        400,
      ],
      [
        'assign a foreign user',
        { method: 'PATCH', path: `/api/issues/${scratchIssue.id}`, body: { assignee_id: uid.bella } },
        400,
      ],
      ['list by a foreign assignee', get(`/api/issues?assignee_id=${uid.bella}`), 200],
    ];
    for (const [name, req, status] of checks) {
      tick();
      furtherChecks++;
      const answer = await send('owner', req);
      expect(answer.status, name).toBe(status);
      if (status === 200) expect(answer.json, name).toEqual([]);
      else
        expect(answer.json.errors, name).toEqual([
          { field: 'assignee_id', message: 'must be a member of the organization' },
        ]);
    }
    const filtered = await send(
      'owner',
      gql(`{ issues(filter: { assigneeId: "${uid.bella}" }) { edges { node { id } } } }`),
    );
    furtherChecks++;
    expect(filtered.json.data.issues.edges).toEqual([]);
  });

  // FINDING: User.email has no authScopes, so Issue.assignee { email } shows every assignee's
  // address to viewers and members, whom searchPeople (and docs/api.md) deny email addresses.
  test('viewers and members do not get email addresses through Issue.assignee either', async () => {
    for (const caller of ['viewer', 'member'] as const) {
      tick();
      furtherChecks++;
      const answer = await send(caller, gql('{ issues(first: 100) { edges { node { key assignee { id email } } } } }'));
      expect(answer.status).toBe(200);
      const emails = (answer.json.data?.issues?.edges ?? [])
        .map((e: { node: { assignee: { id: string; email: string | null } | null } }) => e.node.assignee)
        .filter(
          (a: { id: string; email: string | null } | null) => a && a.id !== actingUser(caller) && a.email !== null,
        )
        .map((a: { email: string }) => a.email);
      expect([...new Set(emails)], caller).toEqual([]);
    }
  });

  test('invitations: owners and admins, for a role no higher than their own (an owner only by a signed-in person)', async () => {
    const cases: [PatCaller, string, number][] = [
      ['admin', 'owner', 403],
      ['admin', 'admin', 201],
      // These callers are API keys: an owner invitation needs the session (test/orgs.test.ts).
      ['owner', 'owner', 403],
      ['owner', 'admin', 201],
      ['manager', 'viewer', 403],
    ];
    for (const [caller, role, status] of cases) {
      tick();
      furtherChecks++;
      const answer = await send(caller, { method: 'POST', path: '/api/invitations', body: { role } });
      expect(answer.status, `${caller} inviting ${role}`).toBe(status);
    }
  });

  test("issue keys resolve in the caller's organization only, even when both have the same project key", async () => {
    tick();
    const clash = await send('owner', {
      method: 'POST',
      path: '/api/projects',
      body: { name: 'Acme research', key: 'RES' },
    });
    expect(clash.status).toBe(201);
    const own = await send('owner', issueReq.create(clash.json.id));
    expect(own.json.key).toBe('RES-1');
    for (const caller of ['viewer', 'oauth', 'session'] as const) {
      tick();
      furtherChecks += 2;
      const byKey = await send(caller, issueReq.read('RES-1'));
      expect(byKey.json.id, caller).toBe(own.json.id);
      const viaGraphQL = await send(caller, g.issue('res-1'));
      expect(viaGraphQL.json.data.issue.id, caller).toBe(own.json.id);
    }
    tick();
    furtherChecks++;
    const removed = await send('owner', issueReq.delete('RES-1'));
    expect(removed.status).toBe(204);
    expect(await issueTitle(resIssues[0]!.id)).not.toBeNull();
    const bellaRead = await sendAs({ authorization: `Bearer ${bellaPat}` }, issueReq.read('RES-1'));
    expect(bellaRead.json.id).toBe(resIssues[0]!.id);
  });
});

describe('after everything', () => {
  test("globex's organization, projects, issues, members, keys and invitations are exactly as they were", async () => {
    expect(await globexState()).toEqual(globexBefore);
    for (const token of [bellaPat, markGlobexPat]) {
      furtherChecks++;
      expect((await sendAs({ authorization: `Bearer ${token}` }, get('/api/me'))).status).toBe(200);
    }
  });
});
