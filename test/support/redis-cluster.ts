import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';

// A Redis Cluster of a test's own, from Debian's redis-server and redis-cli: masters with one
// replica each on loopback, so a test can kill a master and watch its replica take over. Each
// node also listens on its port + 10000 (the cluster bus).

export const redisClusterAvailable =
  spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0 &&
  spawnSync('redis-cli', ['--version'], { encoding: 'utf8' }).status === 0;
if (!redisClusterAvailable && process.env.CI)
  throw new Error(
    'redis-server or redis-cli not found: the Redis Cluster suites need both (apt-get install redis-server).',
  );

export interface RedisClusterOptions {
  /**
   * The nodes' ports, masters first (`masters` of them), then their replicas in the same order.
   * Default: a block of consecutive free ports in 43000-43999 (the range these suites may use).
   */
  ports?: number[];
  /** Default 3. */
  masters?: number;
  /** How long a node stays unreachable before the cluster fails it over; default 1000 ms. */
  nodeTimeoutMs?: number;
  /** Extra redis-server options for every node. */
  args?: string[];
}

export interface RedisCluster {
  /** The REDIS_URL naming the cluster: redis+cluster://127.0.0.1:<port>,... (every node). */
  url: string;
  ports: number[];
  /** The master now serving `key`'s slot. */
  masterOf(key: string): Promise<number>;
  /** A replica now following the master on `port`. */
  replicaOf(port: number): Promise<number>;
  /** kill -9 one node: no shutdown, connections dropped. */
  kill(port: number): Promise<void>;
  /** SIGSTOP / SIGCONT one node: it answers nothing (nor replicates) until resumed. */
  pause(port: number): void;
  resume(port: number): void;
  /** Starts a killed node again on its data directory: it rejoins the cluster (as a replica, once failed over). */
  restart(port: number): Promise<void>;
  /** Resolves once every running node reports cluster_state:ok, no node is failing and replicas are in sync. */
  settled(timeoutMs?: number): Promise<void>;
  /** A one-off command on one node's own connection, as an operator would send it. */
  command<T>(port: number, run: (client: Redis) => Promise<T>): Promise<T>;
  stop(): Promise<void>;
}

function startNode(port: number, dir: string, nodeTimeoutMs: number, args: string[]): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      // A replica cut off from its master for a while may still take over: the tests decide what it missed.
      '--cluster-replica-validity-factor',
      '0',
      '--enable-debug-command',
      'local',
      ...args,
    ],
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

async function command<T>(port: number, run: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    port,
    host: '127.0.0.1',
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 2_000,
  });
  client.on('error', () => {});
  await client.connect();
  try {
    return await run(client);
  } finally {
    client.disconnect();
  }
}

/** `CLUSTER NODES` of one node, parsed: id, port, flags, master id. */
async function clusterNodes(port: number) {
  const text = await command(port, (c) => c.call('CLUSTER', 'NODES') as Promise<string>);
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, master] = line.split(' ');
      return {
        id: id!,
        port: Number(address!.split('@')[0]!.split(':').pop()),
        flags: flags!.split(','),
        master: master!,
      };
    });
}

/** Starts the nodes and joins them with `redis-cli --cluster create`; resolves once the cluster is ok. */
export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3;
  const count = masters * 2;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 1_000;
  const args = options.args ?? [];
  const root = mkdtempSync(join(tmpdir(), 'wm-redis-cluster-'));
  const children = new Map<number, ChildProcess>();
  const dirOf = (port: number) => join(root, String(port));

  async function startAll(ports: number[]): Promise<boolean> {
    for (const port of ports) {
      mkdirSync(dirOf(port), { recursive: true });
      const child = await startNode(port, dirOf(port), nodeTimeoutMs, args).catch(() => undefined);
      if (!child) return false;
      children.set(port, child);
    }
    return true;
  }
  async function killAll(): Promise<void> {
    await Promise.all(
      [...children.values()].map((child) => {
        child.kill('SIGKILL');
        return exited(child);
      }),
    );
    children.clear();
  }

  let ports = options.ports;
  if (ports) {
    if (ports.length !== count) throw new Error(`a cluster of ${masters} masters needs ${count} ports`);
    if (!(await startAll(ports))) {
      await killAll();
      throw new Error(`could not start redis-server on every port of ${ports.join(', ')}`);
    }
  } else {
    for (let attempt = 0; attempt < 20 && !ports; attempt++) {
      const base = 43000 + Math.floor(Math.random() * (1000 - count));
      const candidate = Array.from({ length: count }, (_, i) => base + i);
      if (await startAll(candidate)) ports = candidate;
      else await killAll(); // a port (or its bus port) taken: another block
    }
    if (!ports) throw new Error('could not start a Redis Cluster on ports of 43000-43999');
  }
  const nodePorts = ports;

  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...nodePorts.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (created.status !== 0) {
    await killAll();
    rmSync(root, { recursive: true, force: true });
    throw new Error(`redis-cli --cluster create failed: ${created.stdout.slice(-1000)}${created.stderr.slice(-500)}`);
  }

  const running = () => [...children.entries()].filter(([, c]) => c.exitCode === null && c.signalCode === null);

  async function settledOnce(): Promise<boolean> {
    for (const [port] of running()) {
      const info = await command(port, (c) => c.call('CLUSTER', 'INFO') as Promise<string>);
      if (!info.includes('cluster_state:ok')) return false;
      const nodes = await clusterNodes(port);
      const live = new Set(running().map(([p]) => p));
      if (nodes.some((n) => live.has(n.port) && n.flags.some((f) => f === 'fail' || f === 'fail?'))) return false;
      const me = nodes.find((n) => n.flags.includes('myself'));
      if (me?.flags.includes('slave')) {
        const replication = await command(port, (c) => c.info('replication'));
        if (!replication.includes('master_link_status:up')) return false;
      }
    }
    return true;
  }

  const cluster: RedisCluster = {
    url: `redis+cluster://${nodePorts.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports: nodePorts,
    async masterOf(key) {
      const [port] = running()[0]!;
      const slot = await command(port, (c) => c.call('CLUSTER', 'KEYSLOT', key) as Promise<number>);
      const slots = await command(
        port,
        (c) => c.call('CLUSTER', 'SLOTS') as Promise<[number, number, [string, number]][]>,
      );
      const range = slots.find(([from, to]) => slot >= from && slot <= to);
      if (!range) throw new Error(`no master serves slot ${slot}`);
      return Number(range[2][1]);
    },
    async replicaOf(port) {
      const nodes = await clusterNodes(running()[0]![0]);
      const master = nodes.find((n) => n.port === port);
      const replica = nodes.find((n) => n.master === master?.id && !n.flags.includes('fail'));
      if (!replica) throw new Error(`no replica follows the node on ${port}`);
      return replica.port;
    },
    async kill(port) {
      const child = children.get(port);
      if (!child) throw new Error(`no node on ${port}`);
      child.kill('SIGKILL');
      await exited(child);
    },
    pause(port) {
      children.get(port)?.kill('SIGSTOP');
    },
    resume(port) {
      children.get(port)?.kill('SIGCONT');
    },
    async restart(port) {
      children.set(port, await startNode(port, dirOf(port), nodeTimeoutMs, args));
    },
    async settled(timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (await settledOnce().catch(() => false)) return;
        if (Date.now() > deadline) throw new Error(`the Redis Cluster on ${nodePorts.join(', ')} did not settle`);
        await sleep(100);
      }
    },
    command,
    async stop() {
      for (const child of children.values()) child.kill('SIGCONT');
      await killAll();
      rmSync(root, { recursive: true, force: true });
    },
  };
  try {
    await cluster.settled(60_000);
  } catch (error) {
    await cluster.stop();
    throw error;
  }
  return cluster;
}
