import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedDemo } from '../../src/cli/demo-data.js';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { dbKind } from '../support/database.js';
import { root, run, startServer } from '../support/server-process.js';
import { npmStartArgs, npmStartFlags } from '../../scripts/npm-start-args.js';

// What would run OpenTelemetry code in the service: the SDK, the exporters, the instrumentations and
// the loader hooks that wrap modules for them. The API is not among them: prom-client requires it
// when it loads (for exemplars, which the service does not enable), and with no SDK registered
// every call of it is a no-op; src/ops/tracing.ts makes none while tracing is off.
const TRACING_PACKAGES =
  /\/node_modules\/(@opentelemetry\/(?!api\/)|@prisma\/instrumentation\/|import-in-the-middle\/|require-in-the-middle\/)/;

// A process of its own, whatever the database: run once, with the embedded suites.
describe.runIf(dbKind === 'pglite')('tracing off (the service as npm start runs it)', { timeout: 240_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'wm-tracing-off-'));
  const databaseUrl = `file:${join(dir, 'db')}`;
  let token: string;
  let projectId: string;

  beforeAll(async () => {
    const db = await openDatabase(databaseUrl);
    await applyMigrations(db.adapterFactory);
    const seed = await seedDemo(db.prisma);
    const org = seed.orgs.find((o) => o.slug === 'acme')!;
    token = seed.users.find((u) => u.username === 'mark' && u.org_id === org.id)!.token;
    projectId = org.projects[0]!.id;
    await db.close();
    // Built before either starts, so that `npm start` finds dist/ current and loads no compiler.
    expect(run(process.execPath, ['scripts/build.mjs', '--if-stale'], {}).code).toBe(0);
  }, 170_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /**
   * The modules a service started by `entry` loaded (module-recorder.mjs) by the time it has
   * answered a REST read, a REST write, a GraphQL query and an MCP call; the service is stopped.
   */
  async function modulesAfterCalls(name: string, entry: string[]): Promise<string[]> {
    const moduleLog = join(dir, `${name}.txt`);
    const server = startServer(
      {
        DATABASE_URL: databaseUrl,
        MODULE_LOG: moduleLog,
        // Whatever the environment running the tests says: tracing is asked for by none of them.
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: '',
        OTEL_TRACES_EXPORTER: '',
      },
      { args: ['--import', './test/support/module-recorder.mjs', ...entry] },
    );
    try {
      const base = `http://127.0.0.1:${await server.port}`;
      const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const read = await fetch(`${base}/api/issues?project_id=${projectId}`, { headers: auth });
      expect(read.status).toBe(200);
      const created = await fetch(`${base}/api/issues`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ project_id: projectId, title: `Untraced (${name})` }),
      });
      expect(created.status).toBe(201);
      const graphql = await fetch(`${base}/api/graphql`, {
        method: 'POST',
        headers: auth,
        body: JSON.stringify({ query: '{ projects { id name } }' }),
      });
      expect(((await graphql.json()) as { errors?: unknown }).errors).toBeUndefined();
      const mcp = await fetch(`${base}/api/mcp`, {
        method: 'POST',
        headers: { ...auth, accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-06-18',
            capabilities: {},
            clientInfo: { name: 'tracing-off', version: '1' },
          },
        }),
      });
      expect(mcp.status).toBe(200);
      const access = await server.waitForLog((line) => line.msg === 'request' && line.route === '/api/graphql');
      expect(access.trace_id).toBeUndefined();
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    // Paths from the repository's root, so that the two lists compare.
    const here = `file://${root}`;
    return [...new Set(readFileSync(moduleLog, 'utf8').split('\n').filter(Boolean))].map((url) =>
      url.startsWith(here) ? url.slice(here.length).replace(/^\//, '') : url,
    );
  }

  test('the process holds no OpenTelemetry SDK, instrumentation or loader hook, and the same modules as without the tracing preload', async () => {
    const off = await modulesAfterCalls('off', npmStartArgs());
    // The recorder saw the service's own dependencies, so an empty answer below means something.
    expect(off.some((path) => path.startsWith('node_modules/@prisma/client/'))).toBe(true);
    expect(off.some((path) => path.startsWith('node_modules/graphql/'))).toBe(true);
    expect(off.filter((path) => TRACING_PACKAGES.test(path))).toEqual([]);

    // The service without the preload (what bench:tracing measures as `none`): tracing off adds
    // the preload and its switch, and `npm start`'s own scripts, nothing else; so per request it
    // runs the same code.
    const none = await modulesAfterCalls('none', [...npmStartFlags(), 'bench/start-untraced.mjs']);
    expect(off.filter((path) => !none.includes(path)).sort()).toEqual([
      'dist/ops/tracing-start.js',
      'dist/ops/tracing-switch.js',
      'scripts/build.mjs',
      'scripts/start.mjs',
    ]);
    expect(none.filter((path) => !off.includes(path))).toEqual(['bench/start-untraced.mjs']);
  });
});
