// npm run bench:quick -- [workload ...]: the service against the raw baseline on a few workloads,
// for the loop of changing one thing and measuring it (the full comparison is `npm run bench`).
//
// Seeds a PostgreSQL database once (BENCH_ISSUES, default 20000) and keeps it with its plan in
// bench/results/quick-plan.json, so later runs start in seconds; BENCH_QUICK_RESEED=1 makes a
// new one. Then, per workload: the app and the baseline pinned to core 0 as in `npm run bench`,
// BENCH_ROUNDS interleaved pairs of BENCH_DURATION seconds each, load from core 1.
// Workloads: rest_read rest_create rest_me graphql_nested (default: all four). BENCH_QUICK_PROFILE=1
// also writes the CPU profiles of the app (bench/results/profiles/quick) and of the baseline
// (profiles/quick-baseline) and prints where the time of each went.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { planDataset, seedBase, seedIssues, type Plan } from './lib/dataset.js';
import { drive } from './lib/load.js';
import { createBenchDatabase, DEFAULT_POSTGRES_URL } from './lib/pg-admin.js';
import { summariseProfile } from './lib/profile.js';
import { cpuSeconds, freePort, pinSelf, startChild, waitForHttp, type Child } from './lib/proc.js';
import { noAuthUser, workloads, type WorkloadId } from './lib/workloads.js';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'bench', 'results');
const PLAN_FILE = join(RESULTS, 'quick-plan.json');
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const DURATION = env('BENCH_DURATION', 5);
const ROUNDS = env('BENCH_ROUNDS', 1);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const TSX = ['--import', 'tsx'];

async function dataset(): Promise<{ url: string; plan: Plan }> {
  if (existsSync(PLAN_FILE) && !process.env.BENCH_QUICK_RESEED)
    return JSON.parse(readFileSync(PLAN_FILE, 'utf8')) as { url: string; plan: Plan };
  const created = await createBenchDatabase(process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL);
  const db = await openDatabase(created.url);
  await applyMigrations(db.adapterFactory);
  const plan = planDataset(env('BENCH_ISSUES', 20_000));
  await seedBase(db.prisma, plan);
  await seedIssues(db.prisma, plan, 'all');
  await db.prisma.$executeRawUnsafe('ANALYZE');
  await db.close();
  mkdirSync(RESULTS, { recursive: true });
  writeFileSync(PLAN_FILE, JSON.stringify({ url: created.url, plan }));
  process.stdout.write(`seeded ${created.name} with ${plan.totalIssues} issues (kept: ${PLAN_FILE})\n`);
  return { url: created.url, plan };
}

const PROFILE_DIR = join(RESULTS, 'profiles', 'quick');
/** The baseline's profile, to set beside the app's (what the app spends that the baseline does not). */
const BASELINE_PROFILE_DIR = join(RESULTS, 'profiles', 'quick-baseline');
const PROFILE = process.env.BENCH_QUICK_PROFILE === '1';
// Only this run's profiles: the summary below reads the largest file in the folder.
if (PROFILE) for (const dir of [PROFILE_DIR, BASELINE_PROFILE_DIR]) rmSync(dir, { recursive: true, force: true });

async function start(
  name: string,
  script: string,
  extra: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<Child> {
  const port = await freePort();
  const child = startChild(name, [...nodeArgs, ...TSX, join(ROOT, script)], {
    env: { PORT: String(port), ...extra },
    port,
    core: 0,
  });
  await waitForHttp(child, '/api/me');
  return child;
}

const { url, plan } = await dataset();
pinSelf(1);
const user = noAuthUser(plan);
const app = await start(
  'app',
  'src/server.ts',
  {
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    PAT_CACHE: 'on',
    NODE_ENV: 'production',
    MIGRATE_ON_START: 'false',
  },
  PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] : [],
);
const baseline = await start(
  'baseline',
  'bench/baseline-server.ts',
  {
    DATABASE_URL: url,
    BASELINE_NOAUTH_USER: user.id,
    BASELINE_NOAUTH_ORG: plan.orgId,
    BASELINE_NOAUTH_ROLE: user.role,
  },
  PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${BASELINE_PROFILE_DIR}`] : [],
);
const all = workloads(plan);
/** When each server's last measured run was, and when it stopped (a profile is summarised over that run alone). */
const loaded = new Map<Child, { from: number; to: number }>();
const stoppedAt = new Map<Child, number>();
const chosen = (
  process.argv.slice(2).length ? process.argv.slice(2) : ['rest_read', 'rest_create', 'rest_me', 'graphql_nested']
) as WorkloadId[];
try {
  for (const id of chosen) {
    const workload = all[id];
    if (!workload) throw new Error(`no workload ${id}: ${Object.keys(all).join(', ')}`);
    for (let round = 1; round <= ROUNDS; round++) {
      const line: string[] = [];
      const rps: number[] = [];
      for (const child of [app, baseline]) {
        await drive(child.port, workload, { connections: CONNECTIONS, durationS: 1 });
        const before = cpuSeconds(child.proc.pid);
        const startedAt = Date.now();
        const result = await drive(child.port, workload, { connections: CONNECTIONS, durationS: DURATION });
        loaded.set(child, { from: startedAt, to: Date.now() });
        const cpu = ((cpuSeconds(child.proc.pid) - before) * 1e6) / Math.max(1, result.requests);
        const bad = result.non2xx || result.errors ? ` NON-2XX ${result.non2xx} ERRORS ${result.errors}` : '';
        rps.push(result.rps);
        line.push(
          `${child.name} ${result.rps.toFixed(0)} req/s p50 ${result.p50_ms} ms cpu ${cpu.toFixed(0)} us/req${bad}`,
        );
      }
      process.stdout.write(`${id} r${round}: ${((100 * rps[0]!) / rps[1]!).toFixed(0)}% | ${line.join(' | ')}\n`);
    }
  }
} finally {
  for (const child of [app, baseline]) {
    await child.stop();
    stoppedAt.set(child, Date.now());
  }
}
if (PROFILE) {
  for (const [child, dir] of [
    [app, PROFILE_DIR],
    [baseline, BASELINE_PROFILE_DIR],
  ] as const) {
    const largest = readdirSync(dir)
      .filter((f) => f.endsWith('.cpuprofile'))
      .map((f) => join(dir, f))
      .sort((a, b) => statSync(b).size - statSync(a).size)[0]!; // the main thread's (tsx's loader thread writes one too)
    const run = loaded.get(child)!;
    const end = stoppedAt.get(child)!;
    const summary = summariseProfile(
      largest,
      { fromEndSeconds: (end - run.from) / 1000, toEndSeconds: (end - run.to) / 1000 },
      25,
    );
    process.stdout.write(`${child.name} profile ${largest}\n`);
    for (const p of summary.by_package.slice(0, 15))
      process.stdout.write(`  ${p.percent.toFixed(1).padStart(5)}%  ${p.package}\n`);
    for (const f of summary.top_functions)
      process.stdout.write(`  ${f.percent.toFixed(1).padStart(5)}%  ${f.function}  ${f.where}\n`);
  }
}
