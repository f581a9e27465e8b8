import type { Server } from 'node:http';
import { createApp, type App } from './app.js';
import type { RequestInfo } from './http/request-info.js';
import { serveAdminSocket } from './cli/admin-socket.js';
import { loadConfig, type Config } from './config.js';
import { createNodeServer } from './http/node-server.js';
import { createLogger, humanDestination, logFormat } from './logger.js';
import { startingResponse } from './ops/health.js';
import { listen } from './ops/listen.js';
import { preflight } from './ops/preflight.js';
import { handleShutdownSignals } from './ops/shutdown.js';
import { StartupError } from './ops/startup-error.js';

const servers: Server[] = [];

// Start-up mistakes people can fix get one plain line and exit code 1, not a stack trace.
function fail(error: unknown): never {
  for (const server of servers) server.close();
  if (error instanceof StartupError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
}

/** A server with the connection limits of src/http/node-server.ts, answering with `handle`. */
function httpServer(config: Config, handle: (request: Request, info: RequestInfo) => Promise<Response>): Server {
  const server = createNodeServer({ config, fetch: handle });
  servers.push(server);
  return server;
}

async function start(config: Config): Promise<App> {
  let app: App | null = null;
  // Bound first: a port in use ends the start before the database is opened or migrated.
  const main = httpServer(config, async (request, info) =>
    app ? app.fetch(request, info) : startingResponse(request),
  );
  const port = await listen(main, config.port, config.host);
  const metrics =
    config.metricsPort === undefined
      ? null
      : httpServer(config, async (request) => (app ? app.ops.metricsEndpoint(request) : startingResponse(request)));
  if (metrics) await listen(metrics, config.metricsPort!, config.host, 'METRICS_PORT');
  await preflight(config, { migrate: config.migrateOnStart });
  // A terminal in development gets short lines; production and piped output get JSON lines.
  const human = logFormat(process.stdout.isTTY, config.production) === 'human';
  app = await createApp(config, {
    logger: createLogger(config.logLevel, human ? humanDestination(process.stdout) : undefined),
  });
  const ready = app;
  ready.logger.info(
    {
      url: config.baseUrl,
      host: config.host,
      port,
      metricsPort: config.metricsPort,
      database: ready.db.kind,
      patCache: config.patCache,
    },
    'listening',
  );
  // On the embedded database, which no other process may open, admin commands run in here.
  const adminSocket = config.databaseUrl.startsWith('file:')
    ? await serveAdminSocket(ready, config.databaseUrl.slice('file:'.length))
    : null;
  handleShutdownSignals({
    servers,
    health: ready.ops.health,
    logger: ready.logger,
    delaySeconds: config.shutdownDelaySeconds,
    timeoutSeconds: config.shutdownTimeoutSeconds,
    close: async () => {
      adminSocket?.close();
      await ready.close();
    },
  });
  if (ready.setupUrl) {
    // Printed, not logged: the link is a one-time credential for the first owner, meant for the
    // person who started the service (stderr, so it stays out of the JSON log lines on stdout).
    process.stderr.write(
      `\nThe database is empty. Open this link once to create the first owner, their organization and a first project:\n\n  ${ready.setupUrl}\n\n` +
        'It works until used (and only while no user exists). For demo data instead: stop the service, run `npm run seed`, and start it again.\n\n',
    );
  }
  return ready;
}

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    return fail(error);
  }
})();
await start(config).catch(fail);
