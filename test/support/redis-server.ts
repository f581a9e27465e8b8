import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// A redis-server of a test's own, for faults the shared Redis must not suffer (kill, restart,
// data loss). Ports come from 43000-43999, the range these suites may use.

export const redisServerAvailable = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;
if (!redisServerAvailable && process.env.CI)
  throw new Error('redis-server not found: the Redis fault suites need the binary (apt-get install redis-server).');

export interface RedisServer {
  url: string;
  port: number;
  /** kill -9: no shutdown save, connections dropped. */
  kill(): Promise<void>;
  /** Starts again on the same port; `fresh` wipes the data directory first (restarted empty). */
  restart(options?: { fresh?: boolean }): Promise<void>;
  stop(): Promise<void>;
}

function run(port: number, dir: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...args],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('Ready to accept connections')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`redis-server on ${port} exited (${code}): ${output.slice(-500)}`)));
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts redis-server on a free port of 43000-43999 with its data in a temporary directory.
 * `args`: extra options, e.g. ['--appendonly', 'yes', '--appendfsync', 'always'].
 */
export async function startRedisServer(args: string[] = []): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'wm-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; attempt < 20 && !child; attempt++) {
    port = 43000 + Math.floor(Math.random() * 1000);
    child = await run(port, dir, args).catch(() => undefined); // port taken: try another
  }
  if (!child) throw new Error('could not start redis-server on a port of 43000-43999');
  let current: ChildProcess = child;
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async kill() {
      current.kill('SIGKILL');
      await exited(current);
    },
    async restart({ fresh = false } = {}) {
      if (fresh) {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(dir);
      }
      current = await run(port, dir, args);
    },
    async stop() {
      current.kill('SIGKILL');
      await exited(current);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
