/**
 * REDIS_URL: a single server (`redis://`, `rediss://`, as ioredis reads them) or a Redis
 * Cluster, `redis+cluster://[user:password@]host:port,host:port,...` (TLS with
 * `rediss+cluster://`): the nodes to reach it through first; any one answering is enough.
 */

export type RedisTarget =
  | { kind: 'server'; url: string }
  | {
      kind: 'cluster';
      nodes: { host: string; port: number }[];
      username: string | undefined;
      password: string | undefined;
      tls: boolean;
    };

const CLUSTER_SCHEME = /^(rediss?)\+cluster:\/\/(.*)$/;

/** Where REDIS_URL points, or what is wrong with it (one sentence). */
export function parseRedisUrl(url: string): RedisTarget | { problem: string } {
  const cluster = CLUSTER_SCHEME.exec(url);
  if (!cluster) {
    if (!/^rediss?:\/\/.+/.test(url))
      return { problem: 'must be redis://..., rediss://..., or redis+cluster://host:port,host:port,...' };
    return { kind: 'server', url };
  }
  const [, scheme, rest = ''] = cluster;
  const at = rest.lastIndexOf('@');
  const credentials = at >= 0 ? rest.slice(0, at) : '';
  const hosts = (at >= 0 ? rest.slice(at + 1) : rest).replace(/\/$/, '');
  if (/[/?#]/.test(hosts)) return { problem: 'a cluster URL takes no database number, path or query' };
  const nodes: { host: string; port: number }[] = [];
  for (const node of hosts.split(',')) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(node.trim());
    const port = Number(match?.[2] ?? 6379);
    if (!match || port < 1 || port > 65535) return { problem: `"${node}" is not host:port (in redis+cluster://...)` };
    nodes.push({ host: match[1]!.replace(/^\[|\]$/g, ''), port });
  }
  const colon = credentials.indexOf(':');
  const username = colon >= 0 ? credentials.slice(0, colon) : '';
  const password = colon >= 0 ? credentials.slice(colon + 1) : credentials;
  return {
    kind: 'cluster',
    nodes,
    username: username ? decodeURIComponent(username) : undefined,
    password: password ? decodeURIComponent(password) : undefined,
    tls: scheme === 'rediss',
  };
}

/** The node a message names when REDIS_URL cannot be reached: host:port, the first one of a cluster. */
export function redisAddress(url: string): string {
  const target = parseRedisUrl(url);
  if ('problem' in target) return url;
  if (target.kind === 'cluster') return target.nodes.map((n) => `${n.host}:${n.port}`).join(',');
  const u = new URL(url);
  return `${u.hostname || 'localhost'}:${u.port || '6379'}`;
}
