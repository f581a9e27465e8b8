import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DEFAULT_POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

async function admin(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A fresh database on the server of `serverUrl`; returns its URL and a function that drops it. */
export async function createBenchDatabase(
  serverUrl: string,
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `wm_bench_${randomBytes(6).toString('hex')}`;
  await admin(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.href, name, drop: () => admin(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export const redactUrl = (url: string) => url.replace(/\/\/[^@/]*@/, '//***@');
