import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { DatabaseInUseError } from './db/client.js';
import { createNodeServer } from './http/node-server.js';

// Start-up problems people can fix get a plain message and exit code 1, not a stack trace.
function fail(error: unknown): never {
  if (error instanceof ConfigError || error instanceof DatabaseInUseError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    return fail(error);
  }
})();
const app = await createApp(config).catch(fail);
const server = createNodeServer(app);

server.listen(config.port, config.host, async () => {
  app.logger.info({ url: config.baseUrl, host: config.host, port: config.port, database: app.db.kind, patCache: config.patCache }, 'listening');
  if ((await app.db.prisma.user.count()) === 0) {
    app.logger.info(
      'The database is empty. To load demo data (two organizations, users for every role, API keys): ' +
        'stop the service, run `npm run seed`, and start it again. `npm run admin -- --help` creates real users.',
    );
  }
});

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  app.logger.info({ signal }, 'shutting down: finishing requests in flight');
  const force = setTimeout(() => process.exit(1), 10_000).unref();
  server.close(async () => {
    await app.close();
    clearTimeout(force);
    process.exit(0);
  });
  server.closeIdleConnections();
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
