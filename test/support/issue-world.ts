import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Database } from '../../src/db/client.js';
import type { IssueFilterField, IssueFilterShape } from '../../src/schema/issues/filter.js';
import { MAX_FILTER_DEPTH } from '../../src/schema/issues/filter-limits.js';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../../src/schema/issues/workflow.js';

/**
 * Random worlds of issues and random filters over them, for the property tests that compare two
 * ways of answering the same question (test/issue-aggregates.test.ts, test/hand-written-sql.test.ts).
 */

export const DAY = 24 * 3600 * 1000;
export const NOW = Date.now();
export const WEEKS = 20;
// Titles and descriptions share words in different cases, and LIKE's wildcards as plain text.
const WORDS = ['Login', 'login', 'LOGIN page', 'export 100%', 'snake_case', 'back\\slash', 'Dashboard'];

export interface IssueSpec {
  project: number;
  status: (typeof ISSUE_STATUSES)[number];
  priority: (typeof ISSUE_PRIORITIES)[number];
  assignee: number | null;
  title: string;
  description: string | null;
  /** Days before now: some before the weekly window, some in it. */
  ageDays: number;
  updatedAgeDays: number;
  /** Indexes of the world's labels the issue carries. */
  labels: number[];
}

/** The world's labels; the filters name them in other cases too. */
const LABEL_NAMES = ['Bug', 'ui', 'Needs Review'];

export const issueSpec: fc.Arbitrary<IssueSpec> = fc.record({
  project: fc.integer({ min: 0, max: 1 }),
  status: fc.constantFrom(...ISSUE_STATUSES),
  priority: fc.constantFrom(...ISSUE_PRIORITIES),
  assignee: fc.option(fc.integer({ min: 0, max: 2 })),
  title: fc.constantFrom(...WORDS),
  description: fc.option(fc.constantFrom(...WORDS)),
  ageDays: fc.integer({ min: 0, max: 7 * (WEEKS + 4) }),
  updatedAgeDays: fc.integer({ min: 0, max: 30 }),
  labels: fc.subarray([0, 1, 2]),
});

/** A world: an organization with two projects, three members, three labels, and random issues. */
export interface World {
  orgId: string;
  projectIds: string[];
  userIds: string[];
}

export async function createWorld(db: Database, specs: IssueSpec[]): Promise<World> {
  const suffix = randomUUID().slice(0, 8);
  const org = await db.prisma.organization.create({ data: { name: `Org ${suffix}`, slug: `org-${suffix}` } });
  const projectIds: string[] = [];
  for (const key of ['AA', 'BB']) {
    projectIds.push(
      (await db.prisma.project.create({ data: { orgId: org.id, name: key, key, issueCount: specs.length } })).id,
    );
  }
  const userIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const user = await db.prisma.user.create({
      data: { email: `u${i}-${suffix}@example.com`, name: `U${i}`, username: `u${i}-${suffix}` },
    });
    await db.prisma.membership.create({ data: { orgId: org.id, userId: user.id, role: 'member' } });
    userIds.push(user.id);
  }
  await db.prisma.issue.createMany({
    data: specs.map((s, i) => ({
      orgId: org.id,
      projectId: projectIds[s.project]!,
      number: i + 1,
      title: s.title,
      status: s.status,
      priority: s.priority,
      description: s.description,
      assigneeId: s.assignee === null ? null : userIds[s.assignee]!,
      createdAt: new Date(NOW - s.ageDays * DAY - i * 1000),
      updatedAt: new Date(NOW - s.updatedAgeDays * DAY),
    })),
  });
  const labelIds: string[] = [];
  for (const name of LABEL_NAMES) {
    const label = await db.prisma.label.create({
      data: { orgId: org.id, name, nameKey: name.toLowerCase(), color: '#112233' },
    });
    labelIds.push(label.id);
  }
  const issues = await db.prisma.issue.findMany({ where: { orgId: org.id }, select: { id: true, number: true } });
  await db.prisma.issueLabel.createMany({
    data: issues.flatMap((issue) =>
      specs[issue.number - 1]!.labels.map((n) => ({ orgId: org.id, issueId: issue.id, labelId: labelIds[n]! })),
    ),
  });
  return { orgId: org.id, projectIds, userIds };
}

// Assignees are named by index (`@0`) until the world's users exist; a stranger's id matches nothing.
const STRANGER = randomUUID();

/** An object with at most two of these fields (none at times). */
function someOf<T extends Record<string, fc.Arbitrary<unknown>>>(
  fields: T,
): fc.Arbitrary<{ [K in keyof T]?: T[K] extends fc.Arbitrary<infer V> ? V : never }> {
  const one = fc.oneof(...Object.entries(fields).map(([key, value]) => value.map((v) => ({ [key]: v }))));
  return fc.array(one, { maxLength: 2 }).map((parts) => Object.assign({}, ...parts));
}

/** Random values of every entry of the filter (src/schema/issues/filter.ts): a new entry is a compile error here until it has some. */
export function filterValueArbitraries(): {
  [Field in IssueFilterField]-?: fc.Arbitrary<NonNullable<IssueFilterShape[Field]>>;
} {
  const instant = fc.integer({ min: 0, max: 7 * (WEEKS + 5) }).map((days) => new Date(NOW - days * DAY));
  const word = fc.constantFrom(...WORDS, 'LOG', 'in', '%', '_', 'slash');
  const number = fc.integer({ min: 0, max: 42 });
  return {
    status: fc.subarray([...ISSUE_STATUSES]),
    priority: fc.subarray([...ISSUE_PRIORITIES]),
    label: fc.subarray(['bug', 'UI', 'needs review', 'Nope']),
    assigneeId: fc.constantFrom('none', '@0', '@1', '@2', STRANGER),
    q: word,
    title: someOf({ equals: word, contains: word, startsWith: word }),
    number: someOf({
      eq: number,
      gt: number,
      gte: number,
      lt: number,
      lte: number,
      in: fc.array(number, { maxLength: 5 }),
    }),
    createdAfter: instant,
    createdBefore: instant,
    updatedAfter: instant,
    updatedBefore: instant,
  };
}

/** A random filter over every entry of IssueFilter, and/or/not nested up to three levels. */
export function filterArbitrary(): fc.Arbitrary<IssueFilterShape> {
  // One field per condition (two at most in a leaf): with every field at once, nearly every
  // filter would select nothing, and a wrong comparison would go unseen.
  const condition = fc.oneof(
    ...Object.entries(filterValueArbitraries()).map(([field, value]) => value.map((v) => ({ [field]: v }))),
  );
  const leaf: fc.Arbitrary<IssueFilterShape> = fc
    .array(condition, { maxLength: 2 })
    .map((parts) => Object.assign({}, ...parts));
  // As deep as the filter may nest (MAX_FILTER_DEPTH), at most 3 branches a level (40 filters in all).
  const nested = (levels: number): fc.Arbitrary<IssueFilterShape> => {
    if (levels === 1) return leaf;
    const inner = nested(levels - 1);
    return fc.oneof(
      { withCrossShrink: true },
      { arbitrary: leaf, weight: 4 },
      fc.record(
        { and: fc.array(inner, { maxLength: 3 }), status: fc.subarray([...ISSUE_STATUSES]) },
        { requiredKeys: ['and'] },
      ),
      fc.record({ or: fc.array(inner, { maxLength: 3 }) }),
      fc.record({ not: inner, priority: fc.subarray([...ISSUE_PRIORITIES]) }, { requiredKeys: ['not'] }),
    );
  };
  return nested(MAX_FILTER_DEPTH);
}

/** The filter with its `@n` assignees replaced by the world's user ids. */
export function resolveAssignees(filter: IssueFilterShape, userIds: string[]): IssueFilterShape {
  const resolve = (f: IssueFilterShape): IssueFilterShape => ({
    ...f,
    ...(f.assigneeId?.startsWith('@') ? { assigneeId: userIds[Number(f.assigneeId.slice(1))]! } : {}),
    ...(f.and ? { and: f.and.map(resolve) } : {}),
    ...(f.or ? { or: f.or.map(resolve) } : {}),
    ...(f.not ? { not: resolve(f.not) } : {}),
  });
  return resolve(filter);
}
