// The raw baseline: node:http + pg (or PGlite for file: URLs), no framework, no ORM, no GraphQL
// engine. It answers the benchmark's requests with the same SQL as the app (bench/lib/baseline-sql.ts)
// and the same JSON, doing the same checks: PAT shape and checksum, SHA-256 lookup joined with the
// membership, revoked/expired, the once-a-minute last_used_at write, role, input validation; and,
// like the app, it keeps verified keys for up to 60 s.
//   DATABASE_URL=postgresql://... PORT=4100 node --import tsx bench/baseline-server.ts
// Optional: BASELINE_NOAUTH_USER / BASELINE_NOAUTH_ORG / BASELINE_NOAUTH_ROLE: a request without
// credentials acts as that member (the baseline of the "auth and rate limiting off" workload).
// GET /__bench/stats answers { statements } (SQL statements sent so far, BEGIN/COMMIT included).
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { crc32 } from 'node:zlib';
import pg from 'pg';
import { nodePostgresTypes, pgliteParsers } from '../src/db/timestamps.js';
import {
  CREATE_ISSUE_SQL,
  createIssueArgs,
  ISSUES_PAGE_SQL,
  ORG_LABELS_SQL,
  MEMBER_EXISTS_SQL,
  NESTED_TREE_SQL,
  PAT_LOOKUP_SQL,
  PROJECT_EXISTS_SQL,
  TOUCH_KEY_SQL,
  USER_SQL,
} from './lib/baseline-sql.js';
import { NESTED_QUERY } from './lib/workloads.js';

type Row = Record<string, unknown>;
type Query = (text: string, params: unknown[]) => Promise<Row[]>;
interface Sql {
  query: Query;
  transaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

let statements = 0;

async function openSql(url: string): Promise<Sql> {
  if (url.startsWith('file:')) {
    const { PGlite } = await import('@electric-sql/pglite');
    const db = await PGlite.create(url.slice('file:'.length));
    return {
      query: async (text, params) => {
        statements++;
        return (await db.query<Row>(text, params, { parsers: pgliteParsers })).rows;
      },
      transaction: (fn) =>
        db.transaction(async (tx) => {
          statements += 2; // BEGIN, COMMIT
          return fn(async (text, params) => {
            statements++;
            return (await tx.query<Row>(text, params)).rows;
          });
        }),
      close: () => db.close(),
    };
  }
  // The same pool size as @prisma/adapter-pg's default pg.Pool (10).
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  return {
    query: async (text, params) => {
      statements++;
      return (await pool.query({ text, values: params, types: nodePostgresTypes })).rows as Row[];
    },
    async transaction(fn) {
      const client = await pool.connect();
      try {
        statements++;
        await client.query('BEGIN');
        const result = await fn(async (text, params) => {
          statements++;
          return (await client.query(text, params)).rows as Row[];
        });
        statements++;
        await client.query('COMMIT');
        return result;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}

const PORT = Number(process.env.PORT ?? 4100);
const BASE_URL = `http://localhost:${PORT}`;
const sql = await openSql(process.env.DATABASE_URL ?? '');

const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { ...JSON_HEADERS, ...headers });
  res.end(JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > 1024 * 1024) reject(new Problem(413, 'payload_too_large', 'body too large'));
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

// --- authentication: the PAT scheme of src/auth/pat-token.ts, written out -------------------
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const PAT_SHAPE = /^tok_live_[0-9A-Za-z]{32}$/;
function base62(value: number, width: number): string {
  let out = '';
  for (let n = value; out.length < width; n = Math.floor(n / 62)) out = ALPHABET[n % 62] + out;
  return out;
}
const wellFormed = (token: string) => PAT_SHAPE.test(token) && base62(crc32(token.slice(9, 35)), 6) === token.slice(35);

interface Caller {
  userId: string;
  orgId: string;
  role: string;
  /** The API key it authenticated with (the history's via id); none without auth. */
  keyId?: string;
}
const ROLE_RANK: Record<string, number> = { viewer: 0, member: 1, manager: 2, admin: 3, owner: 4 };

const noAuth: Caller | null = process.env.BASELINE_NOAUTH_USER
  ? {
      userId: process.env.BASELINE_NOAUTH_USER,
      orgId: process.env.BASELINE_NOAUTH_ORG ?? '',
      role: process.env.BASELINE_NOAUTH_ROLE ?? 'member',
    }
  : null;

const keyCache = new Map<
  string,
  { id: string; caller: Caller; expiresAt: Date | null; lastUsedAt: Date; filledAt: number }
>();

async function authenticate(req: IncomingMessage): Promise<Caller> {
  const authorization = req.headers.authorization;
  const bearer = authorization === undefined ? null : /^Bearer[ ]+([^\s]+)\s*$/i.exec(authorization)?.[1];
  if (bearer === undefined) throw new Problem(401, 'token_malformed', 'malformed Authorization header');
  const xAuth = (req.headers['x-auth-token'] as string | undefined)?.trim() || null;
  if (bearer && xAuth && bearer !== xAuth) throw new Problem(400, 'conflicting_credentials', 'two different tokens');
  const token = bearer ?? xAuth;
  if (token === null) {
    if (noAuth) return noAuth;
    throw new Problem(401, 'unauthenticated', 'send a credential');
  }
  if (!wellFormed(token)) throw new Problem(401, 'token_malformed', 'malformed token');
  const hash = createHash('sha256').update(token).digest();
  const requestedOrg = (req.headers['x-org-id'] as string | undefined)?.trim() || null;
  // The app keeps verified keys for up to 60 s (src/auth/pat-cache.ts); so does the baseline,
  // with no invalidation because the benchmark never revokes a key or changes a role.
  const cacheKey = hash.toString('base64');
  const cached = keyCache.get(cacheKey);
  if (cached && Date.now() - cached.filledAt < 60_000) {
    const now = new Date();
    if (cached.expiresAt && cached.expiresAt.getTime() <= now.getTime())
      throw new Problem(401, 'token_expired', 'expired');
    if (requestedOrg !== null && requestedOrg !== cached.caller.orgId)
      throw new Problem(403, 'org_mismatch', 'wrong organization');
    if (now.getTime() - cached.lastUsedAt.getTime() >= 60_000) {
      cached.lastUsedAt = now;
      void sql.query(TOUCH_KEY_SQL, [now, cached.id]).catch(() => {});
    }
    return cached.caller;
  }
  const [key] = await sql.query(PAT_LOOKUP_SQL, [hash]);
  if (!key || !timingSafeEqual(key.tokenHash as Uint8Array, hash))
    throw new Problem(401, 'token_invalid', 'unknown token');
  if (key.revokedAt) throw new Problem(401, 'token_revoked', 'revoked');
  const now = new Date();
  const expiresAt = key.expiresAt as Date | null;
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw new Problem(401, 'token_expired', 'expired');
  if (requestedOrg !== null && requestedOrg !== key.orgId) throw new Problem(403, 'org_mismatch', 'wrong organization');
  const lastUsed = key.lastUsedAt as Date | null;
  let touched = lastUsed ?? new Date(0);
  if (now.getTime() - touched.getTime() >= 60_000) {
    touched = now;
    void sql.query(TOUCH_KEY_SQL, [now, key.id]).catch(() => {});
  }
  const caller = {
    userId: key.userId as string,
    orgId: key.orgId as string,
    role: key.role as string,
    keyId: key.id as string,
  };
  keyCache.set(cacheKey, { id: key.id as string, caller, expiresAt, lastUsedAt: touched, filledAt: Date.now() });
  return caller;
}

function requireRole(caller: Caller, minimum: string) {
  if (ROLE_RANK[caller.role]! < ROLE_RANK[minimum]!) throw new Problem(403, 'forbidden', `needs the role ${minimum}`);
}

// --- routes ---------------------------------------------------------------------------------
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const STATUSES = new Set(['Backlog', 'Todo', 'In Progress', 'In Review', 'Done', 'Canceled']);
const PRIORITIES = new Set(['urgent', 'high', 'medium', 'low', 'none']);

function issueJson(r: Row, projectKey: string) {
  return {
    id: r.id,
    key: `${projectKey}-${r.number as number}`,
    project_id: r.projectId,
    number: r.number,
    title: r.title,
    status: r.status,
    priority: r.priority,
    description: r.description,
    assignee_id: r.assigneeId,
    labels: r.labels,
    created_at: (r.createdAt as Date).toISOString(),
    updated_at: (r.updatedAt as Date).toISOString(),
  };
}

async function getMe(res: ServerResponse, caller: Caller) {
  const [user] = await sql.query(USER_SQL, [caller.userId]);
  if (!user) throw new Problem(404, 'not_found', 'no such user');
  send(res, 200, { id: user.id, email: user.email, name: user.name, username: user.username, locale: user.locale });
}

/** Each organization's labels as last read, with their version. */
const orgLabels = new Map<string, { version: number; list: Row[]; place: Map<string, number> }>();

async function listIssues(res: ServerResponse, caller: Caller, url: URL) {
  requireRole(caller, 'viewer');
  const one = (name: string) => {
    const all = url.searchParams.getAll(name);
    if (all.length > 1) throw new Problem(400, 'validation_failed', `${name}: must be given once`);
    return all[0];
  };
  const projectId = one('project_id');
  const limitText = one('limit');
  if (one('cursor') !== undefined) throw new Problem(400, 'bad_user_input', 'the baseline does not page');
  if (projectId !== undefined && !UUID.test(projectId))
    throw new Problem(400, 'validation_failed', 'project_id: must be a UUID');
  const limit = limitText === undefined ? 50 : /^-?\d{1,15}$/.test(limitText) ? Number(limitText) : NaN;
  if (!Number.isInteger(limit) || limit < 1 || limit > 100)
    throw new Problem(400, 'validation_failed', 'limit: must be between 1 and 100');
  if (projectId === undefined) throw new Problem(400, 'bad_user_input', 'the baseline needs project_id');
  const rows = await sql.query(ISSUES_PAGE_SQL, [caller.orgId, projectId, limit + 1]);
  if (rows.length === 0) {
    const [project] = await sql.query(PROJECT_EXISTS_SQL, [projectId, caller.orgId, 1]);
    if (!project) throw new Problem(404, 'not_found', 'project not found');
  }
  const page = rows.slice(0, limit);
  // The labels the page carries, from the organization's labels kept at the version the page read, or read
  // again with one statement (as the app's pageLabels, src/schema/labels/issue-labels.ts).
  const sets = new Map<string, unknown[]>();
  for (const r of page) {
    const text = r.labels as string;
    let labels = sets.get(text);
    if (!labels) {
      const colon = text.indexOf(':');
      const version = Number(text.slice(0, colon));
      let org = orgLabels.get(caller.orgId);
      if (org?.version !== version) {
        const read = await sql.query(ORG_LABELS_SQL, [caller.orgId]);
        const list = read.filter((l) => l.id !== null).map(({ id, name, color }) => ({ id, name, color }));
        org = { version: read[0]!.version as number, list, place: new Map(list.map((l, i) => [l.id as string, i])) };
        orgLabels.set(caller.orgId, org);
      }
      const { list, place } = org;
      labels = (colon + 1 === text.length ? [] : text.slice(colon + 1).split(','))
        .filter((id) => place.has(id))
        .map((id) => place.get(id)!)
        .sort((a, b) => a - b)
        .map((i) => list[i]);
      sets.set(text, labels);
    }
    r.labels = labels;
  }
  const headers: Record<string, string> = {};
  if (rows.length > limit) {
    const next = new URL(`${BASE_URL}/api/issues`);
    for (const [k, v] of url.searchParams) if (k !== 'cursor') next.searchParams.append(k, v);
    // The app's keyset cursor for the default order (src/schema/issues/order.ts): [field, direction, created_at, id].
    const last = page[page.length - 1]!;
    const cursor = JSON.stringify(['CREATED_AT', 'DESC', (last.createdAt as Date).toISOString(), last.id]);
    next.searchParams.set('cursor', Buffer.from(cursor).toString('base64url'));
    headers.link = `<${next.href}>; rel="next"`;
  }
  send(
    res,
    200,
    page.map((r) => issueJson(r, (r.project as { key: string }).key)),
    headers,
  );
}

async function createIssue(req: IncomingMessage, res: ServerResponse, caller: Caller) {
  if (!/^application\/([a-z.+-]*\+)?json\s*(;|$)/i.test(req.headers['content-type'] ?? '')) {
    throw new Problem(415, 'unsupported_media_type', 'send JSON');
  }
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(await readBody(req)) as Record<string, unknown>;
  } catch {
    throw new Problem(400, 'malformed_json', 'not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Problem(400, 'malformed_json', 'not an object');
  const known = new Set(['project_id', 'title', 'status', 'priority', 'description', 'assignee_id']);
  for (const k of Object.keys(body))
    if (!known.has(k)) throw new Problem(400, 'validation_failed', `${k}: is not a known field`);
  const { project_id, title, status = 'Backlog', priority = 'none', description = null, assignee_id = null } = body;
  if (typeof project_id !== 'string' || !UUID.test(project_id))
    throw new Problem(400, 'validation_failed', 'project_id: must be a UUID');
  if (typeof title !== 'string' || !title.trim() || title.trim().length > 255)
    throw new Problem(400, 'validation_failed', 'title');
  if (typeof status !== 'string' || !STATUSES.has(status)) throw new Problem(400, 'validation_failed', 'status');
  if (typeof priority !== 'string' || !PRIORITIES.has(priority))
    throw new Problem(400, 'validation_failed', 'priority');
  if (description !== null && (typeof description !== 'string' || description.length > 50_000))
    throw new Problem(400, 'validation_failed', 'description');
  if (assignee_id !== null && (typeof assignee_id !== 'string' || !UUID.test(assignee_id)))
    throw new Problem(400, 'validation_failed', 'assignee_id');
  requireRole(caller, 'member');
  // One statement, as the app: bump the project's counter (only if the assignee is a member),
  // insert, and write the history row and outbox rows, the payload's number and key filled in
  // by the statement from placeholders (src/schema/issues/create.ts).
  const [row] = await sql.query(
    CREATE_ISSUE_SQL,
    createIssueArgs(
      { orgId: caller.orgId, userId: caller.userId, keyId: caller.keyId ?? null },
      { project_id, title: title.trim(), status, priority, description, assignee_id },
    ),
  );
  if (!row) {
    const [member] = assignee_id === null ? [true] : await sql.query(MEMBER_EXISTS_SQL, [caller.orgId, assignee_id, 1]);
    if (!member) throw new Problem(400, 'validation_failed', 'assignee_id: must be a member of the organization');
    throw new Problem(404, 'not_found', 'project not found');
  }
  send(res, 201, issueJson(row, row.projectKey as string), { location: `${BASE_URL}/api/issues/${row.id as string}` });
}

/** The one GraphQL document the benchmark sends, answered from one hand-written statement. */
async function graphql(req: IncomingMessage, res: ServerResponse, caller: Caller) {
  let body: { query?: unknown };
  try {
    body = JSON.parse(await readBody(req)) as { query?: unknown };
  } catch {
    throw new Problem(400, 'malformed_json', 'not JSON');
  }
  if (body.query !== NESTED_QUERY) throw new Problem(400, 'bad_user_input', 'the baseline answers one query only');
  requireRole(caller, 'viewer');
  const rows = await sql.query(NESTED_TREE_SQL, [caller.userId, caller.orgId]);
  type Edge = { node: { id: unknown; title: unknown; assignee: { id: unknown; name: unknown } | null } };
  const memberships: { organization: { projects: { issues: { edges: Edge[] } }[] } }[] = [];
  let membership: string | null = null;
  let project: string | null = null;
  let edges: Edge[] = [];
  for (const r of rows) {
    if (r.membership_id !== membership) {
      membership = r.membership_id as string;
      project = null;
      memberships.push({ organization: { projects: [] } });
    }
    if (r.project_id !== project) {
      project = r.project_id as string;
      edges = [];
      memberships[memberships.length - 1]!.organization.projects.push({ issues: { edges } });
    }
    if (r.issue_id !== null) {
      edges.push({
        node: {
          id: r.issue_id,
          title: r.title,
          assignee: r.assignee_id === null ? null : { id: r.assignee_id, name: r.assignee_name },
        },
      });
    }
  }
  send(res, 200, { data: { memberships } });
}

const server = createServer(async (req, res) => {
  try {
    const url = new URL(req.url ?? '/', BASE_URL);
    if (url.pathname === '/__bench/stats') return send(res, 200, { statements });
    const caller = await authenticate(req);
    if (req.method === 'GET' && url.pathname === '/api/me') return await getMe(res, caller);
    if (req.method === 'GET' && url.pathname === '/api/issues') return await listIssues(res, caller, url);
    if (req.method === 'POST' && url.pathname === '/api/issues') return await createIssue(req, res, caller);
    if (req.method === 'POST' && url.pathname === '/api/graphql') return await graphql(req, res, caller);
    throw new Problem(404, 'not_found', 'no such route');
  } catch (error) {
    const problem = error instanceof Problem ? error : new Problem(500, 'internal', 'internal error');
    if (!(error instanceof Problem)) console.error(error);
    if (!res.headersSent) {
      res.writeHead(problem.status, { 'content-type': 'application/problem+json', 'cache-control': 'no-store' });
      res.end(JSON.stringify({ status: problem.status, code: problem.code, detail: problem.message }));
    }
  }
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(PORT, '127.0.0.1', () => process.stdout.write(`baseline listening on ${PORT}\n`));

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  server.close(async () => {
    await sql.close();
    process.exit(0);
  });
  server.closeIdleConnections();
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
