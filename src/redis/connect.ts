/**
 * The one place a Redis connection is made, from REDIS_URL (see redis-url.ts): a single server,
 * or a Redis Cluster that ioredis' `Cluster` reaches through any of the listed nodes and then
 * follows as slots move. Callers see one client type and pass the same options either way.
 */
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import { parseRedisUrl } from './redis-url.js';

/** A connection to a Redis server or to a Redis Cluster: the commands and events both have. */
export type RedisClient = Redis | Cluster;

/**
 * A connection to REDIS_URL (config-checked, so a bad one throws). `options` are a single
 * server's; for a cluster they apply to each node's connection, except the ones that are the
 * cluster's: `enableOfflineQueue`, `lazyConnect`, and `retryStrategy` (reconnecting the whole
 * cluster once no node answers).
 */
export function connectRedis(url: string, options: RedisOptions = {}): RedisClient {
  const target = parseRedisUrl(url);
  if ('problem' in target) throw new Error(`REDIS_URL ${target.problem}`);
  if (target.kind === 'server') return new Redis(url, options);
  const { enableOfflineQueue, lazyConnect, retryStrategy, ...nodeOptions } = options;
  const clusterOptions: ClusterOptions = {
    redisOptions: {
      ...nodeOptions,
      username: target.username,
      password: target.password,
      ...(target.tls ? { tls: {} } : {}),
    },
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
    ...(retryStrategy === undefined ? {} : { clusterRetryStrategy: retryStrategy }),
  };
  return new Cluster(target.nodes, clusterOptions);
}

/**
 * Calls `onLost` whenever a connection the client holds closes: a single server's, or any
 * node's of a cluster (a master failing over closes only that node's connection; the cluster
 * client itself stays up).
 */
export function onConnectionLost(client: RedisClient, onLost: () => void): void {
  client.on('close', onLost);
  if (client instanceof Cluster) client.on('-node', onLost);
}
