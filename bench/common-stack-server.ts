// "What most teams would write instead": the benchmark's REST workloads as a conventional
// Fastify + Prisma service, for the report's second comparison (issue #12). Same database,
// same generated Prisma client and driver adapters as the app, the same auth lookup (the
// PAT's SHA-256 joined with its membership, revoked/expired checks, org header), zod
// validation of the create body, Prisma calls written the way its documentation shows them.
// No key cache and no rate limiting: what a typical handler does not have.
//   DATABASE_URL=postgresql://... PORT=4102 node --import tsx bench/common-stack-server.ts
import { createHash, randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { z } from 'zod';
import { openDatabase } from '../src/db/client.js';

const PORT = Number(process.env.PORT ?? 4102);
const BASE_URL = `http://localhost:${PORT}`;
const db = await openDatabase(process.env.DATABASE_URL ?? '');
const prisma = db.prisma;

class Problem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
  ) {
    super(detail);
  }
}

interface Caller {
  userId: string;
  orgId: string;
  role: string;
}
const ROLE_RANK: Record<string, number> = { viewer: 0, member: 1, manager: 2, admin: 3, owner: 4 };
function requireRole(caller: Caller, minimum: string) {
  if (ROLE_RANK[caller.role]! < ROLE_RANK[minimum]!) throw new Problem(403, 'forbidden', `needs the role ${minimum}`);
}

async function authenticate(request: FastifyRequest): Promise<Caller> {
  const token = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (!token) throw new Problem(401, 'unauthenticated', 'send a credential');
  const tokenHash = createHash('sha256').update(token).digest();
  const key = await prisma.apiKey.findUnique({
    where: { tokenHash },
    include: { membership: { select: { role: true } } },
  });
  if (!key || key.revokedAt || (key.expiresAt && key.expiresAt <= new Date()))
    throw new Problem(401, 'token_invalid', 'unknown token');
  const org = request.headers['x-org-id'];
  if (typeof org === 'string' && org !== key.orgId) throw new Problem(403, 'org_mismatch', 'wrong organization');
  return { userId: key.userId, orgId: key.orgId, role: key.membership.role };
}

type Issue = {
  id: string;
  projectId: string;
  number: number;
  title: string;
  status: string;
  priority: string;
  description: string | null;
  assigneeId: string | null;
  createdAt: Date;
  updatedAt: Date;
  project: { key: string };
};
const issueJson = (r: Issue) => ({
  id: r.id,
  key: `${r.project.key}-${r.number}`,
  project_id: r.projectId,
  number: r.number,
  title: r.title,
  status: r.status,
  priority: r.priority,
  description: r.description,
  assignee_id: r.assigneeId,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

const ListQuery = z.object({
  project_id: z.uuid(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
});
const CreateBody = z.strictObject({
  project_id: z.uuid(),
  title: z.string().trim().min(1).max(255),
  status: z.enum(['Backlog', 'Todo', 'In Progress', 'In Review', 'Done', 'Canceled']).default('Backlog'),
  priority: z.enum(['urgent', 'high', 'medium', 'low', 'none']).default('none'),
  description: z.string().max(50_000).nullable().default(null),
  assignee_id: z.uuid().nullable().default(null),
});

function parse<T>(schema: z.ZodType<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (!result.success)
    throw new Problem(
      400,
      'validation_failed',
      result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  return result.data;
}

const app = Fastify({ logger: false, bodyLimit: 1024 * 1024 });

app.setErrorHandler((error, _request, reply: FastifyReply) => {
  const problem = error instanceof Problem ? error : new Problem(500, 'internal', 'internal error');
  if (!(error instanceof Problem)) console.error(error);
  void reply
    .code(problem.status)
    .type('application/problem+json')
    .send({ status: problem.status, code: problem.code, detail: problem.message });
});

app.get('/api/me', async (request) => {
  const caller = await authenticate(request);
  const user = await prisma.user.findUnique({ where: { id: caller.userId } });
  if (!user) throw new Problem(404, 'not_found', 'no such user');
  return { id: user.id, email: user.email, name: user.name, username: user.username, locale: user.locale };
});

app.get('/api/issues', async (request, reply) => {
  const caller = await authenticate(request);
  requireRole(caller, 'viewer');
  const query = parse(ListQuery, request.query);
  const project = await prisma.project.findFirst({
    where: { id: query.project_id, orgId: caller.orgId },
    select: { id: true },
  });
  if (!project) throw new Problem(404, 'not_found', 'project not found');
  const rows = await prisma.issue.findMany({
    where: { orgId: caller.orgId, projectId: query.project_id },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: query.limit + 1,
    include: { project: { select: { key: true } } },
  });
  const page = rows.slice(0, query.limit);
  if (rows.length > query.limit) {
    const last = page[page.length - 1]!;
    const cursor = Buffer.from(JSON.stringify(['CREATED_AT', 'DESC', last.createdAt.toISOString(), last.id])).toString(
      'base64url',
    );
    const next = new URL(`${BASE_URL}/api/issues`);
    next.searchParams.set('project_id', query.project_id);
    next.searchParams.set('limit', String(query.limit));
    next.searchParams.set('cursor', cursor);
    void reply.header('link', `<${next.href}>; rel="next"`);
  }
  return page.map(issueJson);
});

app.post('/api/issues', async (request, reply) => {
  const caller = await authenticate(request);
  const input = parse(CreateBody, request.body);
  requireRole(caller, 'member');
  if (input.assignee_id) {
    const member = await prisma.membership.findUnique({
      where: { orgId_userId: { orgId: caller.orgId, userId: input.assignee_id } },
    });
    if (!member) throw new Problem(400, 'validation_failed', 'assignee_id: must be a member of the organization');
  }
  const issue = await prisma.$transaction(async (tx) => {
    const project = await tx.project
      .update({
        where: { orgId_id: { orgId: caller.orgId, id: input.project_id } },
        data: { issueCount: { increment: 1 } },
        select: { key: true, issueCount: true },
      })
      .catch(() => null);
    if (!project) throw new Problem(404, 'not_found', 'project not found');
    return tx.issue.create({
      data: {
        id: randomUUID(),
        orgId: caller.orgId,
        projectId: input.project_id,
        number: project.issueCount,
        title: input.title,
        status: input.status,
        priority: input.priority,
        description: input.description,
        assigneeId: input.assignee_id,
      },
      include: { project: { select: { key: true } } },
    });
  });
  void reply.code(201).header('location', `${BASE_URL}/api/issues/${issue.id}`);
  return issueJson(issue);
});

await app.listen({ port: PORT, host: '127.0.0.1' });
process.stdout.write(`common stack listening on ${PORT}\n`);

let stopping = false;
async function shutdown() {
  if (stopping) return;
  stopping = true;
  await app.close();
  await db.close();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
