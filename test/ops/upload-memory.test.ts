import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { seedDemo } from '../../src/cli/demo-data.js';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { dbKind } from '../support/database.js';
import { chunkedUpload } from '../support/socket.js';
import { startServer, type ServerProcess } from '../support/server-process.js';

/**
 * Issue 17.2, measured where it matters: the resident memory of a real server process (what a
 * container limit counts) while six 100 MB chunked uploads arrive at once, twice. Before the
 * bodies were counted as they arrived, the same load took a process from 662 to 1,548 MB and
 * kept it there.
 */

const MiB = 1024 * 1024;
const UPLOAD_BYTES = 100 * 1000 * 1000;

/** Resident set size of a process, from /proc (Linux). */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

let dir: string;
let server: ServerProcess;
let port: number;
let token: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wm-upload-'));
  const url = `file:${dir}`;
  const db = await openDatabase(url);
  try {
    await applyMigrations(db.adapterFactory);
    token = (await seedDemo(db.prisma, { password: 'correct horse battery staple' })).users.find(
      (u) => u.username === 'mark',
    )!.token;
  } finally {
    await db.close();
  }
  // As `npm start` runs it: with its V8 flags, which keep V8 from compiling PGlite's WebAssembly
  // again in the seconds after start (a transient of about 550 MB, scripts/start.mjs).
  server = startServer({ DATABASE_URL: url, MIGRATE_ON_START: 'false' }, { built: true });
  port = await server.port;
}, 180_000);
afterAll(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  rmSync(dir, { recursive: true, force: true });
});

describe.runIf(dbKind === 'pglite' && process.platform === 'linux')(
  'oversized chunked uploads against a server process',
  () => {
    test('six parallel 100 MB chunked uploads, twice: each 413 near the limit, the process stays near its baseline', {
      timeout: 300_000,
    }, async () => {
      const json = { 'content-type': 'application/json' };
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      const uploads: [string, Record<string, string>][] = [
        ['/api/issues', { ...json, authorization: `Bearer ${token}` }],
        ['/api/graphql', { ...json, authorization: `Bearer ${token}` }],
        ['/api/projects', { ...json, authorization: `Bearer ${token}`, 'idempotency-key': '"upload"' }],
        ['/oauth/token', form],
        ['/oauth/register', json],
        ['/api/orgs', { ...json, authorization: `Bearer ${token}` }],
      ];
      const pid = server.child.pid!;
      // Warm up: a small refused upload to each route loads the code the rounds below run.
      await Promise.all(uploads.map(([path, headers]) => chunkedUpload(port, path, headers, 4 * MiB)));
      const baseline = rssOf(pid);
      const rounds: { peak: number; after: number }[] = [];
      for (let round = 0; round < 2; round++) {
        let peak = rssOf(pid);
        const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 20);
        const results = await Promise.all(
          uploads.map(([path, headers]) => chunkedUpload(port, path, headers, UPLOAD_BYTES)),
        ).finally(() => clearInterval(sampler));
        for (const [i, { connection, sent }] of results.entries()) {
          expect(connection.status, uploads[i]![0]).toBe(413);
          expect(connection.isClosed).toBe(true);
          expect(sent).toBeLessThan(20 * 1000 * 1000);
        }
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        rounds.push({ peak, after: rssOf(pid) });
      }
      const mib = (bytes: number) => Math.round(bytes / MiB);
      console.log(
        `server process RSS: baseline ${mib(baseline)} MiB; ` +
          rounds
            .map(
              (r, i) => `round ${i + 1} (6 x 100 MB chunked): peak ${mib(r.peak)} MiB, 1 s later ${mib(r.after)} MiB`,
            )
            .join('; '),
      );
      for (const round of rounds) {
        // Buffered, the bodies alone would be 600 MB.
        expect((round.peak - baseline) / MiB).toBeLessThan(150);
        expect((round.after - baseline) / MiB).toBeLessThan(100);
      }
      // A second round costs no more than the first: nothing was kept.
      expect((rounds[1]!.after - rounds[0]!.after) / MiB).toBeLessThan(50);
    });
  },
);
