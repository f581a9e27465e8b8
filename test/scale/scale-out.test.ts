import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mintApiKey } from '../../src/auth/api-keys.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { sealSecret } from '../../src/webhooks/secret-box.js';
import { newSigningSecret } from '../../src/webhooks/signing.js';
import { hashToken } from '../../src/auth/pat-token.js';
import { credentialSubject } from '../../src/limits/limiter.js';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import { serverStates, startHaproxy, startInstance, startPgBouncer, type Child } from '../support/scale-stack.js';
import type { ServerProcess } from '../support/server-process.js';
import { subscribe } from '../support/sse.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

// The deploy/ recipe on loopback with real processes (deploy/README.md, "Running several
// instances"): HAProxy (deploy/haproxy.cfg) in front of three instances started as
// deploy/workmgmt@.service starts them, PgBouncer (deploy/pgbouncer.ini) in front of
// PostgreSQL, a Redis Cluster of three masters with a replica each. Ports 4780-4783 (HAProxy,
// instances), 6440 (PgBouncer) and 6443-6448 (Redis) are this suite's.

const adminUrl = new URL(process.env.TEST_POSTGRES_URL!);
const PROXY_PORT = 4780;
const INSTANCE_PORTS = [4781, 4782, 4783];
const PGBOUNCER_PORT = 6440;
/** A Redis Cluster of three masters (6443-6445) and their replicas (6446-6448); bus ports +10000. */
const REDIS_PORTS = [6443, 6444, 6445, 6446, 6447, 6448];
const PG_PASSWORD = 'scale-suite-password';
const PASSWORD = 'scale-out suite password';
const SECRET_KEY = 'scale-out suite key for sealing webhook secrets';
const proxy = `http://127.0.0.1:${PROXY_PORT}`;
const direct = (i: number) => `http://127.0.0.1:${INSTANCE_PORTS[i]}`;
/** Creates held in flight on the instance killed with -9. */
const IN_FLIGHT = 3;

const cleanups: (() => Promise<void> | void)[] = [];
let database = '';
let haproxy: Child & { adminSocket: string };
let redis: RedisCluster;
const instances: ServerProcess[] = [];
let overrides: Record<string, string> = {};
let projectId = '';
/** Another project of acme's: the creates held in flight wait for its lock, not the load's. */
let heldProjectId = '';
let loadTokens: string[] = [];
/** Tokens of their own for the single-purpose tests (a fresh bucket, a key to revoke), and the key's id. */
let bucketToken = '';
let failoverToken = '';
let revokable = { id: '', token: '', ownerEmail: '', orgId: '' };
let subscriberToken = '';
const receiver = new WebhookReceiver();

async function adminQuery<T extends pg.QueryResultRow>(sql: string, url: URL = adminUrl): Promise<T[]> {
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const directDatabaseUrl = () => {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url;
};

async function allUp(count = 3): Promise<void> {
  for (;;) {
    const states = await serverStates(haproxy.adminSocket);
    if (Object.values(states).filter((s) => s === 'UP').length === count) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts instance `i` as the systemd unit would and waits until HAProxy's checks have it UP. */
async function startAt(i: number): Promise<void> {
  const server = startInstance(INSTANCE_PORTS[i]!, overrides);
  instances[i] = server;
  await server.port;
}

beforeAll(async () => {
  database = `wm_scale_${randomUUID().replace(/-/g, '')}`;
  await adminQuery(`CREATE DATABASE ${database}`);
  cleanups.push(() => adminQuery(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).then(() => {}));
  const user = decodeURIComponent(adminUrl.username) || 'postgres';
  const pgbouncer = await startPgBouncer({ port: PGBOUNCER_PORT, postgres: adminUrl, user, password: PG_PASSWORD });
  cleanups.push(() => pgbouncer.stop());
  redis = await startRedisCluster({ ports: REDIS_PORTS });
  cleanups.push(() => redis.stop());
  const hooks = await receiver.start();
  cleanups.push(() => receiver.close());
  overrides = {
    DATABASE_URL: `postgres://${user}:${PG_PASSWORD}@127.0.0.1:${PGBOUNCER_PORT}/${database}`,
    MIGRATION_DATABASE_URL: directDatabaseUrl().href,
    REDIS_URL: redis.url,
    BASE_URL: proxy,
    WEBHOOKS_SECRET_KEY: SECRET_KEY,
    // The receiver listens on loopback; a delivery held by a killed instance is sent again after 11 s, not 60.
    WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
    WEBHOOKS_LEASE_SECONDS: '11',
  };
  // Three instances at once on the empty database: they migrate through MIGRATION_DATABASE_URL, one at a time.
  await Promise.all([0, 1, 2].map((i) => startAt(i)));
  cleanups.push(() => {
    for (const server of instances) server.child.kill('SIGKILL');
  });
  haproxy = await startHaproxy(
    `127.0.0.1:${PROXY_PORT}`,
    INSTANCE_PORTS.map((p) => `127.0.0.1:${p}`),
  );
  cleanups.push(() => haproxy.stop());

  // Demo data and credentials, written straight to PostgreSQL as an operator's script would.
  const { openDatabase } = await import('../../src/db/client.js');
  const db = await openDatabase(directDatabaseUrl().href);
  try {
    const seed = await seedDemo(db.prisma, { password: PASSWORD });
    const acme = seed.orgs.find((o) => o.slug === 'acme')!;
    projectId = acme.projects[0]!.id;
    heldProjectId = acme.projects[1]!.id;
    const mark = seed.users.find((u) => u.username === 'mark' && u.org_id === acme.id)!;
    const mint = (name: string) => mintApiKey(db.prisma, { userId: mark.id, orgId: acme.id, name });
    loadTokens = await Promise.all([1, 2, 3, 4].map(async (n) => (await mint(`load ${n}`)).token));
    bucketToken = (await mint('bucket')).token;
    failoverToken = (await mint('failover')).token;
    const key = await mint('revoked');
    revokable = { id: key.key.id, token: key.token, ownerEmail: mark.email, orgId: acme.id };
    subscriberToken = (await mint('subscriber')).token;
    const secret = newSigningSecret();
    receiver.secrets = [secret];
    await db.prisma.webhook.create({
      data: { orgId: acme.id, url: hooks, events: ['issue.created'], secret: sealSecret(secret, SECRET_KEY) },
    });
  } finally {
    await db.close();
  }
  await allUp();
}, 180_000);

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

interface Tally {
  sent: number;
  failed: number;
  retried: number;
  /** Idempotency-Key -> issue id, for every create answered 201. */
  acknowledged: Map<string, string>;
  /** Keys whose create was retried after a failure (their first attempt died with its instance). */
  retriedKeys: Set<string>;
  /** Keys a retry was told were applied (committed, answer lost: 409 idempotency_request_applied). */
  applied: string[];
  /** Keys whose create never got an answer that says whether it ran. */
  unknown: string[];
  failures: string[];
}

const newTally = (): Tally => ({
  sent: 0,
  failed: 0,
  retried: 0,
  acknowledged: new Map(),
  retriedKeys: new Set(),
  applied: [],
  unknown: [],
  failures: [],
});

async function send(url: string, init: RequestInit): Promise<{ status: number; body: any } | { error: string }> {
  try {
    const response = await fetch(url, init);
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  } catch (error) {
    return { error: String((error as Error).cause ?? error) };
  }
}

const createInit = (token: string, key: string, project = projectId): RequestInit => ({
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
  body: JSON.stringify({ project_id: project, title: `scale ${key}` }),
});

type Answer = Awaited<ReturnType<typeof send>>;

/**
 * Sends one request (`attempt`), and on failure, with `retry`, sends it again (a create with the
 * same Idempotency-Key), tallying the outcome. `first`: the first attempt's answer, when it was
 * sent elsewhere (straight to an instance).
 */
async function settle(
  tally: Tally,
  request: { write: boolean; key: string; attempt: () => Promise<Answer>; retry: boolean; first?: Promise<Answer> },
): Promise<void> {
  const { write, key, attempt, retry } = request;
  tally.sent++;
  let answer = await (request.first ?? attempt());
  const ok = (a: Answer) => 'status' in a && (write ? a.status === 201 : a.status === 200);
  if (!ok(answer)) {
    tally.failed++;
    tally.failures.push(`${write ? 'POST' : 'GET'} ${'status' in answer ? answer.status : answer.error}`);
    if (retry && write) tally.retriedKeys.add(key);
    // A retry finding the dead instance's key still leased waits (5 s), then is told it is in use
    // (409 idempotency_key_in_use): it retries until the lease (10 s) runs out and it runs the
    // create itself, or learns that it was applied.
    for (let n = 0; retry && n < 8 && !ok(answer); n++) {
      tally.retried++;
      await new Promise((r) => setTimeout(r, 300));
      answer = await attempt();
      if ('status' in answer && answer.status === 409 && answer.body?.code !== 'idempotency_key_in_use') break;
    }
  }
  const code = 'status' in answer && answer.status === 409 ? answer.body?.code : undefined;
  if (write && ok(answer)) tally.acknowledged.set(key, (answer as { body: { id: string } }).body.id);
  else if (write && retry && code === 'idempotency_request_applied') tally.applied.push(key);
  else if (write && retry) tally.unknown.push(key);
}

/**
 * Mixed reads and writes (one create in three) through HAProxy, one request at a time per token,
 * at most one every 150 ms (below each token's 600 a minute), until `stop` or `maxRequests`.
 * `retry`: a failed request is sent again (a create with the same Idempotency-Key).
 */
async function load(token: string, tally: Tally, stop: () => boolean, retry: boolean, maxRequests = 1000) {
  for (let i = 0; i < maxRequests && !stop(); i++) {
    const started = Date.now();
    const write = i % 3 === 2;
    const key = randomUUID();
    const attempt = () =>
      write
        ? send(`${proxy}/api/issues`, createInit(token, key))
        : send(`${proxy}/api/issues?project_id=${projectId}&limit=20`, {
            headers: { authorization: `Bearer ${token}` },
          });
    await settle(tally, { write, key, attempt, retry });
    await new Promise((r) => setTimeout(r, Math.max(0, 150 - (Date.now() - started))));
  }
}

/** Runs the load on every load token while `during` runs; the tally once all have stopped. */
async function underLoad(during: (tally: Tally) => Promise<void>, retry: boolean): Promise<Tally> {
  const tally = newTally();
  let stopped = false;
  const workers = loadTokens.map((token) => load(token, tally, () => stopped, retry));
  try {
    await during(tally);
  } finally {
    stopped = true;
    await Promise.all(workers);
  }
  return tally;
}

/** Issues whose title carries one of `keys`, counted per key. */
async function landed(keys: string[]): Promise<Map<string, number>> {
  const rows = await adminQuery<{ title: string; n: number }>(
    `SELECT title, count(*)::int AS n FROM issues WHERE title = ANY(ARRAY[${keys.map((k) => `'scale ${k}'`).join(',') || "''"}]) GROUP BY title`,
    directDatabaseUrl(),
  );
  return new Map(rows.map((r) => [r.title.slice('scale '.length), r.n]));
}

/**
 * Resolves once `count` connections of all running Redis nodes are subscribed to `channel`: an
 * SSE stream's headers come before its instance's SUBSCRIBE reaches Redis (the stream subscribes
 * when it is first read), and a change published before then is not the subscriber's to miss.
 * Bounded: a subscription that never comes back after a failover fails the test here.
 */
async function listening(channel: string, count: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let subscribed = 0;
    for (const port of REDIS_PORTS) {
      const reply = await redis
        .command(port, (c) => c.call('PUBSUB', 'NUMSUB', channel) as Promise<[string, number]>)
        .catch(() => [channel, 0] as [string, number]);
      subscribed += Number(reply[1]);
    }
    if (subscribed >= count) return;
    if (Date.now() > deadline)
      throw new Error(`${subscribed} of ${count} subscribers of ${channel} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** `promise`, or a failure naming `what` and the instances' warnings after `ms`. */
function within<T>(ms: number, promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const warnings = instances.flatMap((server, i) =>
        server.logs.filter((line) => Number(line.level) >= 40).map((line) => `instance ${i}: ${line.msg}`),
      );
      reject(new Error(`${what}: no event within ${ms} ms; warnings: ${JSON.stringify(warnings.slice(-20))}`));
    }, ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

const figures: Record<string, unknown> = {};
afterAll(() => {
  console.log(`scale-out figures: ${JSON.stringify(figures)}`);
});

describe.runIf(process.env.TEST_POSTGRES_URL)('the deploy/ recipe with three instances', { timeout: 240_000 }, () => {
  test('a rolling restart under load (SIGTERM, one at a time): no request fails, every acknowledged write is there', async () => {
    const tally = await underLoad(async () => {
      await new Promise((r) => setTimeout(r, 2000));
      for (let i = 0; i < 3; i++) {
        instances[i]!.child.kill('SIGTERM');
        expect(await instances[i]!.exited).toEqual({ code: 0, signal: null });
        await startAt(i);
        await allUp();
      }
      await new Promise((r) => setTimeout(r, 1000));
    }, false);
    const present = await landed([...tally.acknowledged.keys()]);
    figures.rollingRestart = {
      sent: tally.sent,
      failed: tally.failed,
      acknowledged: tally.acknowledged.size,
      present: [...present.values()].reduce((a, b) => a + b, 0),
    };
    expect(tally.failures).toEqual([]);
    expect(tally.acknowledged.size).toBeGreaterThan(0);
    for (const key of tally.acknowledged.keys()) expect(present.get(key)).toBe(1);
  });

  test('kill -9 of one instance under load: only requests in flight fail; retried with their key they land once; webhooks arrive once', async () => {
    const before = receiver.received.length;
    const tally = await underLoad(async (running) => {
      await new Promise((r) => setTimeout(r, 3000));
      // Creates surely in flight on instance 1 when it dies: each has claimed its key and waits,
      // inside its transaction, for the row lock of a project held here. (The load's own requests
      // are seldom in flight at the instant of the kill.)
      const lock = new pg.Client({ connectionString: directDatabaseUrl().href });
      lock.on('error', () => {});
      await lock.connect();
      await lock.query('BEGIN');
      await lock.query('SELECT id FROM projects WHERE id = $1 FOR UPDATE', [heldProjectId]);
      const [{ pid }] = (await lock.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      // Backends waiting for that lock: the first for this transaction, the next ones for the
      // first. Asked on another connection: a transaction sees one snapshot of pg_stat_activity.
      const waiting = async () =>
        (
          await adminQuery<{ n: number }>(
            `WITH first AS (SELECT pid FROM pg_stat_activity WHERE ${pid} = ANY(pg_blocking_pids(pid)))
             SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE ${pid} = ANY(pg_blocking_pids(pid)) OR pg_blocking_pids(pid) && ARRAY(SELECT pid FROM first)`,
          )
        )[0]!.n;
      const token = loadTokens[0]!;
      const inFlight = Array.from({ length: IN_FLIGHT }, () => {
        const key = randomUUID();
        const init = () => createInit(token, key, heldProjectId);
        const first = send(`${direct(1)}/api/issues`, init());
        return settle(running, {
          write: true,
          key,
          retry: true,
          first,
          attempt: () => send(`${proxy}/api/issues`, init()),
        });
      });
      while ((await waiting()) < IN_FLIGHT) await new Promise((r) => setTimeout(r, 20));
      instances[1]!.child.kill('SIGKILL');
      await instances[1]!.exited;
      await lock.query('ROLLBACK');
      await lock.end();
      await Promise.all(inFlight);
      await new Promise((r) => setTimeout(r, 1000));
    }, true);
    await startAt(1);
    await allUp();
    const keys = [...tally.acknowledged.keys(), ...tally.applied, ...tally.unknown];
    const present = await landed(keys);
    // One request in flight per load worker at most, and the creates held in flight: those are all that may fail.
    expect(tally.failed).toBeGreaterThanOrEqual(IN_FLIGHT);
    expect(tally.failed).toBeLessThanOrEqual(loadTokens.length + IN_FLIGHT);
    // Every create has an answer saying it ran: retried ones too (src/idempotency/claim.ts), none unknown.
    expect(tally.unknown).toEqual([]);
    for (const key of tally.acknowledged.keys()) expect(present.get(key)).toBe(1);
    for (const key of tally.retriedKeys) expect(present.get(key)).toBe(1);
    for (const key of tally.applied) expect(present.get(key)).toBe(1);

    // Every issue created in this test, acknowledged or not, is announced to the webhook exactly once.
    const created = [...present.values()].reduce((a, b) => a + b, 0);
    const issueIds = new Set(
      (
        await adminQuery<{ id: string }>(
          `SELECT id FROM issues WHERE title = ANY(ARRAY[${keys.map((k) => `'scale ${k}'`).join(',')}])`,
          directDatabaseUrl(),
        )
      ).map((r) => r.id),
    );
    const announced = () =>
      receiver.received.slice(before).filter((r) => issueIds.has((r.payload.data as { id: string }).id));
    while (new Set(announced().map((r) => r.id)).size < created) await new Promise((r) => setTimeout(r, 250));
    const deliveries = announced();
    const perIssue = new Map<string, Set<string>>();
    for (const r of deliveries) {
      const id = (r.payload.data as { id: string }).id;
      perIssue.set(id, (perIssue.get(id) ?? new Set()).add(r.id));
    }
    expect([...perIssue.values()].every((ids) => ids.size === 1)).toBe(true);
    expect(perIssue.size).toBe(created);
    figures.kill9 = {
      sent: tally.sent,
      failed: tally.failed,
      retried: tally.retried,
      retriedCreates: tally.retriedKeys.size,
      retriedCreatesAcknowledged: [...tally.retriedKeys].filter((key) => tally.acknowledged.has(key)).length,
      acknowledged: tally.acknowledged.size,
      appliedWithoutAnswer: tally.applied.length,
      unknownOutcome: tally.unknown.length,
      present: created,
      webhookEvents: perIssue.size,
      webhookResends: deliveries.length - perIssue.size,
      failures: tally.failures,
    };
  });

  test("a token's 600 a minute holds exactly across the three instances", async () => {
    const statuses: number[] = [];
    let next = 0;
    const total = 660;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while (next < total) {
          const n = next++;
          const answer = await send(`${direct(n % 3)}/api/projects`, {
            headers: { authorization: `Bearer ${bucketToken}` },
          });
          statuses.push('status' in answer ? answer.status : 0);
        }
      }),
    );
    const ok = statuses.filter((s) => s === 200).length;
    const limited = statuses.filter((s) => s === 429).length;
    figures.bucket = { sent: total, ok, limited };
    expect({ ok, limited }).toEqual({ ok: 600, limited: 60 });
  });

  test('a key revoked through one instance is refused by all three on the next request', async () => {
    const auth = { authorization: `Bearer ${revokable.token}` };
    // Each instance has verified (and cached) the key.
    for (let i = 0; i < 3; i++)
      expect(((await send(`${direct(i)}/api/projects`, { headers: auth })) as any).status).toBe(200);
    // Keys are revoked by a person (signed in), not with a key: through instance 0.
    const signIn = await fetch(`${direct(0)}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: proxy, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: revokable.ownerEmail, password: PASSWORD, next: '/' }),
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie')!.split(';')[0]!;
    const revoked = await send(`${direct(0)}/api/api-keys/${revokable.id}`, {
      method: 'DELETE',
      headers: { cookie, origin: proxy, 'x-org-id': revokable.orgId },
    });
    expect(revoked).toMatchObject({ status: 204 });
    for (let i = 0; i < 3; i++)
      expect(((await send(`${direct(i)}/api/projects`, { headers: auth })) as any).status).toBe(401);
  });

  test('an SSE subscription on one instance receives a change written through another', async () => {
    const live = await subscribe(
      `${direct(0)}/api/graphql`,
      { authorization: `Bearer ${subscriberToken}` },
      'subscription($p: ID) { issueChanged(projectId: $p) { kind issueId } }',
      { p: projectId },
    );
    expect(live.status).toBe(200);
    try {
      await listening(`org:${revokable.orgId}`, 1);
      const key = randomUUID();
      const created = await send(`${direct(2)}/api/issues`, createInit(subscriberToken, key));
      expect((created as any).status).toBe(201);
      // Bounded, and on failure the instances' warnings say why.
      const event = await Promise.race([
        live.next(),
        new Promise((_, reject) =>
          setTimeout(() => {
            const warnings = instances.flatMap((server, i) =>
              server.logs.filter((line) => Number(line.level) >= 40).map((line) => `instance ${i}: ${line.msg}`),
            );
            reject(new Error(`no event within 30 s; warnings: ${JSON.stringify(warnings.slice(-20))}`));
          }, 30_000),
        ),
      ]);
      expect(event).toEqual({
        data: { issueChanged: { kind: 'CREATED', issueId: (created as any).body.id } },
      });
    } finally {
      live.close();
    }
  });

  test("SSE subscriptions opened before and after a failover of the live channel's master receive a change written through another instance", async () => {
    const channel = `org:${revokable.orgId}`;
    const master = await redis.masterOf(channel);
    const auth = { authorization: `Bearer ${subscriberToken}` };
    const query = 'subscription($p: ID) { issueChanged(projectId: $p) { kind issueId } }';
    const before = await subscribe(`${direct(0)}/api/graphql`, auth, query, { p: projectId });
    let after: Awaited<ReturnType<typeof subscribe>> | undefined;
    try {
      expect(before.status).toBe(200);
      await listening(channel, 1);
      await redis.kill(master);
      await redis.settled();
      after = await subscribe(`${direct(1)}/api/graphql`, auth, query, { p: projectId });
      expect(after.status).toBe(200);
      // Instance 0 subscribed again on a node still up (its own had died, or not); instance 1 subscribed.
      await listening(channel, 2);
      const created = await send(`${direct(2)}/api/issues`, createInit(subscriberToken, randomUUID()));
      expect((created as any).status).toBe(201);
      const expected = { data: { issueChanged: { kind: 'CREATED', issueId: (created as any).body.id } } };
      expect(await within(30_000, before.next(), 'the subscription opened before the failover')).toEqual(expected);
      expect(await within(30_000, after.next(), 'the subscription opened after the failover')).toEqual(expected);
      figures.sseAcrossFailover = { killedMaster: master };
    } finally {
      before.close();
      after?.close();
      // The killed node rejoins as a replica: the next test fails over a shard that has one.
      await redis.restart(master);
      await redis.settled();
    }
  });

  // Last: the cluster runs on with a promoted replica and no spare for that shard.
  test("a token's bucket across a Redis master failover: within the bound docs/limits.md states, and full again after", async () => {
    const auth = { headers: { authorization: `Bearer ${failoverToken}` } };
    const master = await redis.masterOf(`rl:{${credentialSubject(hashToken(failoverToken))}}:global`);
    let sent = 0;
    const statuses: number[] = [];
    const spread = async (count: number) => {
      const until = sent + count;
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          while (sent < until) {
            const n = sent++;
            const answer = await send(`${direct(n % 3)}/api/projects`, auth);
            statuses.push('status' in answer ? answer.status : 0);
          }
        }),
      );
    };
    await spread(300);
    await redis.settled(); // the replica has caught up with the 300 before its master dies
    await redis.kill(master);
    // Requests go on through the failover (node timeout 1 s, then an election).
    await spread(700);
    await redis.settled();
    const ok = statuses.filter((s) => s === 200).length;
    const limited = statuses.filter((s) => s === 429).length;
    // docs/limits.md: each instance admits at most the limit per window whatever Redis does (N x
    // the limit for N instances), and a switch never starts a fresh bucket.
    expect(ok + limited).toBe(1000);
    expect(ok).toBeGreaterThanOrEqual(600);
    expect(ok).toBeLessThanOrEqual(3 * 600);
    // After the failover the bucket, kept by the promoted replica, is full on every instance.
    for (let i = 0; i < 3; i++) expect(await send(`${direct(i)}/api/projects`, auth)).toMatchObject({ status: 429 });
    figures.bucketAcrossFailover = { sent: 1000, ok, limited, killedMaster: master };
  });
});
