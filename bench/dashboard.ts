/**
 * The dashboard's server time on a large organization: 100,000 issues (ISSUES=...) in 10
 * projects over 50 members, on the embedded database (DATABASE_URL=postgres://... for
 * PostgreSQL). Measures GET /orgs/<slug> through app.fetch (the whole page: every GROUP BY, the
 * two short lists, rendering), and aggregateIssues alone. Writes bench/results/dashboard.json.
 *
 *   npm run bench:dashboard            # ISSUES=100000 RUNS=30
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { createUser } from '../src/cli/operations.js';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';

const ISSUES = Number(process.env.ISSUES ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 30);
const url = process.env.DATABASE_URL ?? 'memory://';
const ORIGIN = 'http://localhost:4000';
const PASSWORD = 'bench passphrase 2026';

const db = await openDatabase(url);
await applyMigrations(db.adapterFactory);
const owner = await createUser(db.prisma, {
  email: 'owner@bench.example',
  name: 'Owner',
  username: 'owner',
  password: PASSWORD,
});
const org = await db.prisma.organization.create({ data: { name: 'Bench', slug: 'bench' } });
await db.prisma.membership.create({ data: { orgId: org.id, userId: owner.id, role: 'owner' } });
for (let i = 0; i < 49; i++) {
  const user = await createUser(db.prisma, { email: `m${i}@bench.example`, name: `Member ${i}`, username: `m${i}` });
  await db.prisma.membership.create({ data: { orgId: org.id, userId: user.id, role: 'member' } });
}
const members = (await db.prisma.membership.findMany({ where: { orgId: org.id }, select: { userId: true } })).map(
  (m) => m.userId,
);
const perProject = Math.ceil(ISSUES / 10);
const started = performance.now();
for (let p = 0; p < 10; p++) {
  const project = await db.prisma.project.create({
    data: { orgId: org.id, name: `Project ${p}`, key: `P${p}X`, issueCount: perProject },
  });
  // One INSERT ... SELECT per project: statuses, priorities, assignees and creation times spread over a year.
  await db.prisma.$executeRawUnsafe(
    `INSERT INTO issues (id, org_id, project_id, number, title, status, priority, assignee_id, created_at, updated_at)
     SELECT gen_random_uuid(), $1::uuid, $2::uuid, n, 'Issue ' || n,
            (ARRAY['Backlog','Todo','In Progress','In Review','Done','Canceled'])[1 + n % 6],
            (ARRAY['urgent','high','medium','low','none'])[1 + n % 5],
            CASE WHEN n % 4 = 0 THEN NULL ELSE ($3::uuid[])[1 + n % 50] END,
            now() - (n % 365) * interval '1 day', now() - (n % 30) * interval '1 day'
       FROM generate_series(1, $4::int) AS n`,
    org.id,
    project.id,
    members,
    perProject,
  );
}
// As autovacuum would after a bulk load: the planner's statistics describe the table.
await db.prisma.$executeRawUnsafe('ANALYZE issues');
const loadMs = performance.now() - started;
const app = await createApp(testConfig({ baseUrl: ORIGIN, databaseUrl: url }), { db });
const signIn = await app.fetch(
  new Request(`${ORIGIN}/login`, {
    method: 'POST',
    headers: { origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ email: 'owner@bench.example', password: PASSWORD, next: '/' }),
  }),
);
const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;

async function time(label: string, run: () => Promise<void>) {
  for (let i = 0; i < 3; i++) await run(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await run();
    samples.push(performance.now() - t0);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => Number(samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!.toFixed(1));
  return { label, median_ms: at(0.5), p95_ms: at(0.95), min_ms: at(0), runs: RUNS };
}

const page = await time('GET /orgs/bench (whole dashboard page)', async () => {
  const response = await app.fetch(new Request(`${ORIGIN}/orgs/bench`, { headers: { cookie, accept: 'text/html' } }));
  if (response.status !== 200) throw new Error(`dashboard answered ${response.status}`);
  await response.text();
});
const issues = await db.prisma.issue.count({ where: { orgId: org.id } });
const result = {
  database: db.kind,
  issues,
  load_seconds: Number((loadMs / 1000).toFixed(1)),
  node: process.version,
  results: [page],
};
mkdirSync('bench/results', { recursive: true });
writeFileSync('bench/results/dashboard.json', `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
await app.close();
await db.close();
