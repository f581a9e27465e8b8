import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';

export const dbKind = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';

async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, migrated database for one test file: in-memory PGlite, or (TEST_DB=postgres)
 * a new database on the TEST_POSTGRES_URL server, dropped on close.
 */
export async function openTestDatabase(): Promise<Database> {
  if (dbKind === 'pglite') {
    const db = await openDatabase('memory://');
    await applyMigrations(db.adapterFactory);
    return db;
  }
  const name = `wm_test_${randomUUID().replace(/-/g, '')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.TEST_POSTGRES_URL!);
  url.pathname = `/${name}`;
  const db = await openDatabase(url.href);
  await applyMigrations(db.adapterFactory);
  return {
    ...db,
    async close() {
      await db.close();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
