// A second app variant for the benchmark: the real REST/GraphQL code (src/rest, src/graphql,
// src/schema) behind node:http, with authentication and rate limiting switched off: every
// request acts as BENCH_USER_ID in BENCH_ORG_ID. Never expose this: it has no authentication.
//   DATABASE_URL=... PORT=... BENCH_USER_ID=... BENCH_ORG_ID=... node --import tsx bench/app-noauth.ts
import { createServer, type IncomingMessage } from 'node:http';
import { createServerAdapter } from '@whatwg-node/server';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/client.js';
import { createLogger } from '../src/logger.js';
import { createNoAuthApp, fixedPrincipal } from './lib/noauth.js';

const config = loadConfig();
if (config.host !== '127.0.0.1' && config.host !== 'localhost') throw new Error('app-noauth listens on loopback only');
const userId = process.env.BENCH_USER_ID;
const orgId = process.env.BENCH_ORG_ID;
if (!userId || !orgId) throw new Error('set BENCH_USER_ID and BENCH_ORG_ID');
const logger = createLogger(config.logLevel);
const db = await openDatabase(config.databaseUrl);
const app = createNoAuthApp(config, db, logger, await fixedPrincipal(db, userId, orgId));
const server = createServer(createServerAdapter<{ req: IncomingMessage }>((request) => app.fetch(request)));
server.keepAliveTimeout = 65_000;
server.listen(config.port, config.host, () => process.stdout.write(`app-noauth listening on ${config.port}\n`));

let stopping = false;
function shutdown() {
  if (stopping) return;
  stopping = true;
  server.close(async () => {
    await app.close();
    await db.close();
    process.exit(0);
  });
  server.closeIdleConnections();
}
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
