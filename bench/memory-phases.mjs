// Where an instance's memory goes, phase by phase: run by bench/memory.ts as a child process
// (`node --expose-gc bench/memory-phases.mjs dist` for the built service, or
// `node --expose-gc --import tsx bench/memory-phases.mjs src` for the sources; DATABASE_URL set to
// a migrated database), it loads and builds the service one piece at a time, collecting garbage and
// reading process.memoryUsage() after each, and prints the readings as one JSON line. Plain
// JavaScript, so that the built service is measured without a TypeScript loader in the process.
// MEMORY_HEAP_SNAPSHOT=<file> also writes a heap snapshot at the end (open it in Chrome DevTools).
import { writeHeapSnapshot } from 'node:v8';

const base = process.argv[2] === 'src' ? '../src' : '../dist';
const load = (path) => import(`${base}/${path}`);
const gc = globalThis.gc;
if (!gc) throw new Error('run with node --expose-gc');
const readings = [];
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

async function phase(name, step = async () => {}) {
  await step();
  await settle();
  gc();
  gc();
  const m = process.memoryUsage();
  readings.push({ phase: name, rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers });
}

await phase('runtime and loader');
const { loadConfig } = await load('config.js');
const config = loadConfig();
let db;
await phase('Prisma client module', () => load('db/client.js'));
await phase('database opened', async () => {
  db = await (await load('db/client.js')).openDatabase(config.databaseUrl);
});
await phase('first query (Prisma query compiler)', () => db.prisma.user.count());
// As the service starts: the schema engine only when a migration is missing (MEMORY_MIGRATE=engine: always).
await phase('migrations checked', async () => {
  const migrations = await load('db/migrations.js');
  if (process.env.MEMORY_MIGRATE === 'engine') await migrations.applyMigrations(db.adapterFactory);
  else await migrations.migrateIfBehind(db);
});
await phase('GraphQL schema module', () => load('graphql/yoga.js'));
await phase('every module of the app', () => load('app.js'));
let app;
await phase('app created', async () => {
  const { createApp } = await load('app.js');
  const { createLogger } = await load('logger.js');
  app = await createApp(config, { db, logger: createLogger('warn') });
});
await phase('API reference and sign-in pages served', async () => {
  for (const path of ['/api/docs', '/login']) {
    const response = await app.fetch(new Request(`${config.baseUrl}${path}`, { headers: { accept: 'text/html' } }));
    const html = await response.text();
    for (const [, asset] of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g))
      await (await app.fetch(new Request(`${config.baseUrl}${asset}`))).arrayBuffer();
  }
});

if (process.env.MEMORY_HEAP_SNAPSHOT) writeHeapSnapshot(process.env.MEMORY_HEAP_SNAPSHOT);
await app.close();
await db.close();
process.stdout.write(`${JSON.stringify(readings)}\n`);
