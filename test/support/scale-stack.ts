import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, startServer, type ServerProcess } from './server-process.js';

// The deploy/ recipe run on loopback, as deploy/README.md installs it: HAProxy and PgBouncer with
// deploy/haproxy.cfg and deploy/pgbouncer.ini, instances as deploy/workmgmt@.service starts them
// with deploy/workmgmt.env. Only addresses, ports and directories differ.

const deployFile = (name: string) => readFileSync(join(root, 'deploy', name), 'utf8');

/** `${NAME}` replaced by `vars[NAME]`, as envsubst does (README: envsubst < deploy/pgbouncer.ini). */
function envsubst(text: string, vars: Record<string, string>): string {
  return text.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => {
    const value = vars[name];
    if (value === undefined) throw new Error(`no value for \${${name}}`);
    return value;
  });
}

/** KEY=VALUE lines of an EnvironmentFile (comments and blank lines skipped). */
function readEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) env[match[1]!] = match[2]!;
  }
  return env;
}

/** What deploy/workmgmt@.service runs for instance `port`: node's arguments and the environment it sets. */
function unitCommand(port: number): { args: string[]; env: Record<string, string> } {
  const unit = deployFile('workmgmt@.service').replaceAll('%i', String(port));
  const values = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!.trim());
  const [node, ...args] = values('ExecStart')[0]!.split(/\s+/);
  if (!node!.endsWith('/node')) throw new Error(`ExecStart runs ${node}, not node`);
  const env = readEnvFile(deployFile('workmgmt.env'));
  for (const assignment of values('Environment')) Object.assign(env, readEnvFile(assignment));
  return { args, env };
}

export interface Child {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `command`; resolves once `ready` matches its output, rejects if it exits first. */
function startChild(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<Child> {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    const seen = () => {
      if (ready.test(output)) resolve(handle);
    };
    const handle: Child = {
      child,
      output: () => output,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      },
    };
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      seen();
    });
    child.stderr!.on('data', (chunk) => {
      output += chunk;
      seen();
    });
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}): ${output.slice(-1000)}`)));
    child.once('error', reject);
  });
}

/** PgBouncer with deploy/pgbouncer.ini, in front of the PostgreSQL at `postgres`, on `port`, for user:password. */
export async function startPgBouncer(options: {
  port: number;
  postgres: URL;
  user: string;
  password: string;
}): Promise<Child & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'wm-pgbouncer-'));
  const ini = envsubst(deployFile('pgbouncer.ini'), {
    WM_PG_HOST: options.postgres.hostname,
    WM_PG_PORT: options.postgres.port || '5432',
    WM_PGBOUNCER_PORT: String(options.port),
    WM_PGBOUNCER_DIR: dir,
  });
  writeFileSync(join(dir, 'pgbouncer.ini'), ini);
  writeFileSync(join(dir, 'userlist.txt'), `"${options.user}" "${options.password}"\n`);
  // PgBouncer refuses to run as root: as root (a CI container), it switches to nobody (-u),
  // who must then reach the directory (its socket and pid file) and read the files.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    chmodSync(dir, 0o777);
    for (const file of ['pgbouncer.ini', 'userlist.txt']) chmodSync(join(dir, file), 0o644);
  }
  const args = [...(asRoot ? ['-u', 'nobody'] : []), join(dir, 'pgbouncer.ini')];
  const child = await startChild('pgbouncer', args, process.env, /process up/);
  return {
    ...child,
    dir,
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** HAProxy with deploy/haproxy.cfg on `listen`, in front of `instances` (three host:port). */
export async function startHaproxy(listen: string, instances: string[]): Promise<Child & { adminSocket: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'wm-haproxy-'));
  const env = {
    ...process.env,
    WM_LISTEN: listen,
    WM_HAPROXY_RUN: dir,
    ...Object.fromEntries(instances.map((address, i) => [`WM_INSTANCE_${i + 1}`, address])),
  };
  // -db: stay in the foreground; -W: master-worker, so the master's "Loading success" says it is up.
  const child = await startChild(
    'haproxy',
    ['-W', '-db', '-f', join(root, 'deploy', 'haproxy.cfg')],
    env,
    /Loading success|Proxy public started/,
  );
  return {
    ...child,
    adminSocket: join(dir, 'admin.sock'),
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One command on HAProxy's admin socket; its answer. */
function haproxyCommand(socket: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const connection = connect(socket);
    let answer = '';
    connection.on('data', (chunk) => (answer += chunk));
    connection.on('end', () => resolve(answer));
    connection.on('error', reject);
    connection.end(`${command}\n`);
  });
}

/** The state HAProxy's checks give each server of the backend `instances` (UP, DOWN, ...), by name. */
export async function serverStates(socket: string): Promise<Record<string, string>> {
  const csv = await haproxyCommand(socket, 'show stat');
  const states: Record<string, string> = {};
  for (const line of csv.split('\n')) {
    const [proxy, server, ...rest] = line.split(',');
    if (proxy === 'instances' && server && server !== 'BACKEND') states[server] = rest[15]!;
  }
  return states;
}

/** An instance started as deploy/workmgmt@.service starts it, with `overrides` over workmgmt.env. */
export function startInstance(port: number, overrides: Record<string, string>): ServerProcess {
  const { args, env } = unitCommand(port);
  return startServer({ ...env, ...overrides, PORT: String(port) }, { args });
}
