// npm run bench:tenants: the noisy-neighbour benchmark. One well-behaved tenant (the victim)
// reads its issue list at a steady rate while another tenant (the attacker) runs each attack of
// the "Every tenant metered and bounded" findings at its allowed rate. The victim's p50/p99 under
// each attack is compared with its p50/p99 alone; the service's RSS is sampled throughout.
//
// The real service runs as a child process (src/server.ts) on a fresh PostgreSQL database, so
// the victim's latency includes the attacker's cost to the shared event loop. The victim's
// requests are open-loop (sent on a fixed schedule whatever the answers do), so a stall shows
// in the percentiles instead of slowing the sender down.
//
// Target (ARCHITECTURE.md): the victim's p99 within 2x of alone for every attack, and the
// service never above 1 GB RSS.
//
// BENCH_TENANTS_SECONDS (default 15) per phase; BENCH_VICTIM_RPS (default 20);
// BENCH_ATTACKS (comma list, default all); TEST_POSTGRES_URL or the local server.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { MAX_BATCH_MESSAGES } from '../src/mcp/batch.js';
import { planDataset, seedBase, seedIssues, type Plan } from './lib/dataset.js';
import { percentile } from './lib/load.js';
import { createBenchDatabase, DEFAULT_POSTGRES_URL } from './lib/pg-admin.js';
import { freePort, startChild, waitForHttp } from './lib/proc.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_TENANTS_SECONDS ?? 15);
const VICTIM_RPS = Number(process.env.BENCH_VICTIM_RPS ?? 20);
const ONLY = process.env.BENCH_ATTACKS?.split(',').map((s) => s.trim());
/** One token's global budget: 600 requests a minute. */
const ALLOWED_RPS = 10;
const RSS_LIMIT_MB = 1024;

const log = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// --- data ---------------------------------------------------------------------------------
/** A second organization whose people have names of their own (emails and usernames are unique). */
function attackerPlan(): Plan {
  const plan = planDataset(1000);
  return {
    ...plan,
    orgName: 'Noisy Neighbour',
    orgSlug: `noisy-${plan.orgSlug}`,
    users: plan.users.map((u) => ({ ...u, username: `noisy.${u.username}`, email: `noisy.${u.email}` })),
  };
}

const server = await createBenchDatabase(process.env.TEST_POSTGRES_URL ?? DEFAULT_POSTGRES_URL);
const victim = planDataset(1000);
const attacker = attackerPlan();
{
  const db = await openDatabase(server.url);
  await applyMigrations(db.adapterFactory);
  for (const plan of [victim, attacker]) {
    await seedBase(db.prisma, plan);
    await seedIssues(db.prisma, plan, 'all');
  }
  // The attacker's first project: 100 issues with 50 KB descriptions, the largest answers it can ask for.
  await db.prisma.$executeRawUnsafe(
    `UPDATE issues SET description = repeat('x', 50000) WHERE project_id = $1::uuid`,
    attacker.projects[0]!.id,
  );
  await db.close();
}

const tokensOf = (plan: Plan, role: string) => plan.users.filter((u) => u.role === role).flatMap((u) => u.tokens);
const victimTokens = tokensOf(victim, 'member');
const attackerViewer = tokensOf(attacker, 'viewer')[0]!;
const attackerMember = tokensOf(attacker, 'member')[0]!;
const attackerOwner = tokensOf(attacker, 'owner')[0]!;
const victimOwner = tokensOf(victim, 'owner')[0]!;

// --- receivers ------------------------------------------------------------------------------
/** Accepts every connection and never answers: the slow receivers of the webhook attack. */
const hanging = new Set<Socket>();
const hangingReceiver = createServer((request) => {
  hanging.add(request.socket);
  request.socket.on('close', () => hanging.delete(request.socket));
});
/** The victim's receiver: answers at once and notes when each issue's event arrived. */
const arrivals = new Map<string, number>();
const victimReceiver = createServer((request: IncomingMessage, response: ServerResponse) => {
  let body = '';
  request.on('data', (c: Buffer) => (body += c.toString()));
  request.on('end', () => {
    try {
      const id = JSON.parse(body)?.data?.id;
      if (typeof id === 'string') arrivals.set(id, performance.now());
    } catch {
      // a ping, or not ours
    }
    response.end('ok');
  });
});
for (const r of [hangingReceiver, victimReceiver]) await new Promise<void>((ok) => r.listen(0, '127.0.0.1', ok));
const urlOf = (r: typeof hangingReceiver) => `http://127.0.0.1:${(r.address() as AddressInfo).port}/hook`;

// --- the service ----------------------------------------------------------------------------
const port = await freePort();
const app = startChild('app', ['--import', 'tsx', join(ROOT, 'src/server.ts')], {
  port,
  env: {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: server.url,
    LOG_LEVEL: 'error',
    REDIS_URL: undefined,
    BASE_URL: undefined,
    NODE_ENV: 'production',
    MIGRATE_ON_START: 'false',
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOKS_SECRET_KEY: 'bench key for sealing webhook secrets, 32+ chars',
  },
});
await waitForHttp(app, '/healthz');
const base = `http://127.0.0.1:${port}`;

function rssMb(): number {
  try {
    const line = readFileSync(`/proc/${app.proc.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/);
    return line ? Math.round(Number(line[1]) / 1024) : NaN;
  } catch {
    return NaN;
  }
}

/** A victim's read that takes longer than this counts as failed; an attacker's request is dropped after it. */
const REQUEST_TIMEOUT_MS = 30_000;

async function call(token: string, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('authorization', `Bearer ${token}`);
  if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return fetch(base + path, { ...init, headers, signal: init.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}

/** Reads the body and gives the status; a network error or a timeout counts as status 0. */
async function settle(response: Promise<Response>): Promise<number> {
  try {
    const r = await response;
    await r.arrayBuffer();
    return r.status;
  } catch {
    return 0;
  }
}

// --- the victim ------------------------------------------------------------------------------
interface ProbeInput {
  base: string;
  tokens: string[];
  projectIds: string[];
  rps: number;
  seconds: number;
  timeoutMs: number;
}

interface Probe {
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  sent: number;
  failed: number;
}

/** The victim's open-loop reads for `seconds`, timed in a worker thread of their own (bench/lib/victim-probe.mjs). */
function probeVictim(seconds: number): Promise<Probe> {
  const input: ProbeInput = {
    base,
    tokens: victimTokens,
    projectIds: victim.projects.map((p) => p.id),
    rps: VICTIM_RPS,
    seconds,
    timeoutMs: REQUEST_TIMEOUT_MS,
  };
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./lib/victim-probe.mjs', import.meta.url), { workerData: input });
    worker.once('message', (probe: Probe) => resolve(probe));
    worker.once('error', reject);
  });
}

// --- the attacks -----------------------------------------------------------------------------
interface Attack {
  id: string;
  what: string;
  /** Prepares, then returns the attacker's loop; it stops when `signal` aborts. */
  run(signal: AbortSignal, statuses: Map<number, number>): Promise<void>;
  /** Anything measured besides the victim's reads. */
  extra?: () => Promise<Record<string, number | string>>;
}

/** Sends `request()` at the allowed rate (up to `inFlight` at once) until `signal` aborts. */
async function paced(
  signal: AbortSignal,
  statuses: Map<number, number>,
  request: () => Promise<number>,
  options: { rps?: number; inFlight?: number } = {},
) {
  const rps = options.rps ?? ALLOWED_RPS;
  const inFlight = options.inFlight ?? 20;
  const running = new Set<Promise<void>>();
  while (!signal.aborted) {
    while (running.size >= inFlight && !signal.aborted) await Promise.race(running);
    const p = (async () => {
      const status = await request();
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    })();
    running.add(p);
    void p.finally(() => running.delete(p));
    await sleep(1000 / rps);
  }
  await Promise.allSettled(running);
}

/** A GraphQL POST; a body given as text is sent as it is (the large ones are written once, not per request). */
const graphql = (token: string, body: unknown, headers: Record<string, string> = {}) =>
  settle(
    call(token, '/api/graphql', {
      method: 'POST',
      body: typeof body === 'string' ? body : JSON.stringify(body),
      headers,
    }),
  );

const FILTERED_LIST = 'query($f: IssueFilter){ issues(filter:$f, first:1){ edges{ node{ id } } } }';
const wideVariables = JSON.stringify({
  query: FILTERED_LIST,
  variables: { f: Object.fromEntries(Array.from({ length: 60_000 }, (_, i) => [`k${i}`, 1])) },
});
const invalidEnums = JSON.stringify({
  query: FILTERED_LIST,
  variables: { f: { status: Array.from({ length: 200_000 }, () => 'X') } },
});
const bigAnswerQuery = `query {
  a: issues(filter: { projectId: "${attacker.projects[0]!.id}" }, first: 100) { edges { node { id description } } }
  b: issues(filter: { projectId: "${attacker.projects[0]!.id}" }, first: 100) { edges { node { id description } } }
  c: issues(filter: { projectId: "${attacker.projects[0]!.id}" }, first: 100) { edges { node { id description } } }
}`;
const mcpHeaders = { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-03-26' };
let mcpSequence = 0;
/** The largest batch the endpoint runs (src/mcp/batch.ts); the finding's batches of 100 are refused whole. */
const mcpBatch = (name: string, args: (i: number) => Record<string, unknown>) =>
  JSON.stringify(
    Array.from({ length: MAX_BATCH_MESSAGES }, (_, i) => ({
      jsonrpc: '2.0',
      id: ++mcpSequence,
      method: 'tools/call',
      params: { name, arguments: args(i) },
    })),
  );

const attacks: Attack[] = [
  {
    id: 'graphql-wide-variables',
    what: 'IssueFilter variable with 60,000 unknown fields (finding 1)',
    run: (signal, statuses) => paced(signal, statuses, () => graphql(attackerViewer, wideVariables)),
  },
  {
    id: 'graphql-invalid-enums',
    what: '200,000 invalid values in the filter status list (finding 2)',
    run: (signal, statuses) => paced(signal, statuses, () => graphql(attackerViewer, invalidEnums)),
  },
  {
    id: 'idempotent-big-queries',
    what: 'keyed GraphQL queries of 3 x 100 issues x 50 KB (finding 3)',
    run: (signal, statuses) =>
      paced(signal, statuses, () =>
        graphql(attackerViewer, { query: bigAnswerQuery }, { 'idempotency-key': crypto.randomUUID() }),
      ),
    extra: async () => {
      const db = await openDatabase(server.url);
      try {
        const rows = await db.prisma.$queryRawUnsafe<{ bytes: bigint }[]>(
          `SELECT pg_total_relation_size('idempotency_keys') AS bytes`,
        );
        return { idempotency_table_mb: Math.round(Number(rows[0]!.bytes) / 1048576) };
      } finally {
        await db.close();
      }
    },
  },
  {
    id: 'mcp-batch-writes',
    what: `MCP batches of ${MAX_BATCH_MESSAGES} create_issue, the most a batch runs (finding 4: batches of 100)`,
    run: (signal, statuses) =>
      paced(signal, statuses, () =>
        settle(
          call(attackerMember, '/api/mcp', {
            method: 'POST',
            headers: mcpHeaders,
            body: mcpBatch('create_issue', (i) => ({ project_id: attacker.projects[1]!.id, title: `batched ${i}` })),
          }),
        ),
      ),
  },
  {
    id: 'mcp-batch-reads',
    what: `MCP batches of ${MAX_BATCH_MESSAGES} list_issues of 100 issues (finding 4)`,
    run: (signal, statuses) =>
      paced(signal, statuses, () =>
        settle(
          call(attackerViewer, '/api/mcp', {
            method: 'POST',
            headers: mcpHeaders,
            body: mcpBatch('list_issues', () => ({ limit: 100 })),
          }),
        ),
      ),
  },
  {
    id: 'big-answers',
    what: '20 concurrent GraphQL queries of the largest answers (finding 7)',
    run: (signal, statuses) =>
      paced(signal, statuses, () => graphql(attackerViewer, { query: bigAnswerQuery }), {
        rps: ALLOWED_RPS,
        inFlight: 20,
      }),
  },
  {
    id: 'open-streams',
    what: '210 subscriptions held open by one token (finding 8)',
    run: async (signal, statuses) => {
      const controllers: AbortController[] = [];
      for (let i = 0; i < 210 && !signal.aborted; i++) {
        const c = new AbortController();
        controllers.push(c);
        const status = await fetch(`${base}/api/graphql`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${attackerViewer}`,
            'content-type': 'application/json',
            accept: 'text/event-stream',
          },
          body: JSON.stringify({ query: 'subscription { issueChanged { kind } }' }),
          signal: c.signal,
        }).then(
          (r) => r.status,
          () => 0,
        );
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        await sleep(1000 / ALLOWED_RPS);
      }
      await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      for (const c of controllers) c.abort();
    },
  },
  (() => {
    const deliveries: number[] = [];
    return {
      id: 'slow-webhook-receivers',
      what: "20 endpoints that never answer, then issue writes at the allowed rate (finding 5); extra: the victim's own webhook latency",
      run: async (signal: AbortSignal, statuses: Map<number, number>) => {
        for (let i = 0; i < 20; i++) {
          const status = await settle(
            call(attackerOwner, '/api/webhooks', {
              method: 'POST',
              body: JSON.stringify({ url: urlOf(hangingReceiver), events: ['*'] }),
            }),
          );
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
        // The victim's own webhook, and one issue of its every 2 s, timed from commit to arrival.
        await settle(
          call(victimOwner, '/api/webhooks', {
            method: 'POST',
            body: JSON.stringify({ url: urlOf(victimReceiver), events: ['issue.created'] }),
          }),
        );
        const victimWrites = (async () => {
          while (!signal.aborted) {
            const response = await call(victimOwner, '/api/issues', {
              method: 'POST',
              body: JSON.stringify({ project_id: victim.projects[0]!.id, title: 'victim write' }),
            }).catch(() => null);
            const committed = performance.now();
            const issue = response?.ok ? ((await response.json()) as { id: string }) : null;
            if (issue) void waitArrival(issue.id, committed).then((ms) => ms !== null && deliveries.push(ms));
            await sleep(2000);
          }
        })();
        await paced(signal, statuses, () =>
          settle(
            call(attackerMember, '/api/issues', {
              method: 'POST',
              body: JSON.stringify({ project_id: attacker.projects[2]!.id, title: 'noise' }),
            }),
          ),
        );
        await victimWrites;
      },
      extra: async () => {
        await sleep(5000);
        const sorted = Float64Array.from(deliveries).sort();
        return {
          victim_webhooks_delivered: deliveries.length,
          victim_webhook_p50_ms: +percentile(sorted, 50).toFixed(0),
          victim_webhook_max_ms: +(sorted[sorted.length - 1] ?? NaN).toFixed(0),
        };
      },
    };
  })(),
];

async function waitArrival(id: string, since: number): Promise<number | null> {
  const deadline = since + 120_000;
  while (performance.now() < deadline) {
    const at = arrivals.get(id);
    if (at !== undefined) return at - since;
    await sleep(20);
  }
  return null;
}

// --- the run ---------------------------------------------------------------------------------
interface Row {
  attack: string;
  what: string;
  victim: Probe;
  p99_ratio: number;
  max_rss_mb: number;
  attacker_statuses: Record<string, number>;
  service_alive: boolean;
  extra?: Record<string, number | string>;
}

let maxRss = 0;
const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb() || 0)), 200);

log(
  `noisy-neighbour bench: ${SECONDS} s per phase, victim ${VICTIM_RPS} req/s, attacker ${ALLOWED_RPS} req/s (one token's budget)`,
);
await probeVictim(3); // warm up
maxRss = 0;
const alone = await probeVictim(SECONDS);
log(`alone: p50 ${alone.p50_ms} ms, p99 ${alone.p99_ms} ms, max ${alone.max_ms} ms, rss ${maxRss} MB`);
const rows: Row[] = [];
for (const attack of attacks) {
  if (ONLY && !ONLY.includes(attack.id)) continue;
  if (app.proc.exitCode !== null || app.proc.signalCode !== null) {
    log(`${attack.id}: skipped, the service is down`);
    continue;
  }
  maxRss = rssMb();
  const statuses = new Map<number, number>();
  const controller = new AbortController();
  const attacking = attack.run(controller.signal, statuses);
  await sleep(1000); // the attack under way before the victim measures
  const probe = await probeVictim(SECONDS);
  controller.abort();
  await Promise.race([attacking, sleep(60_000)]);
  const extra = await attack.extra?.();
  const alive = app.proc.exitCode === null && app.proc.signalCode === null;
  const row: Row = {
    attack: attack.id,
    what: attack.what,
    victim: probe,
    p99_ratio: +(probe.p99_ms / alone.p99_ms).toFixed(2),
    max_rss_mb: maxRss,
    attacker_statuses: Object.fromEntries([...statuses].sort(([a], [b]) => a - b)),
    service_alive: alive,
    ...(extra ? { extra } : {}),
  };
  rows.push(row);
  log(
    `${attack.id}: victim p50 ${probe.p50_ms} ms p99 ${probe.p99_ms} ms (x${row.p99_ratio}), failed ${probe.failed}/${probe.sent}, ` +
      `rss max ${maxRss} MB, attacker ${JSON.stringify(row.attacker_statuses)}${extra ? ` ${JSON.stringify(extra)}` : ''}${alive ? '' : ' SERVICE DIED'}`,
  );
  await sleep(2000); // let the service settle between attacks
}
clearInterval(sampler);

const table = [
  '| Attack | Victim p50 (ms) | Victim p99 (ms) | p99 / alone | Victim failed | Max RSS (MB) | Attacker answers | Met |',
  '|---|---:|---:|---:|---:|---:|---|:---:|',
  `| alone | ${alone.p50_ms} | ${alone.p99_ms} | 1.00 | ${alone.failed}/${alone.sent} | | | |`,
  ...rows.map(
    (r) =>
      `| ${r.attack} | ${r.victim.p50_ms} | ${r.victim.p99_ms} | ${r.p99_ratio.toFixed(2)} | ${r.victim.failed}/${r.victim.sent} | ${r.max_rss_mb} | ` +
      `${Object.entries(r.attacker_statuses)
        .map(([s, n]) => `${s}: ${n}`)
        .join(', ')} | ` +
      `${r.p99_ratio <= 2 && r.max_rss_mb <= RSS_LIMIT_MB && r.service_alive && r.victim.failed === 0 ? '✅' : '❌'} |`,
  ),
].join('\n');
log(`\n${table}\n`);
for (const r of rows) if (r.extra) log(`${r.attack}: ${JSON.stringify(r.extra)}`);

mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
const file = join(ROOT, 'bench/results', `tenants-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
writeFileSync(file, JSON.stringify({ seconds: SECONDS, victim_rps: VICTIM_RPS, alone, rows }, null, 2));
log(`written: ${file}`);

await app.stop();
for (const socket of hanging) socket.destroy();
for (const r of [hangingReceiver, victimReceiver]) r.close();
await server.drop();
process.exit(0);
