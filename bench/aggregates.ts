// npm run bench:aggregates — the dashboard's aggregate query (issue 18) on the benchmark's data
// set: server time of the GraphQL request through the whole app (app.fetch, no socket: auth,
// parse, validate, execute, the SQL) and of the operation alone, on PostgreSQL.
//
// A fresh database on BENCH_POSTGRES_URL's server (dropped at the end); BENCH_ISSUES issues
// (default 100000), one history event per Done issue (completedPerWeek reads them);
// BENCH_AGG_RUNS measured runs (default 50) after 5 warm-up runs.
import { createApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { aggregateIssues, ISSUE_GROUPINGS } from '../src/schema/issues/aggregates.js';
import { operatorContext } from '../src/schema/core/operator.js';
import { planDataset, seedBase, seedIssues } from './lib/dataset.js';
import { createBenchDatabase, DEFAULT_POSTGRES_URL } from './lib/pg-admin.js';

const ISSUES = Number(process.env.BENCH_ISSUES ?? 100_000);
const RUNS = Number(process.env.BENCH_AGG_RUNS ?? 50);
const DASHBOARD = `{ issueAggregates(weeks: 12) {
  total byStatus { status count } byPriority { priority count } byAssignee { assigneeId count }
  byProject { projectId count } createdPerWeek { weekStart count } completedPerWeek { weekStart count } } }`;

async function timed(label: string, run: () => Promise<unknown>) {
  for (let i = 0; i < 5; i++) await run();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  const at = (q: number) => ms[Math.min(ms.length - 1, Math.floor(q * ms.length))]!.toFixed(2);
  console.log(`${label}: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, min ${ms[0]!.toFixed(2)} ms (${RUNS} runs)`);
}

const bench = await createBenchDatabase(process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL);
const db = await openDatabase(bench.url);
try {
  await applyMigrations(db.adapterFactory);
  const plan = planDataset(ISSUES);
  await seedBase(db.prisma, plan);
  await seedIssues(db.prisma, plan, 'all');
  await db.prisma.$executeRawUnsafe(`
    INSERT INTO events (id, org_id, type, subject_id, project_id, via, changes, to_status, created_at)
    SELECT gen_random_uuid(), org_id, 'issue.updated', id, project_id, 'cli', '[]', 'Done', updated_at FROM issues WHERE status = 'Done'`);
  await db.prisma.$executeRawUnsafe('ANALYZE');
  console.log(`${ISSUES} issues seeded; PostgreSQL ${bench.name}`);
  const app = await createApp(testConfig({ databaseUrl: bench.url }), { db });
  const token = plan.users.find((u) => u.role === 'viewer')!.tokens[0]!;
  const request = () =>
    app
      .fetch(
        new Request(`${app.config.baseUrl}/api/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: DASHBOARD }),
        }),
      )
      .then(async (r) => {
        const body = (await r.json()) as { errors?: unknown };
        if (r.status !== 200 || body.errors) throw new Error(JSON.stringify(body));
      });
  const ctx = operatorContext(db.prisma, { orgId: plan.orgId });
  await timed('GraphQL dashboard query through app.fetch (every grouping, 12 weeks)', request);
  await timed('aggregateIssues.run, every grouping', () =>
    aggregateIssues.run(ctx, { groupBy: [...ISSUE_GROUPINGS], weeks: 12 }, undefined),
  );
  await timed('aggregateIssues.run, status + priority + created weeks', () =>
    aggregateIssues.run(ctx, { groupBy: ['status', 'priority', 'createdWeek'], weeks: 12 }, undefined),
  );
  await timed('aggregateIssues.run, filtered (status in Todo, In Progress; priority high)', () =>
    aggregateIssues.run(
      ctx,
      { filter: { status: ['Todo', 'In Progress'], priority: ['high'] }, groupBy: [...ISSUE_GROUPINGS], weeks: 12 },
      undefined,
    ),
  );
  await app.close();
} finally {
  await db.close();
  await bench.drop();
}
