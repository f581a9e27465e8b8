import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedDemo } from '../../src/cli/demo-data.js';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { sealSecret } from '../../src/webhooks/secret-box.js';
import { newSigningSecret } from '../../src/webhooks/signing.js';
import { dbKind } from '../support/database.js';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.js';
import { startServer, type ServerProcess } from '../support/server-process.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

const SECRET_KEY = 'tracing test key for sealing webhook secrets';
const SERVER = 2; // SpanKind.SERVER in OTLP's numbering (0 unspecified, 1 internal, 2 server, 3 client)
const CLIENT = 3;

/** A W3C traceparent as a load balancer sends it: a trace id and its own span id, sampled. */
function proxyTraceparent() {
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');
  return { traceId, parentSpanId, header: `00-${traceId}-${parentSpanId}-01` };
}

const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

// Processes of their own, whatever the database: run once, with the embedded suites.
describe.runIf(dbKind === 'pglite')('traces over OTLP/HTTP (real processes)', { timeout: 180_000 }, () => {
  const otlp = new OtlpReceiver();
  const hooks = new WebhookReceiver();
  let trusted: ServerProcess;
  let untrusted: ServerProcess;
  let base: string;
  let token: string;
  let projectId: string;

  /** Waits until the receiver holds spans of `traceId` that `done` accepts (the batch processor sends every 100 ms). */
  async function spansOf(traceId: string, done: (spans: ReceivedSpan[]) => boolean): Promise<ReceivedSpan[]> {
    for (let i = 0; i < 300; i++) {
      const spans = otlp.trace(traceId);
      if (done(spans)) return spans;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return otlp.trace(traceId);
  }
  const named = (name: string) => (spans: ReceivedSpan[]) => spans.some((span) => span.name === name);
  const serverSpan = (spans: ReceivedSpan[]) => spans.find((span) => span.kind === SERVER);

  beforeAll(async () => {
    const otlpUrl = await otlp.start();
    cleanups.push(() => otlp.close());
    const hookUrl = await hooks.start();
    cleanups.push(() => hooks.close());
    const dir = mkdtempSync(join(tmpdir(), 'wm-tracing-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const db = await openDatabase(`file:${dir}`);
    await applyMigrations(db.adapterFactory);
    const seed = await seedDemo(db.prisma);
    const org = seed.orgs.find((o) => o.slug === 'acme')!;
    const secret = newSigningSecret();
    await db.prisma.webhook.create({
      data: { orgId: org.id, url: hookUrl, events: ['issue.created'], secret: sealSecret(secret, SECRET_KEY) },
    });
    token = seed.users.find((u) => u.username === 'mark' && u.org_id === org.id)!.token;
    projectId = org.projects[0]!.id;
    await db.close();
    hooks.secrets = [secret];

    const tracing = {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'workmgmt-tracing-test',
    };
    const redis: Record<string, string> = process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {};
    // The traced service as production runs it (`npm start`: compiled to dist/), and the other
    // from its sources with the same preload (`npm run dev`).
    trusted = startServer(
      {
        ...tracing,
        ...redis,
        DATABASE_URL: `file:${dir}`,
        TRUST_PROXY: 'true',
        WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOKS_SECRET_KEY: SECRET_KEY,
      },
      { built: true },
    );
    untrusted = startServer({ ...tracing, DATABASE_URL: 'memory://' });
    cleanups.push(() => void trusted.child.kill('SIGKILL'));
    cleanups.push(() => void untrusted.child.kill('SIGKILL'));
    base = `http://127.0.0.1:${await trusted.port}`;
    await untrusted.port;
  }, 170_000);

  test('REST: the proxy’s trace continues through the pipeline, the operation, its statements and Redis; the webhook delivery sends traceparent', async () => {
    const proxy = proxyTraceparent();
    const created = await fetch(`${base}/api/issues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: proxy.header },
      body: JSON.stringify({ project_id: projectId, title: 'Traced' }),
    });
    expect(created.status).toBe(201);

    const spans = await spansOf(proxy.traceId, named('operation createIssue'));
    const server = serverSpan(spans)!;
    expect(server).toMatchObject({
      name: 'POST /api/issues',
      parentSpanId: proxy.parentSpanId,
      service: 'workmgmt-tracing-test',
      attributes: { 'http.request.method': 'POST', 'http.route': '/api/issues', 'http.response.status_code': 201 },
    });
    const byName = new Map(spans.map((span) => [span.name, span]));
    for (const step of ['step rate-limit', 'step credentials', 'step body', 'dispatch rest']) {
      expect(byName.get(step)?.parentSpanId, step).toBe(server.spanId);
    }
    const operation = byName.get('operation createIssue')!;
    expect(operation.attributes).toMatchObject({ 'workmgmt.operation': 'createIssue' });
    // Its statements, as Prisma's instrumentation or DirectSql (src/db/direct-sql.ts) report them, under the operation.
    const within = (span: ReceivedSpan, ancestor: ReceivedSpan): boolean => {
      const parent = spans.find((s) => s.spanId === span.parentSpanId);
      return parent !== undefined && (parent === ancestor || within(parent, ancestor));
    };
    const statements = spans.filter((span) => 'db.query.text' in span.attributes && within(span, operation));
    expect(statements.map((span) => span.attributes['db.query.text'])).toContainEqual(
      expect.stringMatching(/INSERT INTO "?issues"?/i),
    );
    // Nothing of the delivery worker the write woke: its statements are in traces of their own.
    const worker = /lease_until|FROM "public"."webhooks"/;
    expect(spans.filter((span) => worker.test(String(span.attributes['db.query.text'])))).toEqual([]);
    if (process.env.TEST_REDIS_URL) {
      const redis = spans.filter((span) => span.scope === '@opentelemetry/instrumentation-ioredis');
      expect(redis.some((span) => within(span, byName.get('step rate-limit')!))).toBe(true);
    }
    const access = await trusted.waitForLog((line) => line.msg === 'request' && line.trace_id === proxy.traceId);
    expect(access).toMatchObject({ route: '/api/issues', status: 201 });

    // The delivery is a trace of its own, whose HTTP client span is the receiver's parent, linked
    // to the request that queued it: the span of that trace active when its event was written.
    await hooks.waitFor(1);
    const delivery = hooks.received[0];
    const traceparent = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
    expect(delivery!.headers).toMatchObject({ traceparent: expect.stringMatching(traceparent) });
    const [, deliveryTrace, clientSpanId] = traceparent.exec(String(delivery!.headers.traceparent))!;
    expect(delivery!.verifiedWith).toEqual(hooks.secrets);
    const sent = await spansOf(deliveryTrace!, (found) => found.length >= 2);
    const deliver = sent.find((span) => span.name === 'webhook deliver')!;
    expect(deliver).toMatchObject({ parentSpanId: '', attributes: { 'workmgmt.webhook.message_id': delivery!.id } });
    expect(deliver.links).toEqual([{ traceId: proxy.traceId, spanId: expect.stringMatching(/^[0-9a-f]{16}$/) }]);
    const linked = spans.find((span) => span.spanId === deliver.links[0]!.spanId)!;
    expect(linked === operation || within(linked, operation)).toBe(true);
    expect(sent.find((span) => span.spanId === clientSpanId)).toMatchObject({
      kind: CLIENT,
      parentSpanId: deliver.spanId,
      attributes: { 'http.request.method': 'POST' },
    });
  });

  test('a problem names the trace beside the request, as the access log does', async () => {
    const proxy = proxyTraceparent();
    const refused = await fetch(`${base}/api/issues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: proxy.header },
      body: JSON.stringify({ project_id: projectId }),
    });
    expect(refused.status).toBe(400);
    const problem = (await refused.json()) as Record<string, unknown>;
    expect(problem).toMatchObject({ code: 'validation_failed', trace_id: proxy.traceId });
    const access = await trusted.waitForLog((line) => line.msg === 'request' && line.trace_id === proxy.traceId);
    expect(access.request_id).toBe(problem.request_id);
    expect(serverSpan(await spansOf(proxy.traceId, (spans) => serverSpan(spans) !== undefined))).toMatchObject({
      attributes: { 'http.response.status_code': 400 },
    });
  });

  test('GraphQL: the request, GraphQL’s phases and the operation in one trace', async () => {
    const proxy = proxyTraceparent();
    const answer = await fetch(`${base}/api/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', traceparent: proxy.header },
      body: JSON.stringify({ query: '{ projects { id name } }' }),
    });
    expect(answer.status).toBe(200);
    expect(((await answer.json()) as { errors?: unknown }).errors).toBeUndefined();
    const spans = await spansOf(proxy.traceId, named('operation listProjects'));
    expect(serverSpan(spans)).toMatchObject({ name: 'POST /api/graphql', parentSpanId: proxy.parentSpanId });
    const names = spans.map((span) => span.name);
    // Parsing is cached and execution compiled (src/graphql/compiled-execution.ts): validation is what the instrumentation sees.
    expect(names).toEqual(expect.arrayContaining(['dispatch graphql', 'graphql.validate']));
    expect(spans.some((span) => span.name === 'prisma:client:db_query')).toBe(true);
  });

  test('MCP: a tool call through the official client is the request, the dispatch and the operation', async () => {
    const proxy = proxyTraceparent();
    const client = new Client({ name: 'tracing-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}`, traceparent: proxy.header } },
      }),
    );
    const result = await client.callTool({ name: 'list_projects', arguments: {} });
    await client.close();
    expect(result.isError).toBeFalsy();
    const spans = await spansOf(proxy.traceId, named('operation listProjects'));
    const operation = spans.find((span) => span.name === 'operation listProjects')!;
    const dispatch = spans.find((span) => span.spanId === operation.parentSpanId);
    expect(dispatch?.name).toBe('dispatch mcp');
    expect(spans.find((span) => span.spanId === dispatch!.parentSpanId)).toMatchObject({
      name: 'POST /api/mcp',
      kind: SERVER,
      parentSpanId: proxy.parentSpanId,
    });
  });

  test('without TRUST_PROXY a client’s traceparent is not adopted: the trace starts at the service', async () => {
    const client = proxyTraceparent();
    const url = `http://127.0.0.1:${await untrusted.port}/api/me`;
    const refused = await fetch(url, { headers: { traceparent: client.header } });
    expect(refused.status).toBe(401);
    const problem = (await refused.json()) as { trace_id: string };
    expect(problem.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(problem.trace_id).not.toBe(client.traceId);
    const spans = await spansOf(problem.trace_id, (found) => serverSpan(found) !== undefined);
    expect(serverSpan(spans)).toMatchObject({ name: 'GET /api/me', parentSpanId: '' });
    expect(otlp.trace(client.traceId)).toEqual([]);
  });
});
