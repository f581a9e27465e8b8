// Project.issues is one hand-written statement for every project of a request
// (src/schema/projects/issues-sql.ts). It must page exactly as the Prisma relation it replaced
// (Pothos' relatedConnection: `cursor: 'id'`, newest first, 50 by default, at most 100): the
// same rows, in the same order, with the same cursors and page flags, over random issues (with
// equal creation times, so the id decides) and random first/after/last/before. Runs on the
// embedded database, and on PostgreSQL with TEST_POSTGRES_URL.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { prismaConnectionHelpers } from '@pothos/plugin-prisma';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Principal } from '../src/auth/principal.js';
import type { Context } from '../src/context.js';
import type { Database } from '../src/db/client.js';
import type { Prisma } from '../src/generated/prisma/client.js';
import { builder } from '../src/schema/core/builder.js';
import '../src/schema/index.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../src/schema/issues/operations.js';
import {
  countProjectIssues,
  listProjectIssues,
  type ProjectIssuePage,
} from '../src/schema/projects/issues-operations.js';
import { operatorContext } from '../src/schema/core/operator.js';
import { openTestDatabase } from './support/database.js';

let db: Database;
beforeAll(async () => {
  db = await openTestDatabase();
});
afterAll(() => db.close());

const ORDER: Prisma.IssueOrderByWithRelationInput[] = [{ createdAt: 'desc' }, { id: 'desc' }];
const reference = prismaConnectionHelpers(builder, 'Issue', {
  cursor: 'id',
  defaultSize: PAGE_SIZE_DEFAULT,
  maxSize: PAGE_SIZE_MAX,
});

interface Args {
  first?: number | null;
  last?: number | null;
  after?: string | null;
  before?: string | null;
}

/** What the relation did: Prisma's cursor paging of each project's issues, wrapped as Pothos wraps it. */
async function prismaPages(ctx: Context, projectIds: string[], args: Args, select: Prisma.IssueSelect) {
  const query = reference.getQuery(args, ctx, () => true) as { take: number; skip: number; cursor?: { id: string } };
  const projects = await db.prisma.project.findMany({
    where: { id: { in: projectIds } },
    select: {
      id: true,
      issues: {
        select,
        orderBy: ORDER,
        take: query.take,
        skip: query.skip,
        ...(query.cursor ? { cursor: query.cursor } : {}),
      },
    },
  });
  const byId = new Map(projects.map((p) => [p.id, p.issues]));
  return projectIds.map((id) => {
    const page = reference.resolve((byId.get(id) ?? []) as Parameters<typeof reference.resolve>[0], args, ctx);
    return {
      nodes: page.edges.map((edge) => edge.node),
      cursors: page.edges.map((edge) => edge.cursor),
      hasNextPage: page.pageInfo.hasNextPage,
      hasPreviousPage: page.pageInfo.hasPreviousPage,
    };
  });
}

/** The statement's pages, in the same shape. */
async function sqlPages(ctx: Context, projectIds: string[], args: Args, select: Prisma.IssueSelect) {
  // The fields a query selects, named as the selection's keys: the statement loads their columns.
  const pages = await listProjectIssues.call(
    ctx,
    { projectIds, ...args },
    { select, fields: new Set(Object.keys(select)) },
  );
  const formatted = (page: ProjectIssuePage) => ({
    // What Prisma would have answered for the selection (a row also keeps the statement's own columns, unread).
    nodes: page.nodes.map((node) => Object.fromEntries(Object.keys(select).map((key) => [key, node[key]]))),
    cursors: page.nodes.map((node) => Buffer.from(`GPC:S:${node.id}`).toString('base64')),
    hasNextPage: page.hasNextPage,
    hasPreviousPage: page.hasPreviousPage,
  });
  return projectIds.map((id) => formatted(pages.get(id)!));
}

interface World {
  orgId: string;
  otherOrgId: string;
  projectIds: string[];
  otherProjectId: string;
  issueIds: string[];
  otherIssueId: string;
  userIds: string[];
}

const INSTANTS = [0, 1, 2, 3].map((i) => new Date(Date.UTC(2026, 0, 1 + i)));

/** An organization with three projects (the last one empty) and the given issues, and another organization with one issue. */
async function createWorld(
  issues: { project: number; at: number; assignee: number | null; description: string | null }[],
): Promise<World> {
  const tag = randomUUID().slice(0, 8);
  const org = await db.prisma.organization.create({ data: { name: `Org ${tag}`, slug: `o-${tag}` } });
  const other = await db.prisma.organization.create({ data: { name: `Other ${tag}`, slug: `x-${tag}` } });
  const users = await Promise.all(
    [0, 1].map((i) =>
      db.prisma.user.create({
        data: { email: `u${i}-${tag}@example.com`, name: `User ${i} ${tag}`, username: `u${i}-${tag}` },
      }),
    ),
  );
  const projects = await Promise.all(
    [0, 1, 2].map((i) => db.prisma.project.create({ data: { orgId: org.id, name: `P${i}`, key: `P${i}` } })),
  );
  const otherProject = await db.prisma.project.create({ data: { orgId: other.id, name: 'Q', key: 'Q' } });
  const rows = issues.map((spec, number) => ({
    id: randomUUID(),
    orgId: org.id,
    projectId: projects[spec.project]!.id,
    number: number + 1,
    title: `Issue ${number}`,
    status: 'Todo',
    priority: 'low',
    description: spec.description,
    assigneeId: spec.assignee === null ? null : users[spec.assignee]!.id,
    createdAt: INSTANTS[spec.at]!,
    updatedAt: INSTANTS[spec.at]!,
  }));
  await db.prisma.issue.createMany({ data: rows });
  const otherIssue = await db.prisma.issue.create({
    data: {
      orgId: other.id,
      projectId: otherProject.id,
      number: 1,
      title: 'Theirs',
      status: 'Todo',
      priority: 'low',
      createdAt: INSTANTS[1]!,
      updatedAt: INSTANTS[1]!,
    },
  });
  return {
    orgId: org.id,
    otherOrgId: other.id,
    projectIds: projects.map((p) => p.id),
    otherProjectId: otherProject.id,
    issueIds: rows.map((r) => r.id),
    otherIssueId: otherIssue.id,
    userIds: users.map((u) => u.id),
  };
}

/** A key bound to `orgId` (the benchmark's credential), or a session of a user who is a member of `memberOf`. */
async function contextFor(world: World, kind: 'key' | 'session', memberOf: string[] = [world.orgId]): Promise<Context> {
  const userId = world.userIds[0]!;
  for (const orgId of memberOf)
    await db.prisma.membership.upsert({
      where: { orgId_userId: { orgId, userId } },
      create: { orgId, userId, role: 'viewer' },
      update: {},
    });
  const principal: Principal = {
    kind: 'user',
    userId,
    credential: { kind: kind === 'key' ? 'pat' : 'session', id: randomUUID() },
    org: kind === 'key' ? { id: world.orgId, role: 'viewer' } : null,
    orgBound: kind === 'key',
  };
  return { ...operatorContext(db.prisma), principal };
}

const USER_SELECT = { select: { id: true, name: true, username: true, locale: true } } as const;
/** The selections a query can make of an issue: the plain columns, joined relations, and one the statement leaves to Prisma. */
const SELECTS: Prisma.IssueSelect[] = [
  { id: true, title: true, createdAt: true },
  {
    id: true,
    projectId: true,
    number: true,
    title: true,
    status: true,
    priority: true,
    assigneeId: true,
    createdAt: true,
    updatedAt: true,
    assignee: USER_SELECT,
  },
  {
    id: true,
    number: true,
    description: true,
    project: { select: { key: true } },
    assignee: { select: { ...USER_SELECT.select, email: true } },
  },
  { id: true, title: true, project: { select: { id: true, org: { select: { slug: true } } } } },
];

const issueSpecs = fc.array(
  fc.record({
    project: fc.integer({ min: 0, max: 1 }),
    at: fc.integer({ min: 0, max: INSTANTS.length - 1 }),
    assignee: fc.option(fc.integer({ min: 0, max: 1 })),
    description: fc.option(fc.constantFrom('details', '')),
  }),
  { minLength: 0, maxLength: 30 },
);

/**
 * first/last/after/before as a client may send them; a cursor names an issue of the page's
 * project, of another project of the organization, of another organization, or none at all.
 */
const argsArbitrary = (world: World): fc.Arbitrary<Args> => {
  const size = fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined });
  const cursorIds = [...world.issueIds, world.otherIssueId, randomUUID()];
  const cursor = fc.option(
    fc.constantFrom(...cursorIds).map((id) => Buffer.from(`GPC:S:${id}`).toString('base64')),
    { nil: undefined },
  );
  return fc.oneof(
    fc.record({ first: size, after: cursor }),
    fc.record({ last: size, before: cursor }),
    fc
      .record({ last: size, after: cursor }, { requiredKeys: [] })
      .filter((a) => a.after === undefined || a.last === undefined),
  );
};

describe('Project.issues: the statement pages as the Prisma relation did', () => {
  test('the same rows, cursors and page flags over random issues and arguments', async () => {
    await fc.assert(
      fc.asyncProperty(issueSpecs, fc.infiniteStream(fc.nat()), async (specs, picks) => {
        const world = await createWorld(specs);
        const ctx = await contextFor(world, 'key');
        const args = fc.sample(argsArbitrary(world), { numRuns: 6, seed: picks.next().value });
        for (const [i, arg] of args.entries()) {
          const select = SELECTS[(i + specs.length) % SELECTS.length]!;
          const projectIds = world.projectIds;
          expect({ arg, select, pages: await sqlPages(ctx, projectIds, arg, select) }).toEqual({
            arg,
            select,
            pages: await prismaPages(ctx, projectIds, arg, select),
          });
        }
      }),
      { numRuns: 40 },
    );
  });

  test('first 50 by default, at most 100, and the same errors for arguments Pothos refuses', async () => {
    const world = await createWorld(
      Array.from({ length: 120 }, (_, i) => ({ project: 0, at: i % 4, assignee: null, description: null })),
    );
    const ctx = await contextFor(world, 'key');
    const select = SELECTS[0]!;
    for (const args of [{}, { first: 500 }, { last: 500 }, { first: 0 }, { last: 0 }] as Args[]) {
      const [sql] = await sqlPages(ctx, [world.projectIds[0]!], args, select);
      const [prisma] = await prismaPages(ctx, [world.projectIds[0]!], args, select);
      expect(sql).toEqual(prisma);
    }
    const [page] = await sqlPages(ctx, [world.projectIds[0]!], {}, select);
    expect(page!.nodes).toHaveLength(50);
    for (const args of [
      { first: -1 },
      { first: 1, before: 'x' },
      { last: 1, after: 'x' },
      { after: 'not a cursor' },
      { after: 'x', before: 'y' },
    ] as Args[]) {
      const refused = await sqlPages(ctx, world.projectIds, args, select).catch((error: Error) => error.message);
      const expected = await prismaPages(ctx, world.projectIds, args, select).catch((error: Error) => error.message);
      expect(typeof refused).toBe('string');
      expect(refused).toBe(expected);
    }
  });

  test('totalCount counts every issue of each project', async () => {
    const world = await createWorld(
      [0, 0, 0, 1].map((project) => ({ project, at: 0, assignee: null, description: null })),
    );
    const counts = await countProjectIssues.call(
      await contextFor(world, 'key'),
      { projectIds: world.projectIds },
      undefined,
    );
    expect([...counts.values()]).toEqual([3, 1, 0]);
  });
});

describe('Project.issues stays in the organizations of the caller', () => {
  test('a key bound to one organization reads no issue of another, whatever project ids it names', async () => {
    const world = await createWorld([{ project: 0, at: 0, assignee: 0, description: null }]);
    const ctx = await contextFor(world, 'key', [world.orgId, world.otherOrgId]);
    const pages = await listProjectIssues.call(
      ctx,
      { projectIds: [world.projectIds[0]!, world.otherProjectId] },
      { select: SELECTS[0] },
    );
    expect(pages.get(world.projectIds[0]!)!.nodes).toHaveLength(1);
    expect(pages.get(world.otherProjectId)!.nodes).toEqual([]);
    const counts = await countProjectIssues.call(ctx, { projectIds: [world.otherProjectId] }, undefined);
    expect(counts.get(world.otherProjectId)).toBe(0);
  });

  test("a session reads the issues of its user's organizations, and only those", async () => {
    const world = await createWorld([{ project: 0, at: 0, assignee: 0, description: null }]);
    const outsider = await listProjectIssues.call(
      await contextFor(world, 'session'),
      { projectIds: [world.otherProjectId] },
      { select: SELECTS[0] },
    );
    expect(outsider.get(world.otherProjectId)!.nodes).toEqual([]);
    const member = await listProjectIssues.call(
      await contextFor(world, 'session', [world.orgId, world.otherOrgId]),
      { projectIds: [world.projectIds[0]!, world.otherProjectId] },
      { select: SELECTS[0] },
    );
    expect(member.get(world.projectIds[0]!)!.nodes).toHaveLength(1);
    expect(member.get(world.otherProjectId)!.nodes.map((n) => n.id)).toEqual([world.otherIssueId]);
  });

  test("a cursor naming another organization's issue gives an empty page", async () => {
    const world = await createWorld([0, 1, 2].map((at) => ({ project: 0, at, assignee: null, description: null })));
    const ctx = await contextFor(world, 'key');
    const after = Buffer.from(`GPC:S:${world.otherIssueId}`).toString('base64');
    const [page] = await sqlPages(ctx, [world.projectIds[0]!], { first: 10, after }, SELECTS[0]!);
    expect(page).toEqual({ nodes: [], cursors: [], hasNextPage: false, hasPreviousPage: true });
  });
});
