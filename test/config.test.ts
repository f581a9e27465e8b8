import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig, resolvePatCache } from '../src/config.js';
import { parseRedisUrl } from '../src/redis/redis-url.js';

describe('configuration', () => {
  test('defaults: port 4000, loopback, BASE_URL from the port, embedded database under ./data', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:4000',
      databaseUrl: 'file:./data',
      migrateOnStart: true,
      trustProxy: false,
    });
    expect(loadConfig({ PORT: '8080' }).baseUrl).toBe('http://localhost:8080');
  });

  test('BASE_URL loses its trailing slash; database URLs of every supported kind are accepted', () => {
    expect(loadConfig({ BASE_URL: 'https://work.example.com/' }).baseUrl).toBe('https://work.example.com');
    for (const url of ['file:/var/lib/wm', 'memory://', 'postgres://u@db/wm', 'postgresql://u@db:5432/wm']) {
      expect(loadConfig({ DATABASE_URL: url }).databaseUrl).toBe(url);
    }
  });

  test('MIGRATION_DATABASE_URL: a PostgreSQL URL beside a PostgreSQL DATABASE_URL; unset, migrations use DATABASE_URL', () => {
    const pooled = 'postgres://wm:pw@127.0.0.1:6432/wm';
    const direct = 'postgres://wm:pw@127.0.0.1:5432/wm';
    expect(loadConfig({ DATABASE_URL: pooled, MIGRATION_DATABASE_URL: direct }).migrationDatabaseUrl).toBe(direct);
    expect(loadConfig({ DATABASE_URL: pooled }).migrationDatabaseUrl).toBeUndefined();
    expect(() => loadConfig({ DATABASE_URL: pooled, MIGRATION_DATABASE_URL: 'file:./data' })).toThrow(
      /MIGRATION_DATABASE_URL: must be postgres/,
    );
    expect(() => loadConfig({ DATABASE_URL: 'memory://', MIGRATION_DATABASE_URL: direct })).toThrow(
      /MIGRATION_DATABASE_URL: needs DATABASE_URL to name PostgreSQL/,
    );
  });

  test('REDIS_URL: one server, or a cluster by its nodes; a cluster URL with a database, a path or a bad node is refused', () => {
    for (const url of ['redis://cache:6379/2', 'rediss://u:p@cache', 'redis+cluster://10.0.0.1:7000,10.0.0.2:7000']) {
      expect(loadConfig({ REDIS_URL: url }).redisUrl).toBe(url);
    }
    expect(parseRedisUrl('rediss+cluster://ops:s%40cret@[::1]:7000,b.example:7001/')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '::1', port: 7000 },
        { host: 'b.example', port: 7001 },
      ],
      username: 'ops',
      password: 's@cret',
      tls: true,
    });
    expect(parseRedisUrl('redis+cluster://a,b:7001')).toMatchObject({
      nodes: [
        { host: 'a', port: 6379 },
        { host: 'b', port: 7001 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    for (const url of [
      'http://cache',
      'redis+cluster://a:7000/1',
      'redis+cluster://a:7000,',
      'redis+cluster://a:99999',
    ]) {
      expect(() => loadConfig({ REDIS_URL: url }), url).toThrow(/REDIS_URL/);
    }
  });

  test('every problem is reported at once', () => {
    let error: unknown;
    try {
      loadConfig({ PORT: 'eighty', BASE_URL: 'ftp://x', DATABASE_URL: 'mysql://db', TRUST_PROXY: 'maybe' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'BASE_URL', 'DATABASE_URL', 'TRUST_PROXY']) expect(problems).toContain(name);
    expect((error as ConfigError).problems).toHaveLength(4);
  });

  test('PAT_CACHE: auto caches with the embedded database or with Redis, not on PostgreSQL alone; on and off force it', () => {
    expect(loadConfig({}).patCache).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'memory://' }).patCache).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db/wm' }).patCache).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://u@db/wm', REDIS_URL: 'redis://cache:6379' }).patCache).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgresql://u@db/wm', PAT_CACHE: 'on' }).patCache).toBe(true);
    expect(loadConfig({ PAT_CACHE: 'off' }).patCache).toBe(false);
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379', PAT_CACHE: 'off' }).patCache).toBe(false);
    expect(loadConfig({ PAT_CACHE: 'auto', DATABASE_URL: 'file:/var/lib/wm' }).patCache).toBe(true);
    expect(resolvePatCache('auto', 'postgresql://u@db/wm', undefined)).toBe(false);
    expect(() => loadConfig({ PAT_CACHE: 'yes' })).toThrow(/PAT_CACHE/);
  });
  test("mail: off without SMTP_URL; the sender defaults to no-reply at BASE_URL's host; a URL that is not SMTP is refused", () => {
    expect(loadConfig({}).mail).toEqual({ smtpUrl: undefined, from: 'workmgmt <no-reply@localhost>' });
    expect(
      loadConfig({ SMTP_URL: 'smtp://u:p@mail.example.com:587', BASE_URL: 'https://work.example.com' }).mail,
    ).toEqual({
      smtpUrl: 'smtp://u:p@mail.example.com:587',
      from: 'workmgmt <no-reply@work.example.com>',
    });
    expect(loadConfig({ SMTP_URL: 'smtps://mail.example.com', MAIL_FROM: 'Team <team@example.com>' }).mail.from).toBe(
      'Team <team@example.com>',
    );
    expect(() => loadConfig({ SMTP_URL: 'http://mail.example.com' })).toThrow(/SMTP_URL: must be smtp:\/\//);
  });
  test('connection limits: defaults for a direct server, proxy defaults with TRUST_PROXY, each overridable', () => {
    expect(loadConfig({}).connections).toEqual({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 60_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 4096,
      maxConnectionsPerAddress: 256,
    });
    expect(loadConfig({ TRUST_PROXY: 'true' }).connections).toMatchObject({
      keepAliveTimeoutMs: 65_000,
      maxConnectionsPerAddress: 0,
    });
    expect(
      loadConfig({
        TRUST_PROXY: 'true',
        HTTP_HEADERS_TIMEOUT_MS: '2000',
        HTTP_REQUEST_TIMEOUT_MS: '3000',
        HTTP_KEEP_ALIVE_TIMEOUT_MS: '4000',
        MAX_CONNECTIONS: '10',
        MAX_CONNECTIONS_PER_ADDRESS: '5',
      }).connections,
    ).toEqual({
      headersTimeoutMs: 2_000,
      requestTimeoutMs: 3_000,
      keepAliveTimeoutMs: 4_000,
      maxConnections: 10,
      maxConnectionsPerAddress: 5,
    });
    // Node refuses a headers timeout longer than the request it is part of.
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '90000' })).toThrow(/HTTP_HEADERS_TIMEOUT_MS/);
    expect(() => loadConfig({ MAX_CONNECTIONS: '0' })).toThrow(/MAX_CONNECTIONS/);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'soon' })).toThrow(/HTTP_KEEP_ALIVE_TIMEOUT_MS/);
  });

  test('subscription streams: 10 per credential, 100 per organization, re-checked every 5 s; each overridable', () => {
    expect(loadConfig({}).liveStreams).toEqual({ perCredential: 10, perOrganization: 100, recheckMs: 5_000 });
    const env = {
      SUBSCRIPTION_STREAMS_PER_CREDENTIAL: '2',
      SUBSCRIPTION_STREAMS_PER_ORG: '7',
      SUBSCRIPTION_RECHECK_MS: '250',
    };
    expect(loadConfig(env).liveStreams).toEqual({ perCredential: 2, perOrganization: 7, recheckMs: 250 });
    expect(() => loadConfig({ SUBSCRIPTION_STREAMS_PER_CREDENTIAL: '0' })).toThrow(
      /SUBSCRIPTION_STREAMS_PER_CREDENTIAL/,
    );
    expect(() => loadConfig({ SUBSCRIPTION_RECHECK_MS: 'often' })).toThrow(/SUBSCRIPTION_RECHECK_MS/);
  });
});
