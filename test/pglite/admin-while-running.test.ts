import { mkdtempSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { adminSocketPath } from '../../src/cli/admin-socket.js';
import { run, startServer, type ServerProcess } from '../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-admin-running-'));
const BASE_URL = 'http://localhost:4610';
let server: ServerProcess;
let port: number;
beforeAll(async () => {
  server = startServer({ DATABASE_URL: `file:${dir}`, BASE_URL });
  port = await server.port;
}, 120_000);
afterAll(async () => {
  if (server && server.child.exitCode === null) {
    server.child.kill('SIGTERM');
    await server.exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

const admin = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], { DATABASE_URL: `file:${dir}`, BASE_URL });

// `npm start` on the embedded database holds it, and no other process may open it: the admin
// command runs inside the service, through its socket.
describe('the admin command while the service runs on the embedded database', { timeout: 180_000 }, () => {
  test('create-user works: the account is made by the running service and signs in there at once', async () => {
    const made = admin(
      'create-user',
      '--email',
      'ada@example.com',
      '--name',
      'Ada',
      '--username',
      'ada',
      '--password',
      'a long enough passphrase',
    );
    expect(made.stderr).toBe('');
    expect(made.code).toBe(0);
    expect(JSON.parse(made.stdout)).toMatchObject({ email: 'ada@example.com', username: 'ada' });
    expect(made.stdout).not.toContain('scrypt');
    const signIn = await fetch(`http://127.0.0.1:${port}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: BASE_URL, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email: 'ada@example.com', password: 'a long enough passphrase', next: '/' }),
    });
    expect(signIn.status).toBe(303);
    // A refusal is the command's usual one: the message on stderr, status 2.
    const again = admin('create-user', '--email', 'ada@example.com', '--name', 'Ada', '--username', 'ada2');
    expect(again.code).toBe(2);
    expect(again.stderr).toBe('Refused: that email is already taken.\n');
    expect(
      server.logs.some(
        (line) => line.msg === 'admin command run through the admin socket' && line.command === 'create-user',
      ),
    ).toBe(true);
  });

  test('vacuum runs inside the service: every table vacuumed, no dead row left', async () => {
    const { code, stdout, stderr } = admin('vacuum', '--all');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const { vacuumed } = JSON.parse(stdout) as { vacuumed: { table: string; dead_rows_after: number }[] };
    expect(vacuumed.map((t) => t.table)).toEqual(expect.arrayContaining(['issues', 'users', 'sessions', 'events']));
    for (const t of vacuumed) expect(t.dead_rows_after, t.table).toBe(0);
    // The command ran synchronously: the service's log line is read from its stdout afterwards.
    await expect
      .poll(() =>
        server.logs.some(
          (line) => line.msg === 'admin command run through the admin socket' && line.command === 'vacuum',
        ),
      )
      .toBe(true);
  });

  test('without the socket, the command says where the database is held, what to do instead, and never shows a stack', async () => {
    rmSync(adminSocketPath(dir), { force: true });
    const { code, stdout, stderr } = admin(
      'create-user',
      '--email',
      'bob@example.com',
      '--name',
      'Bob',
      '--username',
      'bob',
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    const lines = stderr.trim().split('\n');
    expect(lines[0]).toBe(
      `The service is running on the embedded database at ${dir} (pid ${server.child.pid} on ${hostname()}); only one process may open it, so this command cannot run beside it.`,
    );
    expect(lines[1]).toContain(
      `create an invitation link on your organization's team page (${BASE_URL}/orgs/<slug>/team, "Invite someone")`,
    );
    expect(lines[2]).toContain('Or stop the service, run this command again, then start the service.');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
