import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { seedDemo } from '../src/cli/demo-data.js';
import { testConfig } from '../src/config.js';
import { openDatabase, type Database } from '../src/db/client.js';
import { applyMigrations } from '../src/db/migrations.js';
import { sealSecret } from '../src/webhooks/secret-box.js';
import { newSigningSecret } from '../src/webhooks/signing.js';
import { dbKind } from './support/database.js';
import { startServer, type ServerProcess } from './support/server-process.js';
import { WebhookReceiver } from './support/webhook-receiver.js';

const SECRET_KEY = 'instances test key for sealing webhook secrets';
const cleanups: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: process.env.TEST_POSTGRES_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A database URL of its own: a new PostgreSQL database, or a PGlite directory. */
async function freshUrl(): Promise<string> {
  if (dbKind === 'postgres') {
    const name = `wm_hooks_${randomUUID().replace(/-/g, '')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    cleanups.push(() => adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    const url = new URL(process.env.TEST_POSTGRES_URL!);
    url.pathname = `/${name}`;
    return url.href;
  }
  const dir = mkdtempSync(join(tmpdir(), 'wm-hooks-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return `file:${dir}`;
}

/** Migrates and seeds, and adds a webhook for every event to `url`; returns the signing secret and a token. */
async function prepare(db: Database, url: string) {
  await applyMigrations(db.adapterFactory);
  const seed = await seedDemo(db.prisma);
  const org = seed.orgs.find((o) => o.slug === 'acme')!;
  const secret = newSigningSecret();
  await db.prisma.webhook.create({
    data: { orgId: org.id, url, events: ['*'], secret: sealSecret(secret, SECRET_KEY) },
  });
  const token = seed.users.find((u) => u.username === 'mark' && u.org_id === org.id)!.token;
  return { secret, token, projectId: org.projects[0]!.id };
}

describe('delivery across instances and crashes', { timeout: 120_000 }, () => {
  test('two instances on one database deliver each event exactly once', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    cleanups.push(() => receiver.close());
    const databaseUrl = await freshUrl();
    // PostgreSQL: two connections pools, as two processes have. PGlite: one database, two workers in its one process.
    const first = await openDatabase(databaseUrl);
    const second = dbKind === 'postgres' ? await openDatabase(databaseUrl) : first;
    const { secret, token, projectId } = await prepare(first, url);
    receiver.secrets = [secret];
    const config = testConfig({
      webhooks: { allowPrivateNetworks: true, secretKey: SECRET_KEY, worker: true, leaseSeconds: 60 },
    });
    const apps: App[] = [await createApp(config, { db: first }), await createApp(config, { db: second })];
    cleanups.push(async () => {
      for (const app of apps) await app.close();
      await first.close();
      if (second !== first) await second.close();
    });
    const N = 40;
    // Writes through both instances, concurrently: each commit wakes its own worker, and both poll.
    await Promise.all(
      Array.from({ length: N }, (_, i) =>
        apps[i % 2]!.fetch(
          new Request(`${config.baseUrl}/api/issues`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            body: JSON.stringify({ project_id: projectId, title: `parallel ${i}` }),
          }),
        ).then((r) => expect(r.status).toBe(201)),
      ),
    );
    await receiver.waitFor(N);
    await new Promise((r) => setTimeout(r, 2500)); // two more polls of each worker: nothing else comes
    const ids = receiver.received.map((r) => r.id);
    expect(ids).toHaveLength(N);
    expect(new Set(ids).size).toBe(N);
    expect(receiver.received.every((r) => r.verifiedWith.length === 1)).toBe(true);
    expect(await first.prisma.webhookDelivery.count({ where: { state: 'delivered' } })).toBe(N);
  });

  test('kill -9 in the middle of a delivery loses nothing: it is sent after the restart', async () => {
    const receiver = new WebhookReceiver();
    const url = await receiver.start();
    cleanups.push(() => receiver.close());
    const databaseUrl = await freshUrl();
    const db = await openDatabase(databaseUrl);
    const { secret, token, projectId } = await prepare(db, url);
    await db.close();
    receiver.secrets = [secret];
    const env = {
      DATABASE_URL: databaseUrl,
      WEBHOOKS_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOKS_SECRET_KEY: SECRET_KEY,
      WEBHOOKS_LEASE_SECONDS: '11',
      LOG_LEVEL: 'warn',
    };
    let server: ServerProcess = startServer({ ...env, LOG_LEVEL: 'info' });
    cleanups.push(() => void server.child.kill('SIGKILL'));
    const port = await server.port;

    receiver.answers = ['hang']; // the receiver takes the request and never answers
    const created = await fetch(`http://127.0.0.1:${port}/api/issues`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, title: 'Survives a crash' }),
    });
    expect(created.status).toBe(201);
    await receiver.waitFor(1);
    server.child.kill('SIGKILL');
    await server.exited;

    server = startServer({ ...env, LOG_LEVEL: 'info' });
    await server.port;
    // After the dead instance's lease (11 s) runs out, the new one sends it again.
    await receiver.waitFor(2, 30_000);
    const [lost, sent] = receiver.received;
    expect(sent!.id).toBe(lost!.id);
    expect(sent!.body).toBe(lost!.body);
    expect(sent!.verifiedWith).toEqual([secret]);
    expect(sent!.payload).toMatchObject({ type: 'issue.created', data: { title: 'Survives a crash' } });
    server.child.kill('SIGKILL');
    await server.exited;
  });
});
