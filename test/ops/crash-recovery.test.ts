import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, test } from 'vitest';
import { seedDemo } from '../../src/cli/demo-data.js';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { dbKind } from '../support/database.js';
import { startServer, type ServerProcess } from '../support/server-process.js';

/**
 * Issue 17, "a crash test in CI": concurrent writers against a real server process, kill -9 while
 * they write, a restart at once, and every write the server acknowledged (a 201) is there
 * afterwards, with issue numbers still gapless per project. On the embedded database (a data
 * directory whose holder was killed) and on PostgreSQL.
 */

const CYCLES = 3;
const WRITERS = 8;
// Writes before the kill: enough that some are in flight when it lands.
const ACKS_BEFORE_KILL = 40;

const adminUrl = process.env.TEST_POSTGRES_URL;
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A fresh database of the kind under test, migrated and seeded; its URL and the writers' tokens. */
async function freshDatabase(): Promise<{ url: string; tokens: string[]; projectIds: string[] }> {
  let url: string;
  if (dbKind === 'postgres') {
    const name = `wm_crash_${randomUUID().replace(/-/g, '')}`;
    const admin = async (sql: string) => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(sql).finally(() => client.end());
    };
    await admin(`CREATE DATABASE ${name}`);
    cleanups.push(() => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    const parsed = new URL(adminUrl!);
    parsed.pathname = `/${name}`;
    url = parsed.href;
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'wm-crash-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    url = `file:${dir}`;
  }
  const db = await openDatabase(url);
  try {
    await applyMigrations(db.adapterFactory);
    const seed = await seedDemo(db.prisma, { password: 'correct horse battery staple' });
    const acme = seed.orgs.find((o) => o.slug === 'acme')!;
    // Members and above create issues; each writer has a token of its own (its own rate-limit bucket).
    const writers = seed.users.filter((u) => u.org_id === acme.id && u.role !== 'viewer');
    return { url, tokens: writers.map((u) => u.token), projectIds: acme.projects.map((p) => p.id) };
  } finally {
    await db.close();
  }
}

interface Ack {
  id: string;
  title: string;
}

/**
 * Writers creating issues until told to stop, against whichever server `target.port` names at
 * the time (it changes at each restart); what the servers acknowledged with a 201.
 */
function startWriters(target: { port: number }, tokens: string[], projectIds: string[]) {
  const acked: Ack[] = [];
  let stop = false;
  let attempts = 0;
  let failures = 0;
  const writer = async (w: number) => {
    for (let i = 0; !stop; i++) {
      const title = `crash w${w} #${i} ${randomUUID()}`;
      attempts++;
      try {
        const response = await fetch(`http://127.0.0.1:${target.port}/api/issues`, {
          method: 'POST',
          headers: { authorization: `Bearer ${tokens[w % tokens.length]}`, 'content-type': 'application/json' },
          body: JSON.stringify({ project_id: projectIds[w % projectIds.length], title }),
        });
        const body = (await response.json()) as { id: string };
        if (response.status === 201) acked.push({ id: body.id, title });
      } catch {
        // The connection died with the server, or none is listening yet: not acknowledged, so
        // it may or may not be there.
        failures++;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  };
  const done = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
  return {
    acked,
    stats: () => ({ attempts, failures }),
    /** Resolves once `n` more writes have been acknowledged. */
    async more(n: number) {
      const goal = acked.length + n;
      while (acked.length < goal) await new Promise((resolve) => setTimeout(resolve, 10));
    },
    async stop() {
      stop = true;
      await done;
    },
  };
}

describe(`kill -9 under concurrent writes (${dbKind})`, () => {
  test(`${CYCLES} cycles: every acknowledged write survives, the restart is immediate`, {
    timeout: 600_000,
  }, async () => {
    const { url, tokens, projectIds } = await freshDatabase();
    let server: ServerProcess = startServer({ DATABASE_URL: url, MIGRATE_ON_START: 'false' });
    cleanups.push(async () => void server.child.kill('SIGKILL'));
    const target = { port: await server.port };
    const writers = startWriters(target, tokens, projectIds);
    const restartsMs: number[] = [];
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      await writers.more(ACKS_BEFORE_KILL);
      const exited = server.exited;
      server.child.kill('SIGKILL');
      expect((await exited).signal).toBe('SIGKILL');
      const killedAt = Date.now();
      // Restarted at once, as a supervisor would: the data directory of a dead holder opens straight away.
      server = startServer({ DATABASE_URL: url, MIGRATE_ON_START: 'false' });
      target.port = await server.port;
      restartsMs.push(Date.now() - killedAt);
    }
    // The last server takes writes too before the writers stop.
    await writers.more(ACKS_BEFORE_KILL);
    await writers.stop();
    const { acked } = writers;
    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);

    const db = await openDatabase(url);
    try {
      const found = await db.prisma.issue.findMany({
        where: { id: { in: acked.map((a) => a.id) } },
        select: { id: true, title: true },
      });
      const byId = new Map(found.map((row) => [row.id, row.title]));
      const missing = acked.filter((a) => byId.get(a.id) !== a.title);
      const { attempts, failures } = writers.stats();
      console.log(
        `${dbKind}: ${WRITERS} writers, ${CYCLES} kill -9 cycles: ${acked.length} writes acknowledged of ${attempts} attempts ` +
          `(${failures} refused or cut off while no server ran), ${missing.length} missing; kill to listening again: ${restartsMs.join(', ')} ms`,
      );
      expect(missing).toEqual([]);
      // The project counters survived too: every project's numbers are 1..issue_count, no gap, no repeat.
      for (const project of await db.prisma.project.findMany({
        select: { id: true, issueCount: true, issues: { select: { number: true } } },
      })) {
        const numbers = project.issues.map((i) => i.number).sort((a, b) => a - b);
        expect(numbers).toEqual(Array.from({ length: project.issueCount }, (_, i) => i + 1));
      }
    } finally {
      await db.close();
    }
  });
});
