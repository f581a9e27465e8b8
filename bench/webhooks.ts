// npm run bench:webhooks: webhook delivery throughput and commit-to-delivery latency, measured
// with a local receiver. The real app (in this process, app.fetch), its delivery worker, and a
// node:http receiver on 127.0.0.1 that verifies every signature with `standardwebhooks`.
// DATABASE_URL: memory:// (default, embedded) or a PostgreSQL URL (an empty database: it is migrated and seeded).
// BENCH_EVENTS (default 2000) issues are created, BENCH_CONCURRENCY (default 16) at a time; then
// BENCH_SINGLE (default 200) one at a time on an idle system, for latency without queueing.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { createApp } from '../src/app.js';
import { seedDemo } from '../src/cli/demo-data.js';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { committedEvents } from '../src/events/committed.js';
import { MemoryStore } from '../src/limits/memory-store.js';
import { DeliveryWorker } from '../src/webhooks/worker.js';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const SINGLE = Number(process.env.BENCH_SINGLE ?? 200);
const databaseUrl = process.env.DATABASE_URL ?? 'memory://';

const committedAt = new Map<string, number>();
const arrivedAt = new Map<string, number>();
let secret = '';
let badSignatures = 0;
let waiting: { count: number; resolve: () => void } | null = null;

const receiver = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (c: Buffer) => chunks.push(c));
  request.on('end', () => {
    const now = performance.now();
    const body = Buffer.concat(chunks).toString();
    try {
      new Webhook(secret).verify(body, request.headers as Record<string, string>);
    } catch {
      badSignatures++;
    }
    arrivedAt.set(String(request.headers['webhook-id']), now);
    if (waiting && arrivedAt.size >= waiting.count) waiting.resolve();
    response.end('ok');
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

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
    // The rate limiter's clock jumps a minute per look: what is measured is delivery, not the 600/min budget of one key.
    limiterStore: new MemoryStore({ now: () => (limiterClock += 61_000) }),
  },
);
const admin = seed.users.find((u) => u.username === 'adam')!.token;
const member = seed.users.find((u) => u.username === 'mark' && u.org_id === seed.orgs[0]!.id)!.token;
const projectId = seed.orgs[0]!.projects[0]!.id;

const call = (token: string, path: string, body: unknown) =>
  app.fetch(
    new Request(`${app.config.baseUrl}/api${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
const hook = await (await call(admin, '/webhooks', { url, events: ['*'] })).json();
secret = hook.secret;

const createIssue = async (i: number) => {
  const response = await call(member, '/issues', { project_id: projectId, title: `bench ${i}` });
  if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
};
const waitFor = (count: number) =>
  new Promise<void>((resolve) => {
    if (arrivedAt.size >= count) resolve();
    else waiting = { count, resolve };
  });

function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1);
  return `p50 ${at(50)} ms, p95 ${at(95)} ms, p99 ${at(99)} ms, max ${sorted.at(-1)!.toFixed(1)} ms`;
}
const latencies = (ids: string[]) => ids.map((id) => arrivedAt.get(id)! - committedAt.get(id)!);

// 1. A burst: EVENTS creates, CONCURRENCY at a time; throughput from the first commit to the last delivery.
const started = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < EVENTS) await createIssue(next++);
  }),
);
const writesDone = performance.now();
await waitFor(EVENTS);
const burstEnd = performance.now();
const burstIds = [...committedAt.keys()];
const firstCommit = Math.min(...burstIds.map((id) => committedAt.get(id)!));

// 2. One at a time, each waited for: latency without a queue.
const before = arrivedAt.size;
for (let i = 0; i < SINGLE; i++) {
  await createIssue(EVENTS + i);
  await waitFor(before + i + 1);
}
const singleIds = [...committedAt.keys()].slice(EVENTS);

// 3. A backlog: BENCH_EVENTS events queued while no worker runs, then a worker started on them:
// its own rate, with no writes competing. (A paused endpoint would not do: nothing is queued for it.)
await app.deliveryWorker!.stop();
next = 0;
const backlogStart = arrivedAt.size;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < EVENTS) await createIssue(2 * EVENTS + next++);
  }),
);
const released = performance.now();
const worker = new DeliveryWorker(db.prisma, app.config.webhooks, app.logger);
worker.start();
await waitFor(backlogStart + EVENTS);
const drained = performance.now();
await worker.stop();

console.log(
  `Webhook delivery on ${db.kind}, Node ${process.version}, receiver on 127.0.0.1 (signature verified on every request: ${badSignatures} bad)`,
);
console.log(
  `burst: ${EVENTS} events (${CONCURRENCY} concurrent creates): writes took ${((writesDone - started) / 1000).toFixed(2)} s; all delivered ${((burstEnd - started) / 1000).toFixed(2)} s after the first request`,
);
console.log(
  `  delivery throughput: ${(EVENTS / ((burstEnd - firstCommit) / 1000)).toFixed(0)} deliveries/s (first commit to last delivery)`,
);
console.log(`  commit-to-delivery under the burst: ${percentiles(latencies(burstIds))}`);
console.log(
  `backlog: ${EVENTS} queued events drained in ${((drained - released) / 1000).toFixed(2)} s: ${(EVENTS / ((drained - released) / 1000)).toFixed(0)} deliveries/s`,
);
console.log(`single: ${SINGLE} events one at a time: commit-to-delivery ${percentiles(latencies(singleIds))}`);
const retried = await db.prisma.webhookDelivery.groupBy({
  by: ['state'],
  where: { attempts: { gt: 1 } },
  _count: true,
});
console.log(
  `deliveries that needed more than one attempt (a timeout or an error first): ${retried.map((r) => `${r._count} now ${r.state}`).join('; ') || 'none'}`,
);
await app.close();
await db.close();
receiver.close();
