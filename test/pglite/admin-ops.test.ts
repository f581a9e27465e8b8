import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { createApp } from '../../src/app.js';
import { testConfig } from '../../src/config.js';
import { formPost, ORIGIN } from '../support/app.js';
import { run } from '../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-admin-ops-'));
const data = join(dir, 'data');
const databaseUrl = `file:${data}`;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const admin = (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', ...args], {
    DATABASE_URL: databaseUrl,
    BASE_URL: ORIGIN,
  });
const HINT = ' (npm run admin -- --help lists the commands and their options)\n';

// Each command is a process of its own that opens the database: seconds apiece on a busy machine.
describe('admin command line', { timeout: 180_000 }, () => {
  test('usage mistakes: one line on stderr, exit 2, nothing opened', () => {
    const cases: [string[], string][] = [
      [['revoke-key', '--id'], `Option '--id <value>' argument missing${HINT}`],
      [['frobnicate'], `Unknown command frobnicate.${HINT}`],
      [['backup'], `backup needs a file: npm run admin -- backup FILE${HINT}`],
    ];
    for (const [args, stderr] of cases) {
      const out = admin(...args);
      expect({ args, code: out.code, stderr: out.stderr, stdout: out.stdout }).toEqual({
        args,
        code: 2,
        stderr,
        stdout: '',
      });
    }
    expect(existsSync(data)).toBe(false);
    const exporting = run(process.execPath, ['--import', 'tsx', 'src/cli/export.ts', '--token'], {});
    expect(exporting).toEqual({
      code: 2,
      stdout: '',
      stderr: "Option '--token <value>' argument missing (npm run export -- --help lists the options)\n",
    });
  });

  test('create-user without --password prints a one-time link that works', async () => {
    const out = admin('create-user', '--email', 'Nina@Example.com', '--name', 'Nina', '--username', 'nina');
    expect(out.code).toBe(0);
    const created = JSON.parse(out.stdout);
    expect(created.password_link).toMatch(/^http:\/\/localhost:4000\/set-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(created).not.toHaveProperty('passwordHash');
    const again = JSON.parse(admin('password-link', '--user', 'nina').stdout);
    expect(again.password_link).not.toBe(created.password_link);

    const app = await createApp(testConfig({ databaseUrl }));
    try {
      const token = new URL(again.password_link).searchParams.get('token')!;
      expect((await app.fetch(new Request(created.password_link))).status).toBe(404); // replaced by the second
      const set = await app.fetch(
        formPost('/set-password', {
          token,
          password: 'nina chooses a passphrase',
          confirmation: 'nina chooses a passphrase',
        }),
      );
      // Post/redirect/get: the link is spent, the sign-in page is next.
      expect(set.status).toBe(303);
      expect(set.headers.get('location')).toBe('/login');
      const signIn = await app.fetch(
        formPost('/login', { email: 'nina@example.com', password: 'nina chooses a passphrase', next: '/' }),
      );
      expect(signIn.status).toBe(303);
    } finally {
      await app.close();
    }
  });

  test('backup is refused while the service holds the database, then works; restore never overwrites silently', async () => {
    const file = join(dir, 'backup.tar.gz');
    const app = await createApp(testConfig({ databaseUrl }));
    try {
      const refused = admin('backup', file);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(
        `The embedded database in ${data} is open in another process (the service?). PGlite allows one process per data directory, ` +
          'so backup cannot run beside it: stop the service, run backup again, then start it.\n',
      );
      expect(existsSync(file)).toBe(false);
    } finally {
      await app.close();
    }

    const backup = admin('backup', file);
    expect(backup.code).toBe(0);
    expect(JSON.parse(backup.stdout)).toEqual({ file, bytes: expect.any(Number) });

    expect(admin('create-org', '--name', 'After Backup', '--slug', 'after-backup').code).toBe(0);
    const refused = admin('restore', file);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `${data} already holds a database (DATABASE_URL=${databaseUrl}). Restore into an empty directory, or add --force to move the current one aside first.\n`,
    );

    const junk = join(dir, 'junk.tar.gz');
    writeFileSync(junk, 'not a backup');
    const bad = admin('restore', junk, '--force');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(new RegExp(`^${junk.replace(/[.]/g, '\\.')} is not a backup of the embedded database`));
    expect(JSON.parse(admin('list').stdout).map((o: { slug: string }) => o.slug)).toEqual(['after-backup']);

    const restored = admin('restore', file, '--force');
    expect(restored.code).toBe(0);
    const { movedAside } = JSON.parse(restored.stdout);
    expect(movedAside).toMatch(new RegExp(`^${data}\\.before-restore-\\d{14}$`));
    expect(existsSync(join(movedAside, 'PG_VERSION'))).toBe(true);
    // The state of the backup: the organization made after it is gone; the user made before it is there.
    expect(JSON.parse(admin('list').stdout)).toEqual([]);
    const app2 = await createApp(testConfig({ databaseUrl }));
    try {
      expect(await app2.db.prisma.user.count({ where: { username: 'nina' } })).toBe(1);
    } finally {
      await app2.close();
    }
  });

  test('restore of a gzip bomb stops at the unpacked-size limit, with a message naming it', () => {
    // Gzip members concatenated are one valid stream: 1 MiB on disk that unpacks to 1 GiB + 16 MiB.
    const bomb = join(dir, 'bomb.tar.gz');
    writeFileSync(bomb, Buffer.concat(Array(65).fill(gzipSync(Buffer.alloc(16 * 1024 ** 2)))));
    const target = join(dir, 'bombed');
    const out = run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'restore', bomb, '--force'], {
      DATABASE_URL: `file:${target}`,
    });
    expect({ code: out.code, stderr: out.stderr }).toEqual({
      code: 1,
      stderr: `${bomb} unpacks to more than 1 GiB, the most a restore unpacks (a gzip bomb?). A database that large restores with --max-bytes BYTES.\n`,
    });
    expect(existsSync(target)).toBe(false);
    expect(admin('restore', bomb, '--max-bytes', 'lots').stderr).toBe(
      `--max-bytes must be a whole number of bytes above 0${HINT}`,
    );
  });

  test('backup and restore of PostgreSQL are pg_dump and pg_restore', () => {
    const out = run(process.execPath, ['--import', 'tsx', 'src/cli/admin.ts', 'backup', join(dir, 'pg.tar.gz')], {
      DATABASE_URL: 'postgresql://u@127.0.0.1/wm',
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      'DATABASE_URL is PostgreSQL: back it up with pg_dump and restore with pg_restore (docs/operating.md, "Backups"). This command is for the embedded database.\n',
    );
  });
});
