import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { clientBaseUrl } from '../../src/cli/service-address.js';
import { run, runAsync, startServer, type ServerProcess } from '../support/server-process.js';

// `npm run export` against a real service process on a port of this suite's own (4621), found
// the ways a person points it there; and on a port where nothing listens (4629), a quick failure
// naming the address and the cause.
const PORT = '4621';
const NOTHING_THERE = 'http://127.0.0.1:4629';
const dir = mkdtempSync(join(tmpdir(), 'wm-export-'));
const databaseUrl = `file:${join(dir, 'data')}`;
let server: ServerProcess;
let token: string;

beforeAll(async () => {
  const seeded = run(process.execPath, ['--import', 'tsx', 'src/cli/seed.ts', '--json'], { DATABASE_URL: databaseUrl });
  expect(seeded.code).toBe(0);
  token = JSON.parse(seeded.stdout).users.find(
    (u: { username: string; org_id: string }) => u.username === 'olivia',
  ).token;
  server = startServer({ PORT, DATABASE_URL: databaseUrl });
  await server.port;
}, 240_000);
afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
  rmSync(dir, { recursive: true, force: true });
});

const exportWith = (args: string, env: Record<string, string>) =>
  runAsync(`${process.execPath} --import tsx src/cli/export.ts --token ${token} ${args}`, env);

/** The NDJSON an export printed, checked line by line. */
function issuesOf(stdout: string): { key: string }[] {
  const issues = stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as { key: string });
  for (const issue of issues) expect(issue.key).toMatch(/^[A-Z][A-Z0-9]+-\d+$/);
  return issues;
}

describe('npm run export finds the service', { timeout: 120_000 }, () => {
  test('where to look: --base-url, else WM_BASE_URL, else BASE_URL, else http://localhost:$PORT (port 4000), as the service defaults', () => {
    expect(clientBaseUrl(undefined, {})).toBe('http://localhost:4000');
    expect(clientBaseUrl(undefined, { PORT: '4621' })).toBe('http://localhost:4621');
    expect(clientBaseUrl(undefined, { PORT: '4621', BASE_URL: 'https://wm.example/' })).toBe('https://wm.example');
    expect(clientBaseUrl(undefined, { BASE_URL: 'https://wm.example', WM_BASE_URL: 'http://other:1' })).toBe(
      'http://other:1',
    );
    expect(clientBaseUrl('http://given:2/', { BASE_URL: 'https://wm.example', WM_BASE_URL: 'http://other:1' })).toBe(
      'http://given:2',
    );
  });

  test('with PORT alone (the default address on that port), with BASE_URL, and with WM_BASE_URL over BASE_URL: the same issues', async () => {
    await server.port;
    const byPort = await exportWith('', { PORT });
    expect(byPort.stderr).toMatch(/^exported \d+ issues from 2 projects with 1 workers/);
    expect(byPort.code).toBe(0);
    const issues = issuesOf(byPort.stdout);
    expect(issues.length).toBeGreaterThan(0);
    expect(byPort.stderr).toContain(`exported ${issues.length} issues`);

    const byBaseUrl = await exportWith('', { BASE_URL: `http://127.0.0.1:${PORT}` });
    expect(byBaseUrl.code).toBe(0);
    expect(issuesOf(byBaseUrl.stdout)).toEqual(issues);

    const byWmBaseUrl = await exportWith('', { WM_BASE_URL: `http://localhost:${PORT}/`, BASE_URL: NOTHING_THERE });
    expect(byWmBaseUrl.code).toBe(0);
    expect(issuesOf(byWmBaseUrl.stdout)).toEqual(issues);
  });

  test('nothing listening: one line naming the address and the cause, exit status 1, nothing on stdout', async () => {
    // --base-url wins over the variables, which point at the running service.
    const refused = await exportWith(`--base-url ${NOTHING_THERE}`, { BASE_URL: `http://127.0.0.1:${PORT}`, PORT });
    expect(refused).toEqual({ code: 1, stdout: '', stderr: `cannot reach ${NOTHING_THERE}: connection refused\n` });
    const notHttp = await exportWith(`--base-url localhost:${PORT}`, {});
    expect(notHttp).toEqual({
      code: 1,
      stdout: '',
      stderr: `cannot reach localhost:${PORT}: not an http or https URL\n`,
    });
  });

  test('a token the service refuses: its answer, not a retry', async () => {
    const refused = await runAsync(
      `${process.execPath} --import tsx src/cli/export.ts --token tok_live_${'a'.repeat(32)}`,
      { PORT },
    );
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toMatch(/^HTTP 401: /);
  });
});
