import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { run, startServer, type ServerProcess } from '../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-admin-running-'));
let server: ServerProcess | undefined;
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

// `npm start` on the embedded database holds it: the admin command cannot open it beside the
// service, and must say so with what to do instead (not PGlite's "already open" alone).
describe('the admin command while the service runs on the embedded database', { timeout: 180_000 }, () => {
  test('create-user names the database, the running process, the invitation link to use instead, and stopping the service', async () => {
    server = startServer({ DATABASE_URL: `file:${dir}`, BASE_URL: 'http://localhost:4610' });
    await server.port;
    const { code, stdout, stderr } = run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'create-user', '--email', 'ada@example.com', '--name', 'Ada', '--username', 'ada'], {
      DATABASE_URL: `file:${dir}`,
      BASE_URL: 'http://localhost:4610',
    });
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe(`The service is running on the embedded database at ${dir} (pid ${server.child.pid} on ${(await import('node:os')).hostname()}); only one process may open it, so this command cannot run beside it.`);
    expect(lines[1]).toContain('create an invitation link on your organization\'s team page (http://localhost:4610/orgs/<slug>/team, "Invite someone")');
    expect(lines[2]).toContain('Or stop the service, run this command again, then start the service.');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
