// The benchmark's data set: one organization, 10 projects, 50 members with roles, a pool of
// PATs, and up to 100,000 issues with realistic statuses, priorities, assignees and creation
// times. Seeded straight into the database in createMany batches (seconds, not minutes).
import { randomUUID } from 'node:crypto';
import { generatePat, hashToken, patHint } from '../../src/auth/pat-token.js';
import type { Db } from '../../src/db/client.js';
import { directSql } from '../../src/db/direct-sql.js';
import type { Issue } from '../../src/generated/prisma/client.js';
import type { Role } from '../../src/generated/prisma/enums.js';

/** Deterministic PRNG (mulberry32): the same plan every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted<T>(random: () => number, entries: readonly (readonly [T, number])[]): T {
  const total = entries.reduce((s, [, w]) => s + w, 0);
  let r = random() * total;
  for (const [value, w] of entries) {
    r -= w;
    if (r < 0) return value;
  }
  return entries[entries.length - 1]![0];
}

const pick = <T>(random: () => number, list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

const FIRST = [
  'Ava',
  'Ben',
  'Chloe',
  'Daniel',
  'Elena',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kara',
  'Luis',
  'Mina',
  'Noah',
  'Olga',
  'Priya',
  'Quinn',
  'Rafael',
  'Sofia',
  'Tomas',
  'Uma',
  'Viktor',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zoe',
];
const LAST = [
  'Adams',
  'Bauer',
  'Costa',
  'Dubois',
  'Eriksen',
  'Fischer',
  'Garcia',
  'Hansen',
  'Ito',
  'Jensen',
  'Kowalski',
  'Lopez',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Rossi',
  'Schmidt',
  'Tanaka',
  'Varga',
];
const PROJECTS: { name: string; key: string }[] = [
  { name: 'Customer Portal', key: 'PORT' },
  { name: 'Platform API', key: 'API' },
  { name: 'Mobile App', key: 'MOB' },
  { name: 'Billing', key: 'BILL' },
  { name: 'Data Pipeline', key: 'DATA' },
  { name: 'Infrastructure', key: 'INFRA' },
  { name: 'Design System', key: 'DS' },
  { name: 'Search', key: 'SRCH' },
  { name: 'Notifications', key: 'NOTIF' },
  { name: 'Internal Tools', key: 'TOOLS' },
];
// Project 0 stays small (100 issues) so the 1k -> 100k comparison reads the same page twice;
// the others share the rest, skewed as real workloads are.
const PROJECT_WEIGHTS = [0, 30, 20, 15, 10, 8, 6, 5, 4, 2];
const ROLES: [Role, number][] = [
  ['owner', 1],
  ['admin', 2],
  ['manager', 5],
  ['member', 32],
  ['viewer', 10],
];
const STATUSES = [
  ['Done', 45],
  ['Canceled', 5],
  ['Backlog', 20],
  ['Todo', 12],
  ['In Progress', 10],
  ['In Review', 8],
] as const;
const PRIORITIES = [
  ['none', 30],
  ['low', 25],
  ['medium', 25],
  ['high', 15],
  ['urgent', 5],
] as const;
const VERBS = [
  'Fix',
  'Add',
  'Remove',
  'Refactor',
  'Investigate',
  'Document',
  'Speed up',
  'Migrate',
  'Test',
  'Redesign',
  'Handle',
  'Log',
];
const THINGS = [
  'the login redirect',
  'CSV export',
  'webhook retries',
  'the invoice PDF',
  'dark mode',
  'search ranking',
  'the settings page',
  'rate-limit headers',
  'push notifications',
  'the onboarding flow',
  'audit log entries',
  'the payment form',
  'SSO for SAML',
  'image uploads',
  'the dashboard charts',
  'timezone handling',
];
const CONTEXTS = [
  '',
  '',
  ' on Safari',
  ' for large accounts',
  ' after the last release',
  ' in the EU region',
  ' when offline',
  ' behind the proxy',
  ' for new users',
  ' under load',
];
const SENTENCES = [
  'Steps to reproduce are in the linked support ticket.',
  'Customers report this several times a week.',
  'We should add a regression test once this is fixed.',
  'The current behaviour was introduced with the new storage layer.',
  'See the design document for the expected behaviour.',
  'Logs show a timeout from the upstream service.',
  'This blocks the next milestone.',
  'Low risk, but it annoys people every day.',
];

const KEYS_PER_USER = 20; // the documented cap of active keys per user per organization

interface PlannedProject {
  id: string;
  name: string;
  key: string;
  /** Issues at full size. */
  total: number;
  /** Issues in the initial (1k) stage: the oldest ones. */
  initial: number;
  startMs: number;
}

interface PlannedUser {
  id: string;
  name: string;
  username: string;
  email: string;
  role: Role;
  membershipId: string;
  tokens: string[];
}

export interface Plan {
  orgId: string;
  orgName: string;
  orgSlug: string;
  projects: PlannedProject[];
  users: PlannedUser[];
  totalIssues: number;
  initialIssues: number;
  nowMs: number;
}

const DAY = 86_400_000;

/** Every project starts with 100 issues (the 1k stage); the rest go to projects 1..9 by weight. */
function projectSizes(totalIssues: number): number[] {
  if (totalIssues < 1000) throw new Error('BENCH_ISSUES must be at least 1000');
  const rest = totalIssues - 100 * PROJECTS.length;
  const weightSum = PROJECT_WEIGHTS.reduce((a, b) => a + b, 0);
  const sizes = PROJECT_WEIGHTS.map((w) => 100 + Math.floor((rest * w) / weightSum));
  sizes[1]! += totalIssues - sizes.reduce((a, b) => a + b, 0); // rounding goes to the biggest
  return sizes;
}

export function planDataset(totalIssues: number, options: { nowMs?: number } = {}): Plan {
  const nowMs = options.nowMs ?? Date.now();
  const sizes = projectSizes(totalIssues);
  const projects = PROJECTS.map((p, i) => ({
    id: randomUUID(),
    ...p,
    total: sizes[i]!,
    initial: 100,
    startMs: nowMs - (730 - i * 45) * DAY,
  }));
  const roles: Role[] = ROLES.flatMap(([role, n]) => Array<Role>(n).fill(role));
  const users: PlannedUser[] = roles.map((role, i) => {
    const first = FIRST[i % FIRST.length]!;
    const last = LAST[(i * 7) % LAST.length]!;
    const username = `${first}.${last}.${i}`.toLowerCase();
    return {
      id: randomUUID(),
      name: `${first} ${last}`,
      username,
      email: `${username}@bench.example`,
      role,
      membershipId: randomUUID(),
      tokens: Array.from({ length: KEYS_PER_USER }, () => generatePat()),
    };
  });
  return {
    orgId: randomUUID(),
    orgName: 'Bench Corp',
    orgSlug: `bench-${Math.floor(nowMs / 1000)}`,
    projects,
    users,
    totalIssues,
    initialIssues: projects.reduce((s, p) => s + p.initial, 0),
    nowMs,
  };
}

/**
 * The same organization, members, keys and projects with `totalIssues` issues: the larger
 * databases of the read-scaling comparison (bench/run.ts), where the same tokens and the same
 * project ids must work. The 1k stage (each project's oldest 100) is the same in every size.
 */
export function resizedPlan(plan: Plan, totalIssues: number): Plan {
  const sizes = projectSizes(totalIssues);
  return { ...plan, totalIssues, projects: plan.projects.map((p, i) => ({ ...p, total: sizes[i]! })) };
}

/** The org, members, projects (issue_count 0) and every key. */
export async function seedBase(db: Db, plan: Plan): Promise<void> {
  await db.organization.create({ data: { id: plan.orgId, name: plan.orgName, slug: plan.orgSlug } });
  await db.user.createMany({
    data: plan.users.map((u) => ({ id: u.id, email: u.email, name: u.name, username: u.username, locale: 'en' })),
  });
  await db.membership.createMany({
    data: plan.users.map((u) => ({ id: u.membershipId, orgId: plan.orgId, userId: u.id, role: u.role })),
  });
  await db.project.createMany({
    data: plan.projects.map((p) => ({
      id: p.id,
      orgId: plan.orgId,
      name: p.name,
      key: p.key,
      createdAt: new Date(p.startMs),
    })),
  });
  const keys = plan.users.flatMap((u) =>
    u.tokens.map((token, i) => ({
      orgId: plan.orgId,
      userId: u.id,
      name: i === 0 ? 'CLI' : `automation ${i}`,
      tokenHash: hashToken(token),
      hint: patHint(token),
    })),
  );
  for (let i = 0; i < keys.length; i += 1000) await db.apiKey.createMany({ data: keys.slice(i, i + 1000) });
}

/** Issues `from..to` (1-based numbers, inclusive) of one project, deterministic per project. */
function* projectIssues(plan: Plan, projectIndex: number, from: number, to: number): Generator<Issue> {
  const project = plan.projects[projectIndex]!;
  const random = rng(1000 + projectIndex);
  // Poisson arrivals over the project's life: exponential gaps, scaled to end a little before now.
  const gaps = new Float64Array(project.total);
  let sum = 0;
  for (let i = 0; i < project.total; i++) sum += gaps[i] = -Math.log(1 - random());
  const span = plan.nowMs - 3_600_000 - project.startMs;
  const assignees = plan.users;
  // A few people carry most of the work.
  const assigneeWeights = assignees.map((_, i) => [i, 1 / (1 + (i % 17))] as const);
  let acc = 0;
  for (let n = 1; n <= to; n++) {
    acc += gaps[n - 1]!;
    // Draw every field for every issue so numbers 1..k are the same whatever the range asked for.
    const status = weighted(random, STATUSES);
    const priority = weighted(random, PRIORITIES);
    const assigned = random() < 0.8 ? assignees[weighted(random, assigneeWeights)]!.id : null;
    const title = `${pick(random, VERBS)} ${pick(random, THINGS)}${pick(random, CONTEXTS)}`;
    const hasDescription = random() < 0.6;
    const sentences = 1 + Math.floor(random() * 4);
    const description = hasDescription
      ? Array.from({ length: sentences }, () => pick(random, SENTENCES)).join(' ')
      : null;
    const updatedLag = random() * (status === 'Done' || status === 'Canceled' ? 60 : 10) * DAY;
    if (n < from) continue;
    const createdMs = Math.round(project.startMs + (span * acc) / sum);
    yield {
      id: randomUUID(),
      orgId: plan.orgId,
      projectId: project.id,
      number: n,
      title,
      status,
      priority,
      description,
      assigneeId: assigned,
      createdAt: new Date(createdMs),
      updatedAt: new Date(Math.min(plan.nowMs, Math.round(createdMs + updatedLag))),
      labelIds: [],
    };
  }
}

const BATCH = 10_000;

/**
 * One statement per batch, the columns as arrays: Prisma's createMany built each batch's
 * statement in JavaScript at about 3 s per 10,000 rows, which made a 1M-issue database a
 * five-minute seed; unnest lets the database do that work. Both drivers take arrays
 * (src/db/direct-sql.ts); null elements stand for no description and no assignee.
 */
const INSERT_ISSUES_SQL = `INSERT INTO issues (id, org_id, project_id, number, title, status, priority, description, assignee_id, created_at, updated_at)
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::uuid[], $10::timestamptz[], $11::timestamptz[])`;

async function insertIssues(db: Db, rows: Issue[]): Promise<void> {
  const column = <T>(f: (row: Issue) => T) => rows.map(f) as unknown as string[];
  await directSql(db).rows({
    text: INSERT_ISSUES_SQL,
    values: [
      column((r) => r.id),
      column((r) => r.orgId),
      column((r) => r.projectId),
      rows.map((r) => r.number),
      column((r) => r.title),
      column((r) => r.status),
      column((r) => r.priority),
      column((r) => r.description),
      column((r) => r.assigneeId),
      column((r) => r.createdAt.toISOString()),
      column((r) => r.updatedAt.toISOString()),
    ],
  });
}

/**
 * Inserts the issues of a stage and sets each project's issue_count to its highest number:
 * 'initial' = the oldest `initial` issues of every project (1,000 in all), 'rest' = the others,
 * 'all' = both at once.
 */
export async function seedIssues(db: Db, plan: Plan, stage: 'initial' | 'rest' | 'all'): Promise<void> {
  for (const [i, project] of plan.projects.entries()) {
    const from = stage === 'rest' ? project.initial + 1 : 1;
    const to = stage === 'initial' ? project.initial : project.total;
    if (to < from) continue;
    let batch: Issue[] = [];
    for (const row of projectIssues(plan, i, from, to)) {
      batch.push(row);
      if (batch.length === BATCH) {
        await insertIssues(db, batch);
        batch = [];
      }
    }
    if (batch.length) await insertIssues(db, batch);
    await db.project.update({ where: { id: project.id }, data: { issueCount: to } });
  }
  await labelIssues(db);
}

const LABEL_NAMES = ['backend', 'bug', 'docs', 'ui', 'urgent'];

/**
 * Five labels per organization, and 0 to 3 of them on each issue (its number decides): the issue
 * reads measure an issue JSON that carries labels. Idempotent, for the staged seeds.
 */
async function labelIssues(db: Db): Promise<void> {
  await db.$executeRawUnsafe(
    `INSERT INTO labels (id, org_id, name, name_key, color, updated_at)
     SELECT gen_random_uuid(), o.id, n.name, n.name, '#d73a4a', now()
       FROM organizations o CROSS JOIN unnest($1::text[]) AS n(name)
     ON CONFLICT DO NOTHING`,
    LABEL_NAMES,
  );
  await db.$executeRawUnsafe(
    `INSERT INTO issue_labels (issue_id, label_id, org_id)
     SELECT i.id, l.id, i.org_id FROM issues i
       JOIN LATERAL (SELECT id FROM labels WHERE org_id = i.org_id ORDER BY name_key LIMIT (i.number % 4)) l ON true
     ON CONFLICT DO NOTHING`,
  );
}

/** Projects whose issue_count differs from their highest issue number or their row count. */
export async function issueCountMismatches(db: Db, orgId: string) {
  const rows = await db.$queryRawUnsafe<
    { key: string; issue_count: number; issues: bigint; max_number: number | null }[]
  >(
    `SELECT p.key, p.issue_count, count(i.id) AS issues, max(i.number) AS max_number
       FROM projects p LEFT JOIN issues i ON i.project_id = p.id
      WHERE p.org_id = $1::uuid GROUP BY p.id, p.key, p.issue_count ORDER BY p.key`,
    orgId,
  );
  const all = rows.map((r) => ({
    key: r.key,
    issue_count: r.issue_count,
    issues: Number(r.issues),
    max_number: r.max_number ?? 0,
  }));
  return { projects: all, mismatches: all.filter((r) => r.issue_count !== r.issues || r.issue_count !== r.max_number) };
}

/** Tokens of users allowed to create issues (member and above). */
export function writeTokens(plan: Plan): string[] {
  return plan.users.filter((u) => u.role !== 'viewer').flatMap((u) => u.tokens);
}

export function allTokens(plan: Plan): string[] {
  // Interleave users so consecutive requests come from different people.
  const out: string[] = [];
  for (let k = 0; k < KEYS_PER_USER; k++) for (const u of plan.users) out.push(u.tokens[k]!);
  return out;
}
