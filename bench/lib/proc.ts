// Child processes of the benchmark: started pinned to a core when taskset exists, stopped by
// their own pid (SIGTERM, then SIGKILL), and their CPU time read from /proc.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const hasTaskset = spawnSync('sh', ['-c', 'command -v taskset'], { encoding: 'utf8' }).status === 0;

/** Pins this process (every thread) to `core`; false when taskset is missing or refuses. */
export function pinSelf(core: number): boolean {
  if (!hasTaskset) return false;
  return spawnSync('taskset', ['-a', '-p', '-c', String(core), String(process.pid)], { stdio: 'ignore' }).status === 0;
}

/** This Node with `args`, pinned to `core` when one is given and taskset exists. */
function nodeCommand(args: string[], core: number | undefined): string[] {
  return hasTaskset && core !== undefined
    ? ['taskset', '-c', String(core), process.execPath, ...args]
    : [process.execPath, ...args];
}

export interface Child {
  name: string;
  proc: ChildProcess;
  port: number;
  output: () => string;
  stop(): Promise<number | null>;
}

export function startChild(
  name: string,
  args: string[],
  options: { env: Record<string, string | undefined>; port: number; core?: number },
): Child {
  const command = nodeCommand(args, options.core);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...process.env, ...options.env })) if (v !== undefined) env[k] = v;
  const proc = spawn(command[0]!, command.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (chunk: Buffer) => {
    log += chunk.toString();
    if (log.length > 20_000) log = log.slice(-10_000);
  };
  proc.stdout!.on('data', keep);
  proc.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    name,
    proc,
    port: options.port,
    output: () => log,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return proc.exitCode;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Runs a script to its end, pinned to `core` when taskset exists, with `input` on its stdin; resolves with its stdout. */
export function runToEnd(args: string[], options: { input: string; core?: number }): Promise<string> {
  const command = nodeCommand(args, options.core);
  const proc = spawn(command[0]!, command.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  proc.stdin!.end(options.input);
  return new Promise((resolveRun, reject) => {
    proc.on('error', reject);
    proc.on('exit', (code) =>
      code === 0
        ? resolveRun(stdout)
        : reject(new Error(`${args.join(' ')} exited with ${code}:\n${stderr.slice(-4000)}`)),
    );
  });
}

/** Waits until the child answers HTTP on its port (any status). */
export async function waitForHttp(child: Child, path = '/', timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.proc.exitCode !== null)
      throw new Error(`${child.name} exited with ${child.proc.exitCode}:\n${child.output()}`);
    try {
      const response = await fetch(`http://127.0.0.1:${child.port}${path}`);
      await response.arrayBuffer();
      // The service binds its port before it has opened the database and answers 503 until then.
      if (response.status !== 503) return;
      await new Promise((r) => setTimeout(r, 200));
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`${child.name} did not answer within ${timeoutMs} ms:\n${child.output()}`);
}

const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/** user + system CPU seconds of a process (all its threads), or NaN when unreadable. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS;
  } catch {
    return NaN;
  }
}

/** Whole-machine busy CPU seconds (all cores) from /proc/stat. */
export function machineBusySeconds(): number {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = line;
    return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS;
  } catch {
    return NaN;
  }
}

function allProcessTicks(): Map<number, { ticks: number; command: string }> {
  const out = new Map<number, { ticks: number; command: string }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command =
        readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim() ||
        stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      out.set(Number(entry), { ticks: Number(fields[11]) + Number(fields[12]), command });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** Processes that used CPU during a `ms` window (pid, % of one core, command), busiest first. */
export async function busyProcesses(
  ms = 1000,
  exclude: number[] = [],
): Promise<{ pid: number; cpu_percent: number; command: string }[]> {
  const before = allProcessTicks();
  await new Promise((r) => setTimeout(r, ms));
  const after = allProcessTicks();
  const rows: { pid: number; cpu_percent: number; command: string }[] = [];
  for (const [pid, now] of after) {
    if (exclude.includes(pid) || pid === process.pid) continue;
    const delta = now.ticks - (before.get(pid)?.ticks ?? now.ticks);
    const percent = (delta / TICKS / (ms / 1000)) * 100;
    if (percent >= 5) rows.push({ pid, cpu_percent: Math.round(percent), command: now.command.slice(0, 100) });
  }
  return rows.sort((a, b) => b.cpu_percent - a.cpu_percent).slice(0, 8);
}

/** A port free on 127.0.0.1 now (for a child server to listen on). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
    server.on('error', reject);
  });
}
