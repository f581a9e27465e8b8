import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { MIGRATION_LOCK_KEY } from '../../src/db/migration-lock.js';
import { applyMigrations, committedMigrationNames } from '../../src/db/migrations.js';
import { dbKind } from '../support/database.js';
import { request, until } from '../support/http-client.js';
import { startServer, type ServerProcess } from '../support/server-process.js';

const adminUrl = process.env.TEST_POSTGRES_URL!;

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

function freshDatabaseUrl(name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.href;
}

describe.runIf(dbKind === 'postgres')('several instances on one PostgreSQL database', { timeout: 240_000 }, () => {
  const names: string[] = [];
  const servers: ServerProcess[] = [];
  async function freshDatabase(): Promise<string> {
    const name = `wm_multi_${randomUUID().replace(/-/g, '')}`;
    await query(adminUrl, `CREATE DATABASE ${name}`);
    names.push(name);
    return freshDatabaseUrl(name);
  }
  afterAll(async () => {
    for (const server of servers) server.child.kill('SIGKILL');
    for (const name of names) await query(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });

  test('three servers started together on a fresh database: the migrations run once, all three serve', async () => {
    const url = await freshDatabase();
    servers.push(...[1, 2, 3].map(() => startServer({ DATABASE_URL: url })));
    const ports = await Promise.all(servers.map((s) => s.port));
    for (const port of ports) {
      const ready = await request(`http://127.0.0.1:${port}/readyz`);
      expect(ready.status).toBe(200);
    }
    const committed = await committedMigrationNames();
    const rows = await query<{ migration_name: string; n: number }>(
      url,
      'SELECT migration_name, count(*)::int AS n FROM _prisma_migrations WHERE finished_at IS NOT NULL GROUP BY 1 ORDER BY 1',
    );
    expect(rows).toEqual(committed.map((name) => ({ migration_name: name, n: 1 })));
    const appliers = servers.filter((s) => s.logs.some((line) => line.msg === 'applied database migrations'));
    expect(appliers).toHaveLength(1);
    expect(appliers[0]!.logs.find((line) => line.msg === 'applied database migrations')!.applied).toEqual(committed);

    for (const server of servers) server.child.kill('SIGTERM');
    for (const server of servers) expect(await server.exited).toEqual({ code: 0, signal: null });
  });

  test('a migration run waits while another holds the migration lock, and applies nothing until it is released', async () => {
    const url = await freshDatabase();
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    const db = await openDatabase(url);
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
      let finished = false;
      const migrating = applyMigrations(db.adapterFactory).finally(() => (finished = true));
      const waiting = async () =>
        (
          await holder.query<{ n: number }>(
            `SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objid = ${MIGRATION_LOCK_KEY}`,
          )
        ).rows[0]!.n;
      // Either the run queues behind the lock, or (without one) it finishes on its own.
      await until(async () => finished || (await waiting()) === 1);
      expect(finished).toBe(false);
      expect((await holder.query(`SELECT to_regclass('_prisma_migrations') AS t`)).rows[0].t).toBeNull();
      await holder.query('COMMIT');
      expect(await migrating).toEqual(await committedMigrationNames());
    } finally {
      await holder.end();
      await db.close();
    }
  });
});
