import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-cli-'));
const databaseUrl = `file:${dir}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Vite puts its own BASE_URL ("/") into the test process's environment; the commands must not inherit it.
const { BASE_URL: _viteBase, ...childEnv } = process.env;

function run(script: string, ...args: string[]) {
  const out = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], {
    encoding: 'utf8',
    env: { ...childEnv, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}

// Each command is a process of its own that opens and migrates the database: seconds apiece on a busy machine.
describe('seed and admin commands', { timeout: 180_000 }, () => {
  let seed: {
    password: string;
    orgs: { id: string; name: string; slug: string; projects: { id: string; name: string; key: string }[] }[];
    users: { id: string; email: string; username: string; role: string; org_id: string; token: string }[];
  };

  test('seed --json prints the documented object: two orgs, every role in A, a user in both, one token per membership', () => {
    const out = run('src/cli/seed.ts', '--json');
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    seed = JSON.parse(out.stdout);
    expect(Object.keys(seed).sort()).toEqual(['orgs', 'password', 'users']);
    expect(seed.password.length).toBeGreaterThanOrEqual(12);
    expect(seed.orgs).toHaveLength(2);
    for (const org of seed.orgs) {
      expect(Object.keys(org).sort()).toEqual(['id', 'name', 'projects', 'slug']);
      expect(org.projects.length).toBeGreaterThan(0);
      for (const p of org.projects) expect(Object.keys(p).sort()).toEqual(['id', 'key', 'name']);
    }
    const [a, b] = seed.orgs;
    const rolesInA = seed.users
      .filter((u) => u.org_id === a!.id)
      .map((u) => u.role)
      .sort();
    expect(rolesInA).toEqual(['admin', 'manager', 'member', 'owner', 'viewer']);
    expect(seed.users.some((u) => u.org_id === b!.id)).toBe(true);
    const inBoth = seed.users.filter((u) => seed.users.some((v) => v.id === u.id && v.org_id !== u.org_id));
    expect(inBoth).toHaveLength(2);
    expect(inBoth[0]!.token).not.toBe(inBoth[1]!.token);
    for (const u of seed.users) {
      expect(Object.keys(u).sort()).toEqual(['email', 'id', 'org_id', 'role', 'token', 'username']);
      expect(u.token).toMatch(/^tok_live_[0-9A-Za-z]{32}$/);
    }
  });

  test('seeding twice is refused clearly', () => {
    const out = run('src/cli/seed.ts');
    expect(out.code).toBe(1);
    expect(out.stderr).toContain('already holds the demo organizations');
  });

  test('admin creates a user, an org, a membership and a key that works against the API', async () => {
    expect(run('src/cli/admin.ts', '--help').stdout).toContain('create-key');
    expect(
      run('src/cli/admin.ts', 'create-user', '--email', 'Zoe@Example.com', '--name', 'Zoe', '--username', 'zoe').code,
    ).toBe(0);
    expect(run('src/cli/admin.ts', 'create-org', '--name', 'Initech', '--slug', 'initech').code).toBe(0);
    expect(
      run('src/cli/admin.ts', 'add-member', '--org', 'initech', '--user', 'zoe@example.com', '--role', 'manager').code,
    ).toBe(0);
    expect(run('src/cli/admin.ts', 'create-project', '--org', 'initech', '--name', 'TPS', '--key', 'tps').code).toBe(0);
    const bad = run('src/cli/admin.ts', 'add-member', '--org', 'initech', '--user', 'zoe', '--role', 'king');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--role must be one of');
    const key = run('src/cli/admin.ts', 'create-key', '--org', 'initech', '--user', 'zoe', '--name', 'ci');
    expect(key.code).toBe(0);
    const { token } = JSON.parse(key.stdout);

    const app = await createApp(testConfig({ databaseUrl }));
    try {
      const response = await app.fetch(
        new Request('http://localhost:4000/api/me/orgs', { headers: { authorization: `Bearer ${token}` } }),
      );
      const body = await response.json();
      expect(body.orgs).toEqual([
        expect.objectContaining({
          org_slug: 'initech',
          role: 'manager',
          projects: [expect.objectContaining({ key: 'TPS' })],
        }),
      ]);
      const seeded = seed.users[0]!;
      expect(
        (
          await app.fetch(
            new Request('http://localhost:4000/api/me', { headers: { authorization: `Bearer ${seeded.token}` } }),
          )
        ).status,
      ).toBe(200);
    } finally {
      await app.close();
    }
  });

  test("admin create-project obeys the API rules: an invalid key is refused with the API's own message", async () => {
    const cli = run('src/cli/admin.ts', 'create-project', '--org', 'initech', '--name', 'Bad', '--key', ' 1X');
    expect(cli.code).toBe(2);
    const app = await createApp(testConfig({ databaseUrl }));
    try {
      const owner = seed.users.find((u) => u.role === 'owner')!;
      const response = await app.fetch(
        new Request('http://localhost:4000/api/projects', {
          method: 'POST',
          headers: { authorization: `Bearer ${owner.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'Bad', key: ' 1X' }),
        }),
      );
      expect(response.status).toBe(400);
      const { errors } = (await response.json()) as { errors: { field: string; message: string }[] };
      expect(errors).toEqual([{ field: 'key', message: 'must be 2 to 10 letters or digits, starting with a letter' }]);
      expect(cli.stderr.trim()).toBe(`key: ${errors[0]!.message}`);
      expect(await app.db.prisma.project.count({ where: { name: 'Bad' } })).toBe(0);
    } finally {
      await app.close();
    }
  });
});
