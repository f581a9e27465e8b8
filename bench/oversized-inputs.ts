// npm run bench:inputs: what oversized GraphQL variables cost the process (issue "Every tenant
// metered and bounded", findings 1 and 2). For each case a viewer sends the variables to
// /api/graphql over a real socket, and 20 ms later a cheap `{ __typename }` follows on another
// connection: the cheap request's time is how long everyone else waited.
//
// The app runs in this process on an in-memory PGlite with the demo seed (the client costs
// little beside it: one JSON.stringify per case). Cases by environment, comma-separated:
// BENCH_INPUT_FIELDS (unknown fields in one filter object, default 3000,60000),
// BENCH_INPUT_STATUSES (invalid statuses in one list, default 20000,200000),
// BENCH_INPUT_SPREAD (lists of 1,000 invalid statuses, default 19: within the input limits).
// Besides wall times, the process's CPU time over each case: on a machine shared with other work
// it varies less than the wall time.
// A request unanswered after BENCH_INPUT_TIMEOUT_MS (default 300000) is reported as such.
// Each case runs BENCH_INPUT_ROUNDS times (default 3); the last, warm, round is reported.
import type { AddressInfo } from 'node:net';
import { createApp } from '../src/app.js';
import { seedDemo } from '../src/cli/demo-data.js';
import { testConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { createNodeServer } from '../src/http/node-server.js';

const list = (name: string, fallback: string) => (process.env[name] ?? fallback).split(',').filter(Boolean).map(Number);
const TIMEOUT_MS = Number(process.env.BENCH_INPUT_TIMEOUT_MS ?? 300_000);
const ROUNDS = Number(process.env.BENCH_INPUT_ROUNDS ?? 3);
const LIST = 'query($f: IssueFilter) { issues(filter: $f, first: 1) { edges { node { id } } } }';

const cases: { name: string; f: () => unknown }[] = [
  ...list('BENCH_INPUT_FIELDS', '3000,60000').map((n) => ({
    name: `${n} unknown fields`,
    f: () => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 1])),
  })),
  ...list('BENCH_INPUT_STATUSES', '20000,200000').map((n) => ({
    name: `${n} invalid statuses`,
    f: () => ({ status: Array(n).fill('X') }),
  })),
  ...list('BENCH_INPUT_SPREAD', '19').map((n) => ({
    name: `${n} lists of 1000 invalid statuses`,
    f: () => ({ and: Array.from({ length: n }, () => ({ status: Array(1_000).fill('X') })) }),
  })),
];

const db = await openDatabase('memory://');
await applyMigrations(db.adapterFactory);
const seed = await seedDemo(db.prisma);
const token = seed.users.find((user) => user.username === 'victor')!.token;
const app = await createApp(testConfig(), { db });
const server = createNodeServer(app);
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/graphql`;

/** One POST on its own connection: its time, status and first error (clipped). */
async function post(body: string): Promise<{ ms: number; status: number | string; error: string }> {
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', connection: 'close' },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const answer = (await response.json()) as { errors?: { message: string; extensions?: { code?: string } }[] };
    const first = answer.errors?.[0];
    const error = first ? `${first.extensions?.code}: ${first.message.slice(0, 90)}` : 'none';
    return { ms: performance.now() - started, status: response.status, error };
  } catch (error) {
    return {
      ms: performance.now() - started,
      status: (error as Error).name,
      error: (error as Error).message.slice(0, 90),
    };
  }
}

const cheapBody = JSON.stringify({ query: '{ __typename }' });
await post(cheapBody); // warm-up: the first request builds the schema's caches
console.log(
  `| case | body | answer | its time | cheap request beside it | CPU of the process |\n|---|---|---|---|---|---|`,
);
for (const { name, f } of cases) {
  const body = JSON.stringify({ query: LIST, variables: { f: f() } });
  const run = async () => {
    const cpu = process.cpuUsage();
    const hostile = post(body);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const cheap = await post(cheapBody);
    return { answer: await hostile, cheap, used: process.cpuUsage(cpu) };
  };
  // The first round runs cold code (its first compilation and caches); the last one is reported.
  let round = await run();
  for (let i = 1; i < ROUNDS; i++) round = await run();
  const { answer, cheap, used } = round;
  const kb = `${Math.round(body.length / 1024)} KB`;
  const cpuMs = Math.round((used.user + used.system) / 1000);
  console.log(
    `| ${name} | ${kb} | ${answer.status} ${answer.error} | ${Math.round(answer.ms)} ms | ${cheap.status}, ${Math.round(cheap.ms)} ms | ${cpuMs} ms |`,
  );
}
console.log(`RSS at the end: ${Math.round(process.memoryUsage().rss / 1024 / 1024)} MB`);

server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await app.close();
await db.close();
