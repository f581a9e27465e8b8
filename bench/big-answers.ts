// npm run bench:big-answers — finding 7: how long another tenant's cheap request waits while one
// viewer key sends 20 big-answer GraphQL queries at once. Over HTTP on loopback (the server and
// the client in this process, so the client's reading of the answers shares the loop), on the
// embedded database in memory, with the production defaults of GRAPHQL_MAX_RESPONSE_BYTES and
// LOAD_SHED_LAG_MS. A measurement, not a test: the figures depend on the machine.
//
// Data: the demo seed and one project of 100 issues whose descriptions are 35,000 characters.
// Attacks: the finding's query (four pages of 100 descriptions: 14 MB), then the largest the
// cost admits now (one page: 3.5 MB). During each, a member of another organization sends
// `{ me { id } }` again and again, one at a time, until the attack's answers are all in.
import { createApp } from '../src/app.js';
import { loadConfig, testConfig } from '../src/config.js';
import { seedDemo } from '../src/cli/demo-data.js';
import { openDatabase } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { createNodeServer } from '../src/http/node-server.js';
import { listen } from '../src/ops/listen.js';

const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 20);
const ISSUES = 100;
const DESCRIPTION_LENGTH = 35_000;

const db = await openDatabase('memory://');
await applyMigrations(db.adapterFactory);
const seed = await seedDemo(db.prisma, { password: 'bench password 123' });
const acme = seed.orgs.find((o) => o.slug === 'acme')!;
const project = await db.prisma.project.create({
  data: { orgId: acme.id, name: 'Big', key: 'BIG', issueCount: ISSUES },
});
await db.prisma.issue.createMany({
  data: Array.from({ length: ISSUES }, (_, i) => ({
    orgId: acme.id,
    projectId: project.id,
    number: i + 1,
    title: `Issue ${i + 1}`,
    status: 'Todo',
    priority: 'low',
    description: 'd'.repeat(DESCRIPTION_LENGTH),
  })),
});
const defaults = loadConfig({});
const app = await createApp(
  testConfig({ graphqlMaxResponseBytes: defaults.graphqlMaxResponseBytes, loadShedLagMs: defaults.loadShedLagMs }),
  { db },
);
const server = createNodeServer(app);
const port = await listen(server, 0, '127.0.0.1');
const attacker = seed.users.find((u) => u.username === 'victor' && u.org_id === acme.id)!.token;
const other = seed.users.find((u) => u.org_id !== acme.id)!.token;

async function gql(token: string, query: string): Promise<{ status: number; outcome: string; bytes: number }> {
  const response = await fetch(`http://127.0.0.1:${port}/api/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const text = await response.text();
  const code =
    response.status === 200 && text.startsWith('{"data"')
      ? 'data'
      : (/"code":"([a-zA-Z_]+)"/.exec(text)?.[1] ?? 'other');
  return { status: response.status, outcome: `${response.status} ${code}`, bytes: text.length };
}

const page = (alias: string) => `${alias}: issues(first: 100) { edges { node { description } } }`;
const CHEAP = '{ me { id } }';

const tally = (outcomes: string[]) => {
  const counts = new Map<string, number>();
  for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
  return [...counts].map(([o, n]) => `${n} x ${o}`).join(', ');
};
const ms = (values: number[], q: number) =>
  values
    .slice()
    .sort((a, b) => a - b)
    [Math.min(values.length - 1, Math.floor(q * values.length))]!.toFixed(1);

async function measure(label: string, query: string | null): Promise<void> {
  for (let i = 0; i < 5; i++) await gql(other, CHEAP);
  let done = query === null;
  const started = performance.now();
  const attack =
    query === null ? Promise.resolve([]) : Promise.all(Array.from({ length: CONCURRENT }, () => gql(attacker, query)));
  void attack.then(() => (done = true));
  const latencies: number[] = [];
  const cheapOutcomes: string[] = [];
  for (let i = 0; query === null ? i < 20 : !done || i < 1; i++) {
    const start = performance.now();
    const { outcome } = await gql(other, CHEAP);
    latencies.push(performance.now() - start);
    cheapOutcomes.push(outcome);
  }
  const answers = await attack;
  const seconds = ((performance.now() - started) / 1000).toFixed(2);
  console.log(`${label}`);
  if (answers.length) {
    const largest = Math.max(...answers.map((a) => a.bytes));
    console.log(
      `  attack: ${tally(answers.map((a) => a.outcome))}; largest answer ${(largest / 1e6).toFixed(1)} MB; all in after ${seconds} s`,
    );
  }
  console.log(
    `  cheap request of another tenant: ${latencies.length} sent, p50 ${ms(latencies, 0.5)} ms, max ${ms(latencies, 1)} ms (${tally(cheapOutcomes)})`,
  );
}

await measure('alone', null);
await measure(
  `${CONCURRENT} x the finding's query (4 pages of 100 descriptions)`,
  `{ ${page('a')} ${page('b')} ${page('c')} ${page('d')} }`,
);
await measure(`${CONCURRENT} x one page of 100 descriptions`, `{ ${page('a')} }`);
server.closeAllConnections();
await new Promise((resolve) => server.close(resolve));
await app.close();
await db.close();
