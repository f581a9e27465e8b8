import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { npmStartArgs } from '../../scripts/npm-start-args.js';

export const root = fileURLToPath(new URL('../..', import.meta.url));

// Vite puts its own BASE_URL ("/") into the test process's environment; children must not inherit it.
const { BASE_URL: _viteBase, ...inherited } = process.env;

/**
 * The environment for a child process: this one's, less Vite's additions and the test's own
 * settings, plus `env`. Load shedding is off unless `env` turns it on, as in the in-process test
 * config (src/config.ts, testConfig): a service started on a busy test machine lags while it
 * warms up, and a 503 `overloaded` would fail a test about something else.
 */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...inherited };
  for (const name of [
    'DATABASE_URL',
    'REDIS_URL',
    'PORT',
    'METRICS_PORT',
    'METRICS_TOKEN',
    'MIGRATE_ON_START',
    'NODE_ENV',
    'LOG_LEVEL',
    'LOAD_SHED_LAG_MS',
  ])
    delete base[name];
  return { ...base, LOG_LEVEL: 'info', LOAD_SHED_LAG_MS: '0', ...env };
}

export interface ServerProcess {
  child: ChildProcess;
  /** The port it listens on, once it logged `listening` (rejects if it exits first). */
  port: Promise<number>;
  /** Every JSON log line so far. */
  logs: Record<string, unknown>[];
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first log line that `match` accepts (now or later). */
  waitForLog(match: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

/**
 * The service from its sources (`node --import tsx src/server.ts` with the tracing preload, what
 * `npm run dev` runs), or with `built`, as `npm start` runs it (its node arguments from
 * package.json, `--liftoff-only scripts/start.mjs`: compiled to dist/ first), or with `args`,
 * node's arguments instead (a systemd unit's ExecStart, say); PORT=0 unless `env` says otherwise.
 */
export function startServer(
  env: Record<string, string>,
  options: { built?: boolean; args?: string[] } = {},
): ServerProcess {
  const fromSources = ['--import', 'tsx', '--import', './src/ops/tracing-start.ts', 'src/server.ts'];
  const args = options.args ?? (options.built ? npmStartArgs() : fromSources);
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: childEnv({ PORT: '0', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  const waiters: {
    match: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  let err = '';
  let buffered = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const text of lines) {
      if (!text.trim()) continue;
      const line = JSON.parse(text) as Record<string, unknown>;
      logs.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.match(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const waitForLog = (match: (line: Record<string, unknown>) => boolean) => {
    const seen = logs.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      waiters.push({ match, resolve });
      void exited.then(({ code }) => reject(new Error(`server exited (${code}) before logging it: ${err}`)));
    });
  };
  const port = waitForLog((line) => line.msg === 'listening').then((line) => line.port as number);
  port.catch(() => {}); // a test that expects the start to fail never awaits it
  return { child, port, logs, stderr: () => err, exited, waitForLog };
}

/** Runs a command to completion, as a person would from the repository root. */
export function run(command: string, args: string[], env: Record<string, string>, options: { shell?: boolean } = {}) {
  const out = spawnSync(command, args, {
    cwd: root,
    env: childEnv(env),
    encoding: 'utf8',
    shell: options.shell,
    timeout: 170_000,
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

/** The same without blocking this process (needed when the command talks to a server in this process). */
export function runAsync(
  command: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, { cwd: root, env: childEnv(env), shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
