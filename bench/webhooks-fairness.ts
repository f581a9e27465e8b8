// npm run bench:webhooks:fairness: how long another organization waits for its webhook while one
// organization's receivers hang. Organization A (acme) has BENCH_HANGING (default 20) endpoints
// that accept the connection and never answer; it creates BENCH_ISSUES (default 100) issues, so
// BENCH_HANGING x BENCH_ISSUES deliveries queue. Then organization B (globex), with one healthy
// endpoint, creates BENCH_B_EVENTS (default 20) issues one at a time, each waited for (at most
// BENCH_WAIT_S seconds, default 150): B's commit-to-delivery latency is what is reported, with
// the most connections any one of A's endpoints had open at once.
// DATABASE_URL: memory:// (default, embedded) or a PostgreSQL URL (an empty database: it is migrated and seeded).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { seedDemo } from '../src/cli/demo-data.js';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { committedEvents } from '../src/events/committed.js';
import { MemoryStore } from '../src/limits/memory-store.js';

const HANGING = Number(process.env.BENCH_HANGING ?? 20);
const ISSUES = Number(process.env.BENCH_ISSUES ?? 100);
const B_EVENTS = Number(process.env.BENCH_B_EVENTS ?? 20);
const WAIT_MS = Number(process.env.BENCH_WAIT_S ?? 150) * 1000;
const databaseUrl = process.env.DATABASE_URL ?? 'memory://';

// A's receivers: one server, one path per endpoint; every request is held open until the end.
const held: ServerResponse[] = [];
const open = new Map<string, number>();
const maxOpen = new Map<string, number>();
let hangingRequests = 0;
const hanging = createServer((request, response) => {
  const path = request.url ?? '';
  hangingRequests++;
  open.set(path, (open.get(path) ?? 0) + 1);
  maxOpen.set(path, Math.max(maxOpen.get(path) ?? 0, open.get(path)!));
  response.on('close', () => open.set(path, open.get(path)! - 1));
  held.push(response);
  request.resume();
});
await new Promise<void>((r) => hanging.listen(0, '127.0.0.1', r));
const hangingBase = `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`;

// B's receiver answers at once.
const arrivedAt = new Map<string, number>();
let waiting: { id: string; resolve: () => void } | null = null;
const healthy = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    const id = String(request.headers['webhook-id']);
    arrivedAt.set(id, performance.now());
    if (waiting?.id === id) waiting.resolve();
    response.end('ok');
  });
});
await new Promise<void>((r) => healthy.listen(0, '127.0.0.1', r));
const healthyUrl = `http://127.0.0.1:${(healthy.address() as AddressInfo).port}/hook`;

const committedAt = new Map<string, number>();
committedEvents.on('committed', (events) => {
  const now = performance.now();
  for (const event of events) committedAt.set(event.id, now);
});

let limiterClock = 0;
const db = await openDatabase(databaseUrl);
await applyMigrations(db.adapterFactory);
const seed = await seedDemo(db.prisma);
const app = await createApp(
  testConfig({
    databaseUrl,
    webhooks: {
      allowPrivateNetworks: true,
      secretKey: 'bench key for sealing webhook secrets',
      worker: true,
      leaseSeconds: 60,
    },
  }),
  {
    db,
    // The rate limiter's clock jumps a minute per look: what is measured is delivery, not the request budget.
    limiterStore: new MemoryStore({ now: () => (limiterClock += 61_000) }),
  },
);
const [acme, globex] = ['acme', 'globex'].map((slug) => seed.orgs.find((o) => o.slug === slug)!);
const token = (username: string, orgId: string) =>
  seed.users.find((u) => u.username === username && u.org_id === orgId)!.token;
const call = async (bearer: string, path: string, body: unknown) => {
  const response = await app.fetch(
    new Request(`${app.config.baseUrl}/api${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
  if (response.status !== 201) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json();
};

for (let i = 0; i < HANGING; i++)
  await call(token('adam', acme!.id), '/webhooks', { url: `${hangingBase}/a${i}`, events: ['*'] });
await call(token('bella', globex!.id), '/webhooks', { url: healthyUrl, events: ['*'] });

const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 16 }, async () => {
    while (next < ISSUES)
      await call(token('mark', acme!.id), '/issues', { project_id: acme!.projects[0]!.id, title: `noisy ${next++}` });
  }),
);
const burstWritten = performance.now();

const latencies: number[] = [];
let timedOut = 0;
for (let i = 0; i < B_EVENTS; i++) {
  const issue = await call(token('bella', globex!.id), '/issues', {
    project_id: globex!.projects[0]!.id,
    title: `quiet ${i}`,
  });
  const history = await (
    await app.fetch(
      new Request(`${app.config.baseUrl}/api/issues/${issue.id}/history`, {
        headers: { authorization: `Bearer ${token('bella', globex!.id)}` },
      }),
    )
  ).json();
  const id = history[0].id as string;
  if (!arrivedAt.has(id)) {
    const arrived = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), WAIT_MS);
      waiting = {
        id,
        resolve: () => {
          clearTimeout(timer);
          resolve(true);
        },
      };
    });
    if (!arrived) {
      timedOut++;
      break; // the rest would wait behind it
    }
  }
  latencies.push(arrivedAt.get(id)! - committedAt.get(id)!);
}

const seconds = (ms: number) => (ms / 1000).toFixed(2);
const sorted = [...latencies].sort((a, b) => a - b);
const at = (p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1) : '-';
console.log(
  `Webhook fairness on ${db.kind}, Node ${process.version}: org A has ${HANGING} endpoints that never answer ` +
    `and queued ${HANGING * ISSUES} deliveries (${ISSUES} issues, written in ${seconds(burstWritten - started)} s)`,
);
console.log(
  `org B, one healthy endpoint, ${B_EVENTS} issues one at a time: ${latencies.length} delivered, ` +
    (timedOut ? `one not delivered within ${WAIT_MS / 1000} s (stopped there)` : 'none late'),
);
console.log(
  `  commit-to-delivery: p50 ${at(50)} ms, p95 ${at(95)} ms, max ${sorted.length ? sorted.at(-1)!.toFixed(1) : '-'} ms`,
);
console.log(
  `org A: ${hangingRequests} requests reached its hanging endpoints; ` +
    `most open at once on one endpoint: ${Math.max(0, ...maxOpen.values())}`,
);
// Stop listening first, so that what the worker still sends is refused at once rather than held.
hanging.close();
for (const response of held) response.destroy();
hanging.closeAllConnections();
await app.close();
await db.close();
healthy.close();
healthy.closeAllConnections();
