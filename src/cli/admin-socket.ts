import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { App } from '../app.js';
import { ADMIN_COMMANDS, runAdminCommand, type AdminValues, type CommandOutcome } from './admin-commands.js';

/**
 * The admin command's way into a running service on the embedded database, which only the
 * service's process may open: the service listens on a Unix socket, the command sends its name
 * and options there, and the service runs it on its own open database (its BASE_URL, its
 * credential epoch). Whoever may connect is whoever the operating system lets into the socket's
 * directory: it is the service user's own (mode 0700), as the data directory is.
 */

/** Longest request: a command's options are a few short strings. */
const MAX_REQUEST_BYTES = 64 * 1024;

/** Where the service of the embedded database in `dataDir` listens (short enough for a socket path). */
export function adminSocketPath(dataDir: string): string {
  const id = createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 16);
  return join(tmpdir(), `workmgmt-${process.getuid?.() ?? 'user'}`, `${id}.sock`);
}

/** The socket's directory, made if missing; null when it is not this user's alone (then nobody uses it). */
function privateDir(path: string): string | null {
  const dir = join(path, '..');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stat = statSync(dir);
  const mine = process.getuid === undefined || stat.uid === process.getuid();
  return mine && (stat.mode & 0o077) === 0 ? dir : null;
}

/** Serves the admin commands of `app` on its socket; null when the socket's directory is not private. */
export async function serveAdminSocket(app: App, dataDir: string): Promise<Server | null> {
  const path = adminSocketPath(dataDir);
  if (!privateDir(path)) {
    app.logger.warn(
      { path },
      'the admin socket directory is not private to this user: `npm run admin` cannot reach the running service',
    );
    return null;
  }
  // A socket file left by a service that died; the data directory's lock says none runs now.
  rmSync(path, { force: true });
  const server = createServer((socket) => {
    let received = '';
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (received.length > MAX_REQUEST_BYTES) return socket.destroy();
      const end = received.indexOf('\n');
      if (end < 0) return;
      socket.pause();
      void answer(app, received.slice(0, end)).then((outcome) => socket.end(`${JSON.stringify(outcome)}\n`));
    });
  });
  await new Promise<void>((done, fail) => server.once('error', fail).listen(path, done));
  app.logger.info({ path }, 'admin commands accepted on the admin socket');
  return server;
}

async function answer(app: App, line: string): Promise<CommandOutcome> {
  try {
    const { command, values } = JSON.parse(line) as { command: string; values: AdminValues };
    if (typeof command !== 'string' || !Object.hasOwn(ADMIN_COMMANDS, command))
      return { code: 2, stdout: '', stderr: `Unknown command ${String(command)}.\n` };
    app.logger.info({ command }, 'admin command run through the admin socket');
    return await runAdminCommand(command, values ?? {}, app.db.prisma, app.credentialEpoch, app.config);
  } catch (error) {
    app.logger.error({ err: error }, 'admin command failed in the service');
    return { code: 2, stdout: '', stderr: 'The command failed in the service; its log says why.\n' };
  }
}

/**
 * Runs a command in the service that holds the embedded database in `dataDir`, or answers null
 * when no service listens there (it is not running, or is too old to listen).
 */
export function callAdminSocket(dataDir: string, command: string, values: AdminValues): Promise<CommandOutcome | null> {
  const path = adminSocketPath(dataDir);
  // Options may hold a password: sent only where no other user could be listening.
  if (!privateDir(path)) return Promise.resolve(null);
  return new Promise((done) => {
    let reply = '';
    const socket = createConnection(path);
    socket.setEncoding('utf8');
    socket.on('error', () => done(null));
    socket.on('connect', () => socket.write(`${JSON.stringify({ command, values })}\n`));
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.on('end', () => {
      try {
        done(JSON.parse(reply) as CommandOutcome);
      } catch {
        done(null);
      }
    });
  });
}
