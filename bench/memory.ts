// npm run bench:memory: the memory an instance holds, on the embedded database (PGlite) and on
// PostgreSQL. Not a timed test: figures for docs/operating.md, reproducible with this command.
//
// Per database: a seeded database (BENCH_ISSUES issues, default 5000; PostgreSQL in a database of
// its own, MEMORY_POSTGRES_DB, default footprint_bench, dropped and made again), then the service as
// `npm start` runs it (MEMORY_START=tsx: from the sources through tsx instead), a child process:
// its start-up time (spawn to its first answer), resident memory (VmRSS) when idle after start,
// after MEMORY_LOAD_S seconds (default 5) of each of three workloads at 8 connections, and its
// peak (VmHWM). Then where the memory goes: bench/memory-phases.mjs builds the service one piece at
// a time in a child process and reads process.memoryUsage() after each piece.
// MEMORY_DBS=pglite,postgres picks the databases; BENCH_POSTGRES_URL the server (default local).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { planDataset, seedBase, seedIssues, type Plan } from './lib/dataset.js';
import { drive } from './lib/load.js';
import { DEFAULT_POSTGRES_URL, redactUrl } from './lib/pg-admin.js';
import { freePort, startChild, waitForHttp } from './lib/proc.js';
import { workloads } from './lib/workloads.js';
import { npmStartArgs, npmStartFlags } from '../scripts/npm-start-args.js';

const ROOT = resolve(import.meta.dirname, '..');
const ISSUES = Number(process.env.BENCH_ISSUES ?? 5000);
const LOAD_S = Number(process.env.MEMORY_LOAD_S ?? 5);
const IDLE_MS = 5000;
const FROM_SOURCES = process.env.MEMORY_START === 'tsx';
const DBS = (process.env.MEMORY_DBS ?? 'pglite,postgres').split(',');
const SERVER_URL = process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL;
const PG_DB = process.env.MEMORY_POSTGRES_DB ?? 'footprint_bench';

const mb = (bytes: number) => (bytes / 1048576).toFixed(0);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM, RssAnon, RssFile). */
function status(pid: number, field: string): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(line?.split(/\s+/)[1] ?? NaN) * 1024;
}

async function admin(sql: string) {
  const client = new pg.Client({ connectionString: SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function seeded(url: string): Promise<Plan> {
  const db = await openDatabase(url);
  try {
    await applyMigrations(db.adapterFactory);
    const plan = planDataset(ISSUES);
    await seedBase(db.prisma, plan);
    await seedIssues(db.prisma, plan, 'all');
    await db.prisma.$executeRawUnsafe('ANALYZE');
    return plan;
  } finally {
    await db.close();
  }
}

/** The command `npm start` runs (package.json), or the sources through tsx. */
function serverArgs(): string[] {
  if (FROM_SOURCES) return ['--import', 'tsx', join(ROOT, 'src/server.ts')];
  return npmStartArgs({ absolute: true });
}

interface Row {
  database: string;
  startMs: number;
  idle: number;
  loaded: number;
  idleAfter: number;
  peak: number;
  requests: number;
}

async function measure(database: string, url: string, plan: Plan): Promise<Row> {
  const port = await freePort();
  const began = performance.now();
  const child = startChild('app', serverArgs(), {
    env: { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: url, LOG_LEVEL: 'warn', LOAD_SHED_LAG_MS: '0' },
    port,
  });
  try {
    await waitForHttp(child, '/api/me');
    const startMs = performance.now() - began;
    const pid = child.proc.pid!;
    await sleep(IDLE_MS);
    const idle = status(pid, 'VmRSS');
    const all = workloads(plan);
    let requests = 0;
    for (const workload of [all.rest_read, all.rest_create, all.graphql_nested]) {
      const result = await drive(port, workload, { connections: 8, durationS: LOAD_S });
      if (result.non2xx || result.errors) throw new Error(`${workload.id}: ${JSON.stringify(result.statuses)}`);
      requests += result.requests;
    }
    const loaded = status(pid, 'VmRSS');
    await sleep(IDLE_MS * 2);
    return { database, startMs, idle, loaded, idleAfter: status(pid, 'VmRSS'), peak: status(pid, 'VmHWM'), requests };
  } finally {
    await child.stop();
  }
}

interface Reading {
  phase: string;
  rss: number;
  heapUsed: number;
  external: number;
}

function phases(url: string): Reading[] {
  const args = FROM_SOURCES
    ? ['--expose-gc', '--import', 'tsx', 'bench/memory-phases.mjs', 'src']
    : // With npm start's V8 flags (V8's baseline WebAssembly compiler only).
      ['--expose-gc', ...npmStartFlags(), 'bench/memory-phases.mjs', 'dist'];
  const out = spawnSync(process.execPath, args, {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`memory-phases failed:\n${out.stderr}`);
  return JSON.parse(out.stdout.trim().split('\n').pop()!) as Reading[];
}

if (!FROM_SOURCES) {
  // The built service, as `npm start` builds it (the phases read it from dist/).
  const build = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const rows: Row[] = [];
const breakdowns: [string, Reading[]][] = [];
for (const database of DBS) {
  let url: string;
  let cleanup: () => Promise<void>;
  if (database === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'footprint-'));
    url = `file:${dir}`;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  } else if (database === 'postgres') {
    await admin(`DROP DATABASE IF EXISTS ${PG_DB} WITH (FORCE)`);
    await admin(`CREATE DATABASE ${PG_DB}`);
    const u = new URL(SERVER_URL);
    u.pathname = `/${PG_DB}`;
    url = u.href;
    cleanup = () => admin(`DROP DATABASE IF EXISTS ${PG_DB} WITH (FORCE)`);
  } else {
    throw new Error(`MEMORY_DBS: unknown database ${database}`);
  }
  try {
    process.stdout.write(`${database}: seeding ${ISSUES} issues in ${redactUrl(url)}\n`);
    const plan = await seeded(url);
    rows.push(await measure(database, url, plan));
    breakdowns.push([database, phases(url)]);
  } finally {
    await cleanup();
  }
}

const how = FROM_SOURCES ? 'node --import tsx src/server.ts' : `npm start (${serverArgs().join(' ')})`;
const lines = [
  `Service started as: ${how}; Node ${process.version}; ${ISSUES} issues; load: ${LOAD_S} s each of rest_read, rest_create, graphql_nested at 8 connections.`,
  '',
  '| database | start-up | idle RSS | RSS after load | idle again | peak RSS | requests |',
  '|---|---:|---:|---:|---:|---:|---:|',
  ...rows.map(
    (r) =>
      `| ${r.database} | ${(r.startMs / 1000).toFixed(1)} s | ${mb(r.idle)} MB | ${mb(r.loaded)} MB | ${mb(r.idleAfter)} MB | ${mb(r.peak)} MB | ${r.requests} |`,
  ),
];
for (const [database, readings] of breakdowns) {
  lines.push('', `Where it goes on ${database} (after each step, garbage collected; MB):`, '');
  lines.push('| step | RSS | +RSS | V8 heap used | external |', '|---|---:|---:|---:|---:|');
  let previous = 0;
  for (const r of readings) {
    lines.push(
      `| ${r.phase} | ${mb(r.rss)} | ${previous ? mb(r.rss - previous) : ''} | ${mb(r.heapUsed)} | ${mb(r.external)} |`,
    );
    previous = r.rss;
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
