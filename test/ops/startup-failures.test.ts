import { hostname } from 'node:os';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { dbKind } from '../support/database.js';
import { startServer } from '../support/server-process.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts the server as `npm start` does and returns how it ended. */
async function start(env: Record<string, string>) {
  const server = startServer(env);
  const { code } = await server.exited;
  return { code, stderr: server.stderr(), stdout: server.logs };
}

/** A port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

// Each case is a process of its own, whatever the database: run once, with the embedded suites.
describe.runIf(dbKind === 'pglite')(
  'start-up mistakes: one line naming the setting and the fix, exit 1, nothing changed',
  { timeout: 120_000 },
  () => {
    test('the port is in use: refused before the database is created or migrated', async () => {
      const taken: Server = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as { port: number };
      const data = join(dir, 'never-created');
      try {
        const out = await start({ PORT: String(port), DATABASE_URL: `file:${data}` });
        expect(out.code).toBe(1);
        expect(out.stderr).toBe(
          `PORT=${port}: 127.0.0.1:${port} is already in use by another process. Stop that process, or set PORT to a free port.\n`,
        );
        expect(existsSync(data)).toBe(false);
      } finally {
        taken.close();
      }
    });

    test('DATABASE_URL=file:/dev/null/x', async () => {
      const out = await start({ DATABASE_URL: 'file:/dev/null/x' });
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        'DATABASE_URL=file:/dev/null/x: cannot use /dev/null/x as the data directory (ENOTDIR: a part of the path is a file, not a directory). ' +
          'Point DATABASE_URL at a writable directory (file:./data), or at PostgreSQL.\n',
      );
    });

    test('a data directory another process holds', async () => {
      const data = join(dir, 'held');
      const holder = await openDatabase(`file:${data}`);
      try {
        const out = await start({ DATABASE_URL: `file:${data}` });
        expect(out.code).toBe(1);
        expect(out.stderr).toBe(
          `The embedded database in ${data} is already open in another process (pid ${process.pid} on ${hostname()}). PGlite allows one process per data directory: ` +
            'stop the other process, or point DATABASE_URL at another directory or at PostgreSQL.\n',
        );
      } finally {
        await holder.close();
      }
    });

    test('PostgreSQL not running at the address given', async () => {
      const port = await freePort();
      const out = await start({ DATABASE_URL: `postgresql://wm:secret@127.0.0.1:${port}/wm` });
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        `DATABASE_URL: cannot reach PostgreSQL at 127.0.0.1:${port} (ECONNREFUSED). Start PostgreSQL there, or fix the host and port in DATABASE_URL.\n`,
      );
      expect(out.stderr).not.toContain('secret');
    });

    test('REDIS_URL set and Redis not answering', async () => {
      const port = await freePort();
      const out = await start({ DATABASE_URL: 'memory://', REDIS_URL: `redis://127.0.0.1:${port}` });
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        `REDIS_URL: cannot reach Redis at 127.0.0.1:${port} (ECONNREFUSED). Start Redis there, fix REDIS_URL, or unset it to keep rate limits in this process (one instance only).\n`,
      );
    });

    test('REDIS_URL naming a Redis Cluster none of whose nodes answers', async () => {
      const [first, second] = [await freePort(), await freePort()];
      const nodes = `127.0.0.1:${first},127.0.0.1:${second}`;
      const out = await start({ DATABASE_URL: 'memory://', REDIS_URL: `redis+cluster://wm:secret@${nodes}` });
      expect(out.code).toBe(1);
      expect(out.stderr).toMatch(
        new RegExp(
          `^REDIS_URL: cannot reach Redis at ${nodes} \\(None of startup nodes is available\\)\\. Start Redis there, fix REDIS_URL, or unset it`,
        ),
      );
      expect(out.stderr).not.toContain('secret');
    });

    test('an invalid setting', async () => {
      const out = await start({ DATABASE_URL: 'memory://', METRICS_TOKEN: 'short' });
      expect(out.code).toBe(1);
      expect(out.stderr).toBe(
        'Invalid configuration:\n  - METRICS_TOKEN: must be at least 32 characters (openssl rand -hex 32)\n',
      );
    });
  },
);

const postgresUrl = process.env.TEST_POSTGRES_URL;

describe.runIf(dbKind === 'pglite' && postgresUrl)('start-up mistakes on PostgreSQL', { timeout: 120_000 }, () => {
  const suffix = Math.random().toString(36).slice(2, 10);
  const database = `wm_startup_${suffix}`;
  const role = `wm_startup_${suffix}`;
  const admin = async (sql: string, db?: string) => {
    const url = new URL(postgresUrl!);
    if (db) url.pathname = `/${db}`;
    const client = new pg.Client({ connectionString: url.href });
    await client.connect();
    try {
      return (await client.query(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const urlFor = (db: string, user?: string) => {
    const url = new URL(postgresUrl!);
    url.pathname = `/${db}`;
    if (user) url.username = user;
    return url.href;
  };
  const tables = async () =>
    (await admin(`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`, database))[0].n as number;

  beforeAll(async () => {
    await admin(`CREATE DATABASE ${database}`);
    await admin(`CREATE ROLE ${role} LOGIN`);
    // PostgreSQL 15 and later: only the database owner may create in schema public; say so for older servers too.
    await admin(`REVOKE CREATE ON SCHEMA public FROM PUBLIC`, database);
  });
  afterAll(async () => {
    await admin(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin(`DROP ROLE IF EXISTS ${role}`);
  });

  test('the database does not exist', async () => {
    const out = await start({ DATABASE_URL: urlFor(`${database}_missing`) });
    const where = `${new URL(postgresUrl!).hostname}:${new URL(postgresUrl!).port || '5432'}`;
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      `DATABASE_URL: PostgreSQL at ${where} has no database "${database}_missing". Create it (createdb ${database}_missing), or name an existing database in DATABASE_URL.\n`,
    );
  });

  test('a user that cannot create tables, with migrations pending: nothing is created', async () => {
    const out = await start({ DATABASE_URL: urlFor(database, role) });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      new RegExp(
        `^DATABASE_URL: user "${role}" cannot create tables in schema "public" of database "${database}", and \\d+ migrations are pending\\. ` +
          `Grant it \\(GRANT CREATE ON SCHEMA public TO "${role}"\\), or apply them once as the owner \\(npm run db:migrate\\), then start again\\.\\n$`,
      ),
    );
    expect(await tables()).toBe(0);
  });

  test('MIGRATE_ON_START=false with migrations pending', async () => {
    const out = await start({ DATABASE_URL: urlFor(database), MIGRATE_ON_START: 'false' });
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(
      /^MIGRATE_ON_START=false, but \d+ migrations are not applied to the database in DATABASE_URL \(from \d+_init\)\. Run npm run db:migrate, or set MIGRATE_ON_START=true, then start again\.\n$/,
    );
    expect(await tables()).toBe(0);
  });

  test('MIGRATION_DATABASE_URL not answering: named in the message, and nothing is created', async () => {
    const port = await freePort();
    const out = await start({
      DATABASE_URL: urlFor(database, role),
      MIGRATION_DATABASE_URL: `postgresql://wm:secret@127.0.0.1:${port}/${database}`,
    });
    expect(out.code).toBe(1);
    expect(out.stderr).toBe(
      `MIGRATION_DATABASE_URL: cannot reach PostgreSQL at 127.0.0.1:${port} (ECONNREFUSED). Start PostgreSQL there, or fix the host and port in MIGRATION_DATABASE_URL.\n`,
    );
    expect(await tables()).toBe(0);
  });

  // Last: it migrates the database the cases above need empty.
  test('DATABASE_URL whose user cannot create tables, with MIGRATION_DATABASE_URL as the owner: the owner migrates, the service serves', async () => {
    // As an operator sets it up: the owner's tables readable and writable by the service's user.
    await admin(`GRANT USAGE ON SCHEMA public TO ${role}`, database);
    await admin(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO ${role}`, database);
    await admin(`ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO ${role}`, database);
    const server = startServer({ DATABASE_URL: urlFor(database, role), MIGRATION_DATABASE_URL: urlFor(database) });
    try {
      const port = await server.port;
      expect(server.logs.some((line) => line.msg === 'applied database migrations')).toBe(true);
      expect(await tables()).toBeGreaterThan(0);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });
});
