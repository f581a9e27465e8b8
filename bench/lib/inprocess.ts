// In-process measurements on the real app (createApp + app.fetch, no socket): the SQL each
// workload sends (statement count and text), and what authentication plus rate limiting cost.
import { randomUUID } from 'node:crypto';
import { execute, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import pg from 'pg';
import { createApp } from '../../src/app.js';
import { Headers } from '../../src/http/fetch-api.js';
import { AuthError } from '../../src/auth/auth-error.js';
import { authenticate, presentedCredentials, type AuthDeps } from '../../src/auth/authenticate.js';
import { SigningKeys } from '../../src/auth/oauth/signing-keys.js';
import { localEpoch, RedisEpoch, type CredentialEpoch } from '../../src/auth/credential-epoch.js';
import { PatCache } from '../../src/auth/pat-cache.js';
import { hashToken } from '../../src/auth/pat-token.js';
import { testConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { directSql, type SqlStatement } from '../../src/db/direct-sql.js';
import type { Context } from '../../src/context.js';
import { IssueJson } from '../../src/schema/issues/representation.js';
import { UserJson } from '../../src/schema/people/representation.js';
import { createRestRouter } from '../../src/rest/router.js';
import { listIssues } from '../../src/schema/issues/operations.js';
import { getMe } from '../../src/schema/people/user.js';
import { schema } from '../../src/schema/index.js';
import { credentialSubject, RateLimiter } from '../../src/limits/limiter.js';
import { rateLimitSubject } from '../../src/pipeline/rate-limit.js';
import { MemoryStore } from '../../src/limits/memory-store.js';
import { RedisStore } from '../../src/limits/redis-store.js';
import { createLogger } from '../../src/logger.js';
import { allTokens, type Plan } from './dataset.js';
import { createNoAuthApp, fixedPrincipal } from './noauth.js';
import { openLoggedPostgres } from './sql-log.js';
import {
  CREATE_ISSUE_SQL,
  createIssueArgs,
  ISSUES_PAGE_SQL,
  NESTED_TREE_SQL,
  PAT_LOOKUP_SQL,
  USER_SQL,
} from './baseline-sql.js';
import { NESTED_QUERY, noAuthUser, workloads, type BenchRequest, type WorkloadId } from './workloads.js';

export interface SqlProfile {
  /** Statements per request through the driver adapter (what src/db/query-counter.ts counts). */
  statements_per_request: number;
  /** Plus the BEGIN the adapter sends itself inside startTransaction. */
  statements_per_request_with_begin: number;
  /** The statements of one request, in order, with their arguments. */
  sql: string[];
  args: unknown[][];
  status: number;
}

const BASE = 'http://localhost:4000';
const toRequest = (r: BenchRequest) =>
  new Request(`${BASE}${r.path}`, { method: r.method, headers: r.headers, body: r.body ?? null });

/**
 * Runs `n` requests of each workload through app.fetch over a logged PostgreSQL adapter and
 * reads the statement counter before and after. Every key is used once first, so the
 * once-a-minute last_used_at update (fire and forget) does not land in the counted requests.
 */
export async function captureSql(
  url: string,
  plan: Plan,
  ids: WorkloadId[],
  n = 20,
): Promise<Record<string, SqlProfile>> {
  const { db, log } = await openLoggedPostgres(url);
  const config = testConfig({ databaseUrl: url, logLevel: 'silent' });
  const app = await createApp(config, { db });
  const logger = createLogger('silent');
  const user = noAuthUser(plan);
  const noauth = createNoAuthApp(config, db, logger, await fixedPrincipal(db, user.id, plan.orgId));
  const all = workloads(plan);
  const out: Record<string, SqlProfile> = {};
  try {
    await touchAllKeys(db, plan);
    for (const id of ids) {
      const w = all[id];
      const send = (r: BenchRequest) =>
        id === 'rest_read_noauth' ? noauth.fetch(toRequest(r)) : app.fetch(toRequest(r));
      // One request alone, for its SQL text.
      const startIndex = log.statements.length;
      const countBefore = log.count;
      const first = await send(w.request(100_000));
      await first.arrayBuffer();
      await new Promise((r) => setTimeout(r, 20));
      const sql = log.statements.slice(startIndex);
      const args = log.args
        .slice(startIndex)
        .map((a) => a.map((v) => (v instanceof Uint8Array ? `<${v.length} bytes>` : v)));
      void countBefore;
      const before = { count: log.count, tx: log.txControl };
      for (let i = 0; i < n; i++) {
        const response = await send(w.request(100_001 + i));
        await response.arrayBuffer();
        if (response.status >= 300) throw new Error(`${id}: status ${response.status}`);
      }
      await new Promise((r) => setTimeout(r, 20));
      const count = (log.count - before.count) / n;
      out[id] = {
        statements_per_request: count,
        statements_per_request_with_begin: count + (log.txControl - before.tx) / n,
        sql,
        args,
        status: first.status,
      };
    }
  } finally {
    await noauth.close();
    await app.close();
    await db.close();
  }
  return out;
}

/** Marks every key used just now, so the once-a-minute last_used_at write stays out of the measurements. */
async function touchAllKeys(db: Database, plan: Plan) {
  await db.prisma.apiKey.updateMany({ where: { orgId: plan.orgId }, data: { lastUsedAt: new Date() } });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function summary(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50_us: +percentile(sorted, 50).toFixed(1),
    p99_us: +percentile(sorted, 99).toFixed(1),
    mean_us: +(sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(1),
  };
}

async function timed<T>(fn: () => Promise<T>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1000;
}

/** One request's worth of what src/app.ts does before routing, with a given limiter, cache and epoch. */
interface AuthSetup {
  limiter: RateLimiter;
  cache: PatCache | null;
  epoch: CredentialEpoch;
}

/** How long the measured path runs before it is timed (see timeAuth). */
const WARM_AUTH_MS = 2_000;

/** Sequential timed calls of credentials + epoch read + admission + authenticate(), and the CPU per call. */
async function timeAuth(
  deps: AuthDeps,
  config: Config,
  setup: AuthSetup,
  headersFor: (i: number) => Headers,
  iterations: number,
  tokenCount: number,
) {
  const call = async (i: number) => {
    const credentials = presentedCredentials(config, headersFor(i));
    // As src/app.ts: the epoch read starts before the admission, so over Redis they share a round trip.
    const patEpoch = setup.cache ? setup.epoch.read() : null;
    // As src/app.ts: the token's SHA-256 made once, for the bucket and for the lookup.
    const hash = hashToken(credentials.token as string);
    const admission = await setup.limiter.admit(credentialSubject(hash));
    if (!admission.allowed) throw new Error('rate limited during the auth measurement');
    const principal = await authenticate(
      { ...deps, patCache: setup.cache, patEpoch, tokenHash: () => hash },
      credentials,
    );
    if (principal instanceof AuthError || principal.kind !== 'user')
      throw new Error('authentication failed during the measurement');
  };
  // Warm-up: pool connections, every key's last_used_at fresh (no write in the loop), and every
  // key in the cache (when there is one), as on a server that has seen its clients; then the
  // path measured, for at least as many calls as are measured and at least WARM_AUTH_MS, so that
  // it is measured as a running server runs it, optimised (the fill runs the other path, the
  // lookup: 5,000 calls after it, the cache hit's p50 was still 22-28 µs; after 2 s of calls,
  // 15-16 µs).
  for (let i = 0; i < tokenCount; i++) await call(i);
  const warmUntil = Date.now() + WARM_AUTH_MS;
  for (let i = 0; i < iterations || Date.now() < warmUntil; i++) await call(i);
  await new Promise((r) => setTimeout(r, 200));
  const samples: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < iterations; i++) samples.push(await timed(() => call(i)));
  const cpu = process.cpuUsage(cpuStart);
  return { ...summary(samples), node_cpu_per_call_us: +((cpu.user + cpu.system) / iterations).toFixed(1) };
}

/**
 * What src/app.ts does per request before any route runs: read the credentials, start the
 * credential epoch read, derive the rate-limit subject (SHA-256 of the token), admit it, and
 * authenticate the PAT. Timed sequentially with real keys against the bench database in three
 * configurations: the default single instance (PAT cache hit, memory limiter, process epoch),
 * several instances (cache hit, Redis limiter and Redis epoch over one connection; skipped when
 * BENCH_REDIS_URL / redis://127.0.0.1:6379 does not answer), and PAT_CACHE=off (one SQL lookup
 * per call); next to the bare SQL lookup over `pg` and the CPU this process spends per call.
 */
export async function measureAuthCost(url: string, plan: Plan, iterations = 4000) {
  const { db } = await openLoggedPostgres(url);
  const config = testConfig({ databaseUrl: url, logLevel: 'silent' });
  const keys = await SigningKeys.open(db.prisma);
  const deps: AuthDeps = { db: db.prisma, keys, config };
  const raw = new pg.Pool({ connectionString: url, max: 2 });
  const tokens = allTokens(plan);
  // The headers as a request reaches the app: @whatwg-node's Headers over the object Node's parser
  // made (src/http/node-server.ts), not Node's global (undici) Headers, whose constructor alone
  // costs several microseconds that no request of the server pays.
  const headersFor = (i: number) => new Headers({ authorization: `Bearer ${tokens[i % tokens.length]}` });
  const memory = new RateLimiter(new MemoryStore());
  const prefix = `bench:${randomUUID()}:`;
  const redisStore = new RedisStore(process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379', { prefix });
  try {
    const cached = await timeAuth(
      deps,
      config,
      { limiter: memory, cache: new PatCache(), epoch: localEpoch },
      headersFor,
      iterations,
      tokens.length,
    );
    let cachedRedis: Awaited<ReturnType<typeof timeAuth>> | null = null;
    let limitOnlyRedis: ReturnType<typeof summary> | null = null;
    if (await redisStore.ready()) {
      const epoch = new RedisEpoch(redisStore.redis, { key: `${prefix}cred-epoch` });
      await epoch.bump();
      const redisLimiter = new RateLimiter(redisStore);
      cachedRedis = await timeAuth(
        deps,
        config,
        { limiter: redisLimiter, cache: new PatCache(), epoch },
        headersFor,
        iterations,
        tokens.length,
      );
      // The Redis admission alone (fresh buckets): what the epoch read is pipelined with.
      const samples: number[] = [];
      for (let i = 0; i < iterations; i++)
        samples.push(
          await timed(() => redisLimiter.admit(rateLimitSubject(`${tokens[i % tokens.length]!}:alone`, '127.0.0.1'))),
        );
      limitOnlyRedis = summary(samples);
      const left = await redisStore.redis.keys(`${prefix}*`);
      for (let i = 0; i < left.length; i += 500) await redisStore.redis.del(...left.slice(i, i + 500));
    }
    const uncachedLimiter = new RateLimiter(new MemoryStore());
    const uncached = await timeAuth(
      deps,
      config,
      { limiter: uncachedLimiter, cache: null, epoch: localEpoch },
      headersFor,
      iterations,
      tokens.length,
    );
    await uncachedLimiter.close();
    const authOnly: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const credentials = presentedCredentials(config, headersFor(i));
      authOnly.push(await timed(() => authenticate(deps, credentials)));
    }
    const limitOnly: number[] = [];
    const fresh = new RateLimiter(new MemoryStore());
    for (let i = 0; i < iterations; i++) {
      limitOnly.push(await timed(() => fresh.admit(rateLimitSubject(tokens[i % tokens.length]!, '127.0.0.1'))));
    }
    await fresh.close();
    const sqlOnly: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const hash = Buffer.from(hashToken(tokens[i % tokens.length]!));
      sqlOnly.push(await timed(() => raw.query(PAT_LOOKUP_SQL, [hash])));
    }
    const s = summary(sqlOnly);
    return {
      iterations,
      /** The default configuration (one instance, no Redis): what the ≤ 50 µs target is checked against. */
      auth_plus_rate_limit: cached,
      auth_plus_rate_limit_redis: cachedRedis,
      auth_plus_rate_limit_uncached: uncached,
      authenticate_only_uncached: summary(authOnly),
      rate_limit_only: summary(limitOnly),
      rate_limit_only_redis: limitOnlyRedis,
      bare_pat_lookup_sql_over_pg: s,
      uncached_overhead_over_bare_sql_p50_us: +(uncached.p50_us - s.p50_us).toFixed(1),
      node_cpu_per_call_us: cached.node_cpu_per_call_us,
    };
  } finally {
    await memory.close();
    await redisStore.close();
    await raw.end();
    await db.close();
  }
}

export interface LayerCost {
  /** Wall time of one sequential call (includes the database round trips). */
  p50_us: number;
  /** CPU this process spends per call: what limits throughput when the server is CPU-bound. */
  cpu_us: number;
}

/** Five batches; the median batch's CPU per call, so one GC burst or a noisy neighbour does not decide. */
async function layer(iterations: number, fn: (i: number) => Promise<unknown>): Promise<LayerCost> {
  // Warm-up: at least 30 calls and 400 ms, so JIT compilation (on helper threads, counted in
  // process CPU) is mostly done before the batches.
  const warmUntil = Date.now() + 400;
  for (let i = 0; i < 30 || Date.now() < warmUntil; i++) await fn(1_000_000 + i);
  const samples: number[] = [];
  const cpuPerBatch: number[] = [];
  const perBatch = Math.max(4, Math.ceil(iterations / 5));
  let i = 0;
  for (let batch = 0; batch < 5; batch++) {
    const cpu = process.cpuUsage();
    for (let k = 0; k < perBatch; k++, i++) {
      const start = process.hrtime.bigint();
      await fn(i);
      samples.push(Number(process.hrtime.bigint() - start) / 1000);
    }
    const used = process.cpuUsage(cpu);
    cpuPerBatch.push((used.user + used.system) / perBatch);
  }
  cpuPerBatch.sort((a, b) => a - b);
  return { p50_us: summary(samples).p50_us, cpu_us: +cpuPerBatch[2]!.toFixed(1) };
}

/**
 * Where a request's time goes, layer by layer, measured in this process on the same database:
 * the raw pg query (the baseline's work without HTTP), the same data through Prisma (which the app
 * does not use on these paths: for comparison) and through the schema operation over DirectSql,
 * the REST handler (the route calling the operation, JSON), the handler behind the router (no
 * auth), and the whole app.fetch (rate limit + authentication + routing). Sequential calls.
 */
export async function layerCosts(url: string, plan: Plan, scale = 1) {
  const { db } = await openLoggedPostgres(url);
  const config = testConfig({ databaseUrl: url, logLevel: 'silent' });
  const app = await createApp(config, { db });
  const logger = createLogger('silent');
  const user = noAuthUser(plan);
  const principal = await fixedPrincipal(db, user.id, plan.orgId);
  const noauth = createNoAuthApp(config, db, logger, principal);
  const raw = new pg.Pool({ connectionString: url, max: 2 });
  const w = workloads(plan);
  const ctx = (): Context => ({
    principal,
    prisma: db.prisma,
    config,
    clientIp: '127.0.0.1',
    limiter: app.limiter,
    rateLimits: [],
    credentialEpoch: app.credentialEpoch,
  });
  const rest = createRestRouter(app.logger);
  const big = [...plan.projects].sort((a, b) => b.total - a.total)[0]!;
  const n = (k: number) => Math.max(20, Math.round(k * scale));
  await touchAllKeys(db, plan);
  const body = async (r: Response) => {
    await r.arrayBuffer();
    if (r.status >= 300) throw new Error(`status ${r.status}`);
  };
  try {
    const read = w.rest_read.request(0);
    const readUrl = `${BASE}${read.path}`;
    const rest_read = {
      raw_pg_query_and_json: await layer(n(400), async () => {
        const { rows } = await raw.query(ISSUES_PAGE_SQL, [plan.orgId, big.id, 101]);
        JSON.stringify(
          rows.slice(0, 100).map((r) => ({
            ...r,
            key: `${r.project.key}-${r.number}`,
            createdAt: r.createdAt.toISOString(),
            updatedAt: r.updatedAt.toISOString(),
          })),
        );
      }),
      prisma_findMany: await layer(n(400), () =>
        db.prisma.issue.findMany({
          where: { orgId: plan.orgId, projectId: big.id },
          orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
          take: 101,
          include: { project: { select: { key: true } } },
        }),
      ),
      direct_sql: await layer(n(400), () =>
        listIssues.run(ctx(), { projectId: big.id, first: 100 }, { select: IssueJson.select }),
      ),
      rest_handler_operation: await layer(n(300), async () => body(await rest.fetch(new Request(readUrl), ctx()))),
      router_no_auth: await layer(n(300), async () => body(await noauth.fetch(new Request(readUrl)))),
      full_app_fetch: await layer(n(300), async (i) => body(await app.fetch(toRequest(w.rest_read.request(i))))),
    };
    const tree = (await captureSql(url, plan, ['graphql_nested'], 1)).graphql_nested!;
    const treeSql = tree.sql[1]!;
    const document = parse(NESTED_QUERY);
    const compiledTree = compileQuery(schema, document);
    if (!isCompiledQuery(compiledTree))
      throw new Error(`graphql-jit cannot compile the nested query: ${compiledTree.errors?.[0]?.message}`);
    const graphql_nested = {
      raw_pg_hand_written_sql_and_json: await layer(n(150), async () => {
        const { rows } = await raw.query(NESTED_TREE_SQL, [user.id, plan.orgId]);
        JSON.stringify(rows);
      }),
      prisma_generated_sql_over_raw_pg: await layer(n(60), async () => {
        // The arguments the app sent with it (they follow the query's list bounds).
        const { rows } = await raw.query(treeSql, tree.args[1]!);
        JSON.stringify(rows);
      }),
      graphql_execute_pothos_prisma: await layer(n(60), async () => {
        const result = await execute({ schema, document, contextValue: ctx() });
        if (result.errors?.length) throw result.errors[0];
        JSON.stringify(result);
      }),
      graphql_compiled_pothos_prisma: await layer(n(60), async () => {
        const result = await compiledTree.query(undefined, ctx(), {});
        if (result.errors?.length) throw result.errors[0];
        JSON.stringify(result);
      }),
      yoga_no_auth: await layer(n(60), async () => body(await noauth.fetch(toRequest(w.graphql_nested.request(0))))),
      full_app_fetch: await layer(n(60), async (i) => body(await app.fetch(toRequest(w.graphql_nested.request(i))))),
    };
    const rest_me = {
      raw_pg_query_and_json: await layer(n(800), async () => {
        const { rows } = await raw.query(USER_SQL, [user.id]);
        JSON.stringify(rows[0]);
      }),
      prisma_findUnique: await layer(n(800), () => db.prisma.user.findUniqueOrThrow({ where: { id: user.id } })),
      direct_sql: await layer(n(800), () => getMe.run(ctx(), {}, { select: UserJson.select })),
      router_no_auth: await layer(n(800), async () => body(await noauth.fetch(new Request(`${BASE}/api/me`)))),
      full_app_fetch: await layer(n(800), async (i) => body(await app.fetch(toRequest(w.rest_me.request(i))))),
    };
    // Creates go to the big projects only (never the 100-issue one).
    const create = (i: number) => w.rest_create.request(200_000 + i);
    const rest_create = {
      raw_pg_statement: await layer(n(300), async (i) => {
        const input = JSON.parse(create(i).body!) as Parameters<typeof createIssueArgs>[1];
        const args = createIssueArgs({ orgId: plan.orgId, userId: user.id, keyId: null }, input);
        const { rows } = await raw.query(CREATE_ISSUE_SQL, args);
        JSON.stringify(rows[0]);
      }),
      prisma_raw_statement: await layer(n(300), async (i) => {
        const input = JSON.parse(create(i).body!) as Parameters<typeof createIssueArgs>[1];
        const args = createIssueArgs({ orgId: plan.orgId, userId: user.id, keyId: null }, input);
        await db.prisma.$queryRawUnsafe(CREATE_ISSUE_SQL, ...args);
      }),
      direct_sql_statement: await layer(n(300), async (i) => {
        const input = JSON.parse(create(i).body!) as Parameters<typeof createIssueArgs>[1];
        const args = createIssueArgs({ orgId: plan.orgId, userId: user.id, keyId: null }, input);
        await directSql(db.prisma).rows({ text: CREATE_ISSUE_SQL, values: args as SqlStatement['values'] });
      }),
      rest_handler_operation: await layer(n(300), async (i) => {
        const r = create(i);
        return body(
          await rest.fetch(
            new Request(`${BASE}${r.path}`, { method: 'POST', headers: r.headers, body: r.body! }),
            ctx(),
          ),
        );
      }),
      full_app_fetch: await layer(n(300), async (i) => body(await app.fetch(toRequest(create(10_000 + i))))),
    };
    return { rest_read, rest_me, rest_create, graphql_nested };
  } finally {
    await raw.end();
    await noauth.close();
    await app.close();
    await db.close();
  }
}
