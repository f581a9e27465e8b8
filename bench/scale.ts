// npm run bench:scale: throughput of one instance against two behind HAProxy, on the deploy/
// recipe (HAProxy with deploy/haproxy.cfg, PgBouncer with deploy/pgbouncer.ini, instances started
// as npm start and the systemd unit start them), for the REST read and create, each beside the
// same number of raw baseline processes (bench/baseline-server.ts) behind the same HAProxy and
// PgBouncer in the same run. Besides req/s it reads the CPU seconds each part used (the
// instances, HAProxy, PgBouncer, PostgreSQL's processes, this load generator) from /proc, which
// says what limits the throughput. docs/benchmarks.md ("Scaling out") has
// the figures and what more cores or a second machine would change.
//
// BENCH_ISSUES (default 5000), BENCH_DURATION (8 s), BENCH_CONNECTIONS (32), BENCH_POSTGRES_URL
// (default postgresql://postgres@127.0.0.1:5432/postgres: a fresh database is made and dropped).
// BENCH_ROUNDS (2): interleaved app/baseline runs per workload, the median reported.
// Ports: HAProxy BENCH_SCALE_PORT (4790) for the app and the next port for the baseline, PgBouncer BENCH_SCALE_PGBOUNCER_PORT (6442); the
// servers take free ports. No pinning: with two instances on two cores the scheduler places them.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { planDataset, seedBase, seedIssues } from './lib/dataset.js';
import { drive, type LoadResult } from './lib/load.js';
import { createBenchDatabase, DEFAULT_POSTGRES_URL } from './lib/pg-admin.js';
import { cpuSeconds, freePort, machineBusySeconds, startChild, waitForHttp, type Child } from './lib/proc.js';
import { noAuthUser, workloads, type WorkloadId } from './lib/workloads.js';
import { npmStartArgs } from '../scripts/npm-start-args.js';

const ROOT = resolve(import.meta.dirname, '..');
const RESULTS = join(ROOT, 'bench', 'results');
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const DURATION = env('BENCH_DURATION', 8);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);
const PROXY_PORT = env('BENCH_SCALE_PORT', 4790);
const PGBOUNCER_PORT = env('BENCH_SCALE_PGBOUNCER_PORT', 6442);
const POSTGRES = new URL(process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL);
const PASSWORD = 'bench-scale';
const WORKLOADS: WorkloadId[] = ['rest_read', 'rest_create'];
const ROUNDS = env('BENCH_ROUNDS', 2);
type Kind = 'app' | 'baseline';
type Tool = Awaited<ReturnType<typeof startTool>>;

/** A process of ours that is no Node server: HAProxy, PgBouncer. */
function startTool(command: string, args: string[], envExtra: Record<string, string>, ready: RegExp) {
  const proc: ChildProcess = spawn(command, args, {
    env: { ...process.env, ...envExtra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((r) => proc.once('exit', () => r()));
  return new Promise<{ proc: ChildProcess; stop: () => Promise<void> }>((resolveStart, reject) => {
    const seen = (chunk: Buffer) => {
      output += chunk;
      const stop = async () => {
        proc.kill('SIGTERM');
        await exited;
      };
      if (ready.test(output)) resolveStart({ proc, stop });
    };
    proc.stdout!.on('data', seen);
    proc.stderr!.on('data', seen);
    proc.once('exit', (code) => reject(new Error(`${command} exited (${code}): ${output.slice(-800)}`)));
  });
}

/** PgBouncer with deploy/pgbouncer.ini, its placeholders filled in as envsubst would (deploy/README.md). */
async function startPgBouncer(dir: string) {
  const vars: Record<string, string> = {
    WM_PG_HOST: POSTGRES.hostname,
    WM_PG_PORT: POSTGRES.port || '5432',
    WM_PGBOUNCER_PORT: String(PGBOUNCER_PORT),
    WM_PGBOUNCER_DIR: dir,
  };
  const ini = readFileSync(join(ROOT, 'deploy', 'pgbouncer.ini'), 'utf8').replace(
    /\$\{([A-Z0-9_]+)\}/g,
    (_, n) => vars[n]!,
  );
  writeFileSync(join(dir, 'pgbouncer.ini'), ini);
  writeFileSync(join(dir, 'userlist.txt'), `"${decodeURIComponent(POSTGRES.username) || 'postgres'}" "${PASSWORD}"\n`);
  const asRoot = process.getuid?.() === 0; // PgBouncer refuses root: it switches to nobody
  if (asRoot) for (const path of [dir, join(dir, 'pgbouncer.ini'), join(dir, 'userlist.txt')]) chmodSync(path, 0o777);
  return startTool('pgbouncer', [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')], {}, /process up/);
}

/**
 * HAProxy with deploy/haproxy.cfg, its three server lines replaced by one per port in `ports`;
 * the baseline has no /readyz, so its servers are checked on the path it answers instead.
 */
async function startHaproxy(dir: string, listen: number, ports: number[], checkPath: string) {
  const recipe = readFileSync(join(ROOT, 'deploy', 'haproxy.cfg'), 'utf8').replace('uri /readyz', `uri ${checkPath}`);
  const servers = ports.map((port, i) => `    server app${i + 1} 127.0.0.1:${port} check`).join('\n');
  const cfg = recipe.replace(/( {4}server app\d .*\n)+/, `${servers}\n`);
  const file = join(dir, `haproxy-${ports.join('-')}.cfg`);
  writeFileSync(file, cfg);
  return startTool(
    'haproxy',
    ['-W', '-db', '-f', file],
    { WM_LISTEN: `127.0.0.1:${listen}`, WM_HAPROXY_RUN: dir },
    /Loading success/,
  );
}

/** CPU seconds of `pid` and its descendants (HAProxy's master and worker). */
function cpuOfTree(pid: number | undefined): number {
  if (!pid) return 0;
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // gone meanwhile
  }
  return cpuSeconds(pid) + children.reduce((sum, child) => sum + cpuOfTree(child), 0);
}

/**
 * CPU seconds of the PostgreSQL backends serving `database` (PgBouncer's server connections,
 * which live through a run) and of the WAL writer, which every commit wakes. Other databases'
 * backends on a shared server are left out; PostgreSQL must run on this machine.
 */
async function postgresCpu(database: string): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES.href });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = $1 OR backend_type = 'walwriter'`,
      [database],
    );
    return rows.reduce((sum, row) => sum + (cpuSeconds(row.pid) || 0), 0);
  } finally {
    await client.end();
  }
}

const created = await createBenchDatabase(POSTGRES.href);
const directUrl = created.url;
const pooledUrl = (() => {
  const u = new URL(directUrl);
  u.password = PASSWORD;
  u.username ||= 'postgres';
  u.port = String(PGBOUNCER_PORT);
  u.hostname = '127.0.0.1';
  return u.href;
})();
const dir = mkdtempSync(join(tmpdir(), 'wm-bench-scale-'));
const cleanups: (() => Promise<unknown>)[] = [async () => rmSync(dir, { recursive: true, force: true }), created.drop];
const rows: Record<string, unknown>[] = [];
try {
  const db = await openDatabase(directUrl);
  await applyMigrations(db.adapterFactory);
  const plan = planDataset(env('BENCH_ISSUES', 5000));
  await seedBase(db.prisma, plan);
  await seedIssues(db.prisma, plan, 'all');
  await db.prisma.$executeRawUnsafe('ANALYZE');
  await db.close();
  const pgbouncer = await startPgBouncer(dir);
  cleanups.unshift(() => pgbouncer.stop());
  const user = noAuthUser(plan);
  const all = workloads(plan);

  const kinds = {
    app: (port: number) =>
      startChild(`app:${port}`, npmStartArgs({ absolute: true }), {
        env: {
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: pooledUrl,
          MIGRATION_DATABASE_URL: directUrl,
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          PAT_CACHE: 'on',
          TRUST_PROXY: 'true',
          BASE_URL: `http://127.0.0.1:${PROXY_PORT}`,
          WEBHOOKS_SECRET_KEY: 'bench scale key for sealing webhook secrets',
        },
        port,
      }),
    baseline: (port: number) =>
      startChild(`baseline:${port}`, ['--import', 'tsx', join(ROOT, 'bench/baseline-server.ts')], {
        env: {
          PORT: String(port),
          DATABASE_URL: pooledUrl,
          BASELINE_NOAUTH_USER: user.id,
          BASELINE_NOAUTH_ORG: plan.orgId,
          BASELINE_NOAUTH_ROLE: user.role,
        },
        port,
      }),
  };

  for (const count of [1, 2]) {
    // Both sets run at once, each behind its own HAProxy; the runs alternate app, baseline, app...
    // so that a change in the machine's other load falls on both alike.
    const sets = [] as { kind: Kind; port: number; servers: Child[]; haproxy: Tool }[];
    try {
      for (const [n, kind] of (['app', 'baseline'] as const).entries()) {
        const servers: Child[] = [];
        for (let i = 0; i < count; i++) servers.push(kinds[kind](await freePort()));
        const port = PROXY_PORT + n;
        sets.push({ kind, port, servers, haproxy: undefined as unknown as Tool });
        await Promise.all(servers.map((s) => waitForHttp(s, '/api/me')));
        const run = join(dir, kind);
        mkdirSync(run, { recursive: true });
        sets[n]!.haproxy = await startHaproxy(
          run,
          port,
          servers.map((s) => s.port),
          kind === 'app' ? '/readyz' : '/__bench/stats',
        );
      }
      // HAProxy's checks (rise 2, inter 1 s) put the servers in rotation.
      await new Promise((r) => setTimeout(r, 2500));
      for (const id of WORKLOADS) {
        for (const set of sets) await drive(set.port, all[id], { connections: CONNECTIONS, durationS: 2 });
        for (let round = 1; round <= ROUNDS; round++) {
          for (const { kind, port, servers, haproxy } of sets) {
            const cpu = async () => ({
              servers: servers.reduce((sum, s) => sum + cpuSeconds(s.proc.pid), 0),
              haproxy: cpuOfTree(haproxy.proc.pid),
              pgbouncer: cpuSeconds(pgbouncer.proc.pid),
              postgres: await postgresCpu(created.name),
              loadGenerator: cpuSeconds(process.pid),
              machine: machineBusySeconds(),
            });
            const before = await cpu();
            const result: LoadResult = await drive(port, all[id], { connections: CONNECTIONS, durationS: DURATION });
            const after = await cpu();
            const used = Object.fromEntries(
              Object.entries(after).map(([part, seconds]) => [
                part,
                +((seconds - before[part as keyof typeof before]) / result.duration_s).toFixed(2),
              ]),
            );
            const row = {
              workload: id,
              kind,
              instances: count,
              round,
              rps: result.rps,
              p50_ms: result.p50_ms,
              p99_ms: result.p99_ms,
              non2xx: result.non2xx,
              errors: result.errors,
              cores_busy: used,
              // CPU per request (ms) of each part: steadier than req/s on a machine shared with other work.
              cpu_ms_per_request: Object.fromEntries(
                Object.entries(used).map(([part, cores]) => [part, +((1000 * cores) / result.rps).toFixed(3)]),
              ),
            };
            rows.push(row);
            process.stdout.write(
              `${id} ${kind} x${count} r${round}: ${result.rps.toFixed(0)} req/s p50 ${result.p50_ms} ms` +
                `${result.non2xx || result.errors ? ` NON-2XX ${result.non2xx} ERRORS ${result.errors}` : ''} | cores busy ${JSON.stringify(used)} | CPU ms/request ${JSON.stringify(row.cpu_ms_per_request)}\n`,
            );
          }
        }
      }
    } finally {
      for (const set of sets) {
        await set.haproxy?.stop();
        for (const s of set.servers) await s.stop();
      }
    }
  }
} finally {
  for (const cleanup of cleanups) await cleanup().catch(() => {});
}

/** The median req/s of the rounds of one workload, kind and count. */
const rps = (workload: string, kind: string, instances: number) => {
  const runs = rows
    .filter((r) => r.workload === workload && r.kind === kind && r.instances === instances)
    .map((r) => r.rps as number)
    .sort((a, b) => a - b);
  if (!runs.length) return NaN;
  const mid = Math.floor(runs.length / 2);
  return runs.length % 2 ? runs[mid]! : (runs[mid - 1]! + runs[mid]!) / 2;
};
const summary = WORKLOADS.map((id) => ({
  workload: id,
  ratio_1: +(rps(id, 'app', 1) / rps(id, 'baseline', 1)).toFixed(2),
  ratio_2: +(rps(id, 'app', 2) / rps(id, 'baseline', 2)).toFixed(2),
  app_speedup: +(rps(id, 'app', 2) / rps(id, 'app', 1)).toFixed(2),
  baseline_speedup: +(rps(id, 'baseline', 2) / rps(id, 'baseline', 1)).toFixed(2),
}));
for (const s of summary)
  process.stdout.write(
    `${s.workload}: app/baseline ${s.ratio_1} with one of each, ${s.ratio_2} with two; two instances give the app x${s.app_speedup}, the baseline x${s.baseline_speedup}\n`,
  );
mkdirSync(RESULTS, { recursive: true });
writeFileSync(
  join(RESULTS, 'scale.json'),
  JSON.stringify(
    {
      at: new Date().toISOString(),
      cores: cpus().length,
      // Load averages (1, 5, 15 min) at the end: other work on the machine competes for the same cores.
      loadavg: loadavg(),
      duration_s: DURATION,
      connections: CONNECTIONS,
      rows,
      summary,
    },
    null,
    2,
  ),
);
process.stdout.write(`written: ${join(RESULTS, 'scale.json')}\n`);
