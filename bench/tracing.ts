// npm run bench:tracing -- [workload ...]: what tracing costs. The service as `npm start` runs it
// (with the tracing preload, src/ops/tracing-start.ts), once with tracing off (no OTEL_* variable)
// and once on (every request sampled, exported over OTLP/HTTP protobuf to a sink in this process
// that answers 200), on a PostgreSQL database seeded here (BENCH_ISSUES, default 2000; dropped at
// the end). Per workload: BENCH_ROUNDS (default 2) interleaved pairs of BENCH_DURATION (default 5)
// seconds at BENCH_CONNECTIONS (default 32), the service pinned to core 0 and the load to core 1
// when taskset exists. Workloads: rest_read rest_me rest_create graphql_nested (default: rest_read
// rest_me graphql_nested). Prints requests per second, p50 and the service's CPU per request.
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

const ROOT = resolve(import.meta.dirname, '..');
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const DURATION = env('BENCH_DURATION', 5);
const ROUNDS = env('BENCH_ROUNDS', 2);
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

const created = await createBenchDatabase(process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL);
const db = await openDatabase(created.url);
await applyMigrations(db.adapterFactory);
const plan = planDataset(env('BENCH_ISSUES', 2000));
await seedBase(db.prisma, plan);
await seedIssues(db.prisma, plan, 'all');
await db.prisma.$executeRawUnsafe('ANALYZE');
await db.close();

async function start(name: string, extra: Record<string, string>): Promise<Child> {
  const port = await freePort();
  const child = startChild(
    name,
    ['--import', 'tsx', '--import', './src/ops/tracing-start.ts', join(ROOT, 'src/server.ts')],
    {
      env: {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: created.url,
        LOG_LEVEL: 'warn',
        NODE_ENV: 'production',
        MIGRATE_ON_START: 'false',
        LOAD_SHED_LAG_MS: '0',
        ...extra,
      },
      port,
      core: 0,
    },
  );
  await waitForHttp(child, '/api/me');
  return child;
}

const all = workloads(plan);
const chosen = (
  process.argv.slice(2).length ? process.argv.slice(2) : ['rest_read', 'rest_me', 'graphql_nested']
) as WorkloadId[];
pinSelf(1);
const children: Child[] = [];
try {
  // Both on the pinned core; the one not measured is idle.
  const off = await start('off', {});
  children.push(off);
  const on = await start('on', { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_SERVICE_NAME: 'workmgmt-bench' });
  children.push(on);
  for (const id of chosen) {
    const workload = all[id];
    if (!workload) throw new Error(`no workload ${id}: ${Object.keys(all).join(', ')}`);
    for (let round = 1; round <= ROUNDS; round++) {
      const line: string[] = [];
      const rps: number[] = [];
      for (const child of [off, on]) {
        await drive(child.port, workload, { connections: CONNECTIONS, durationS: 1 });
        const before = cpuSeconds(child.proc.pid);
        const result = await drive(child.port, workload, { connections: CONNECTIONS, durationS: DURATION });
        const cpu = ((cpuSeconds(child.proc.pid) - before) * 1e6) / Math.max(1, result.requests);
        const bad = result.non2xx || result.errors ? ` NON-2XX ${result.non2xx} ERRORS ${result.errors}` : '';
        rps.push(result.rps);
        line.push(
          `${child.name} ${result.rps.toFixed(0)} req/s p50 ${result.p50_ms} ms cpu ${cpu.toFixed(0)} us/req${bad}`,
        );
      }
      process.stdout.write(
        `${id} r${round}: on/off ${((100 * rps[1]!) / rps[0]!).toFixed(0)}% | ${line.join(' | ')}\n`,
      );
    }
  }
  process.stdout.write(`exports received: ${exports} (${(exportedBytes / 1e6).toFixed(1)} MB)\n`);
} finally {
  for (const child of children) await child.stop();
  await created.drop();
  sink.close();
}
