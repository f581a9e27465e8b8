import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { dbKind } from '../support/database.js';
import { root, run, runAsync, startServer, type ServerProcess } from '../support/server-process.js';

const buildIfStale = () => run(process.execPath, ['scripts/build.mjs', '--if-stale'], {}).stdout.trim();

// `npm start` runs plain JavaScript compiled from src/ (no TypeScript loader in the process):
// one process of its own, whatever the database, so once, with the embedded suites.
describe.runIf(dbKind === 'pglite')('npm start: the service compiled to dist/', { timeout: 180_000 }, () => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
  });

  test('compiles src/ to dist/ and serves from it: the API, its pages and their assets', async () => {
    server = startServer({ DATABASE_URL: 'memory://' }, { built: true });
    const base = `http://127.0.0.1:${await server.port}`;
    expect(existsSync(join(root, 'dist', 'server.js'))).toBe(true);
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/api/me`)).status).toBe(401);
    // The files beside the code (templates, the pages' scripts) came along.
    for (const page of ['/api/docs', '/login']) {
      const html = await (await fetch(`${base}${page}`, { headers: { accept: 'text/html' } })).text();
      const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      expect(assets.length).toBeGreaterThan(1);
      for (const asset of assets) expect([asset, (await fetch(`${base}${asset}`)).status]).toEqual([asset, 200]);
    }
  });

  test('builds again only when a file under src/ changed', () => {
    expect(buildIfStale()).toBe('dist/ is up to date');
    const file = join(root, 'src', 'server.ts');
    const { atime, mtime } = statSync(file);
    try {
      utimesSync(file, atime, new Date(mtime.getTime() + 1000));
      expect(buildIfStale()).toBe('dist/ built from src/');
      expect(buildIfStale()).toBe('dist/ is up to date');
    } finally {
      utimesSync(file, atime, mtime);
    }
  });

  test('builds started together (instances starting at once) leave one whole tree', async () => {
    const runs = await Promise.all([1, 2, 3].map(() => runAsync('node scripts/build.mjs', {})));
    expect(runs.map((r) => [r.code, r.stdout.trim()])).toEqual(Array(3).fill([0, 'dist/ built from src/']));
    expect(readdirSync(root).filter((name) => name.startsWith('dist'))).toEqual(['dist']);
    expect(existsSync(join(root, 'dist', 'server.js'))).toBe(true);
    expect(buildIfStale()).toBe('dist/ is up to date');
  });
});

// What `npm start` holds at its peak once the embedded database exists (a restart: no initdb, no
// migration), which a small machine must have room for.
describe.runIf(dbKind === 'pglite' && process.platform === 'linux')('npm start: memory', { timeout: 180_000 }, () => {
  let dir = '';
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("its peak after start: WebAssembly compiled by V8's baseline compiler only (npm start's --liftoff-only)", async () => {
    dir = mkdtempSync(join(tmpdir(), 'wm-start-memory-'));
    const db = await openDatabase(`file:${dir}`);
    try {
      await applyMigrations(db.adapterFactory);
    } finally {
      await db.close();
    }
    server = startServer({ DATABASE_URL: `file:${dir}` }, { built: true });
    expect((await fetch(`http://127.0.0.1:${await server.port}/readyz`)).status).toBe(200);
    // Without the flag V8 compiles PGlite's module again with its optimizing compiler within
    // seconds of opening it: the process peaked at 872 MB, against 281 MB with it (Node 24.21;
    // scripts/start.mjs). Given time for that compilation to run:
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
    const peakMiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]) / 1024;
    console.log(`npm start on an embedded database, peak resident memory: ${Math.round(peakMiB)} MiB`);
    expect(peakMiB).toBeLessThan(500);
  });
});
