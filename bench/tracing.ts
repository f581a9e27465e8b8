// npm run bench:tracing -- [workload ...]: what tracing costs. Three services on one PostgreSQL
// database seeded here (BENCH_ISSUES, default 2000; dropped at the end), all from the same build
// of dist/: `none`, the service without the tracing preload (bench/start-untraced.mjs, what it
// was before traces); `off`, as `npm start` runs it with no OTEL_* variable; `on`, the same with
// every request sampled and exported over OTLP/HTTP protobuf to a sink in this process that
// answers 200. Per workload: BENCH_ROUNDS (default 3) rounds of BENCH_DURATION (default 5)
// seconds at BENCH_CONNECTIONS (default 32) per service, interleaved (each round starts with the
// next service, so none always runs first), the services pinned to core 0 and the load to core 1
// when taskset exists. Workloads: rest_read rest_me rest_create graphql_nested (default:
// rest_read rest_me graphql_nested). Prints each round (requests per second, p50 and the
// service's CPU per request), then per workload the medians and off-vs-none and on-vs-off with
// their spread over the rounds, and at the end each service's resident memory.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { planDataset, seedBase, seedIssues } from './lib/dataset.js';
import { drive } from './lib/load.js';
import { createBenchDatabase, DEFAULT_POSTGRES_URL } from './lib/pg-admin.js';
import { cpuSeconds, freePort, pinSelf, startChild, waitForHttp, type Child } from './lib/proc.js';
import { workloads, type WorkloadId } from './lib/workloads.js';
import { npmStartArgs, npmStartFlags } from '../scripts/npm-start-args.js';

const ROOT = resolve(import.meta.dirname, '..');
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const DURATION = env('BENCH_DURATION', 5);
const ROUNDS = env('BENCH_ROUNDS', 3);
const CONNECTIONS = env('BENCH_CONNECTIONS', 32);

/** The OTLP receiver: takes every export and answers 200 without decoding it. */
let exports = 0;
let exportedBytes = 0;
const sink = createServer((request, response) => {
  request.on('data', (chunk: Buffer) => (exportedBytes += chunk.length));
  request.on('end', () => {
    exports++;
    response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
await new Promise<void>((done) => sink.listen(0, '127.0.0.1', done));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;

// One build for the three, made before any starts (`npm start` would otherwise build it in the first).
const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale'], { stdio: 'inherit' });
if (built.status !== 0) throw new Error('scripts/build.mjs failed');

const created = await createBenchDatabase(process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL);
const db = await openDatabase(created.url);
await applyMigrations(db.adapterFactory);
const plan = planDataset(env('BENCH_ISSUES', 2000));
await seedBase(db.prisma, plan);
await seedIssues(db.prisma, plan, 'all');
await db.prisma.$executeRawUnsafe('ANALYZE');
await db.close();

type Mode = 'none' | 'off' | 'on';
/** As npm start runs it; `none` with its flags, through bench/start-untraced.mjs instead of its script. */
const entries: Record<Mode, string[]> = {
  none: [...npmStartFlags(), join(ROOT, 'bench/start-untraced.mjs')],
  off: npmStartArgs({ absolute: true }),
  on: npmStartArgs({ absolute: true }),
};
// Whatever this shell says, only `on` asks for traces.
const noTracing = { OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '', OTEL_TRACES_EXPORTER: '' };
const tracingEnv: Record<Mode, Record<string, string>> = {
  none: noTracing,
  off: noTracing,
  on: { ...noTracing, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_SERVICE_NAME: 'workmgmt-bench' },
};

async function start(mode: Mode): Promise<Child> {
  const port = await freePort();
  const child = startChild(mode, entries[mode], {
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: created.url,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      MIGRATE_ON_START: 'false',
      LOAD_SHED_LAG_MS: '0',
      ...tracingEnv[mode],
    },
    port,
    core: 0,
  });
  await waitForHttp(child, '/api/me');
  return child;
}

interface Measured {
  rps: number;
  p50: number;
  cpuUs: number;
}
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
/** `b` against `a` in per cent, over the rounds: the median, and the lowest and highest. */
function compare(a: Measured[], b: Measured[], key: keyof Measured): string {
  const ratios = a.map((_, i) => (100 * b[i]![key]) / a[i]![key]);
  const pct = (n: number) => `${n.toFixed(0)}%`;
  return `${key} ${pct(median(ratios))} (${pct(Math.min(...ratios))}..${pct(Math.max(...ratios))})`;
}
const rssMb = (pid: number | undefined) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

const all = workloads(plan);
const chosen = (
  process.argv.slice(2).length ? process.argv.slice(2) : ['rest_read', 'rest_me', 'graphql_nested']
) as WorkloadId[];
pinSelf(1);
const children: Child[] = [];
const modes: Mode[] = ['none', 'off', 'on'];
try {
  // All on the pinned core; those not measured are idle.
  const services = {} as Record<Mode, Child>;
  for (const mode of modes) {
    services[mode] = await start(mode);
    children.push(services[mode]);
  }
  const summary: string[] = [];
  for (const id of chosen) {
    const workload = all[id];
    if (!workload) throw new Error(`no workload ${id}: ${Object.keys(all).join(', ')}`);
    const results: Record<Mode, Measured[]> = { none: [], off: [], on: [] };
    for (let round = 1; round <= ROUNDS; round++) {
      const line: string[] = [];
      const order = modes.map((_, i) => modes[(i + round - 1) % modes.length]!);
      for (const mode of order) {
        const child = services[mode];
        await drive(child.port, workload, { connections: CONNECTIONS, durationS: 1 });
        const before = cpuSeconds(child.proc.pid);
        const result = await drive(child.port, workload, { connections: CONNECTIONS, durationS: DURATION });
        const cpuUs = ((cpuSeconds(child.proc.pid) - before) * 1e6) / Math.max(1, result.requests);
        const bad = result.non2xx || result.errors ? ` NON-2XX ${result.non2xx} ERRORS ${result.errors}` : '';
        results[mode].push({ rps: result.rps, p50: result.p50_ms, cpuUs });
        line.push(
          `${mode} ${result.rps.toFixed(0)} req/s p50 ${result.p50_ms} ms cpu ${cpuUs.toFixed(0)} us/req${bad}`,
        );
      }
      process.stdout.write(`${id} r${round}: ${line.join(' | ')}\n`);
    }
    const medians = modes.map(
      (mode) =>
        `${mode} ${median(results[mode].map((r) => r.rps)).toFixed(0)} req/s p50 ${median(results[mode].map((r) => r.p50))} ms cpu ${median(results[mode].map((r) => r.cpuUs)).toFixed(0)} us/req`,
    );
    const against = (a: Mode, b: Mode) =>
      (['rps', 'p50', 'cpuUs'] as const).map((key) => compare(results[a], results[b], key)).join(', ');
    summary.push(
      `${id}: ${medians.join(' | ')}`,
      `  off vs none: ${against('none', 'off')}`,
      `  on vs off:   ${against('off', 'on')}`,
    );
  }
  process.stdout.write(`\nmedians of ${ROUNDS} rounds; ratios per round, median (lowest..highest):\n`);
  process.stdout.write(`${summary.join('\n')}\n`);
  const memory = modes.map((mode) => `${mode} ${rssMb(services[mode].proc.pid).toFixed(0)} MB`).join(' | ');
  process.stdout.write(`resident memory after the runs: ${memory}\n`);
  process.stdout.write(`exports received: ${exports} (${(exportedBytes / 1e6).toFixed(1)} MB)\n`);
} finally {
  for (const child of children) await child.stop();
  await created.drop();
  sink.close();
}
