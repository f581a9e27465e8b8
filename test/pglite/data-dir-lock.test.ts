import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { DataDirInUseError, lockDataDir, type LockHolder } from '../../src/db/data-dir-lock.js';

// Issue 17.3: after a kill -9 the next process opens the embedded database at once, while a
// live holder is still refused. Processes here are real: a child opens the directory, is
// killed with SIGKILL, and another opens it straight after.

const root = mkdtempSync(join(tmpdir(), 'wm-lock-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => join(root, `db${++dirs}`);

// Opening PGlite takes seconds on a busy machine.
const SLOW = 180_000;

/**
 * A child process that holds `dir` until killed: by opening the database and writing a row, or
 * (`lockOnly`) by taking the lock alone. Resolves once it says "ready".
 */
async function holdInChild(dir: string, { lockOnly = false } = {}): Promise<ChildProcess> {
  const script = lockOnly
    ? `
    import { lockDataDir } from './src/db/data-dir-lock.ts';
    lockDataDir(${JSON.stringify(dir)});
    console.log('ready');
    setInterval(() => {}, 1000);
  `
    : `
    import { openDatabase } from './src/db/client.ts';
    import { applyMigrations } from './src/db/migrations.ts';
    const db = await openDatabase(${JSON.stringify(`file:${dir}`)});
    await applyMigrations(db.adapterFactory);
    await db.prisma.organization.create({ data: { name: 'Written before the crash', slug: 'crash-' + process.pid } });
    console.log('ready');
    setInterval(() => {}, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      if (output.includes('ready')) resolve();
    });
    child.stderr!.on('data', (chunk) => (output += chunk));
    child.once('exit', (code) => reject(new Error(`holder exited (${code}) before it was ready: ${output}`)));
  });
  return child;
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

/** Another process trying to open `dir` once: what it printed. */
function openInAnotherProcess(dir: string): string {
  const script = `
    import { openDatabase } from './src/db/client.ts';
    try { const db = await openDatabase(${JSON.stringify(`file:${dir}`)}); console.log('opened', await db.prisma.organization.count()); await db.close(); }
    catch (e) { console.log(e.name + ': ' + e.message); }
  `;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: process.cwd(),
  }).stdout;
}

describe('the embedded database after a crash', () => {
  test(
    'kill -9 of the holder: the next process opens the directory at once, with the data',
    async () => {
      const dir = newDir();
      const holder = await holdInChild(dir);
      expect(openInAnotherProcess(dir)).toContain('already open in another process');
      await killHard(holder);
      // No waiting: the lock names a process that no longer exists.
      expect(openInAnotherProcess(dir)).toContain('opened 1');
    },
    SLOW,
  );

  test(
    'kill -9, then this process opens it at once and a second process is refused while it runs',
    async () => {
      const dir = newDir();
      await killHard(await holdInChild(dir));
      const db = await openDatabase(`file:${dir}`);
      try {
        expect(await db.prisma.organization.count()).toBe(1);
        const refused = openInAnotherProcess(dir);
        expect(refused).toContain('DatabaseInUseError');
        expect(refused).toContain(`already open in another process (pid ${process.pid} on ${hostname()})`);
      } finally {
        await db.close();
      }
      expect(openInAnotherProcess(dir)).toContain('opened 1');
    },
    SLOW,
  );
});

describe('the lock judges its holder', () => {
  /** A lock left as another process would leave it, with `changes` to its holder file. */
  function leaveLock(dir: string, changes: Partial<LockHolder>, heartbeatAgeMs = 0) {
    mkdirSync(join(dir, '.lock'), { recursive: true });
    // Take the shape of a real holder file from a lock this process makes, then alter it.
    const file = join(dir, '.lock', 'holder.json');
    writeFileSync(
      file,
      JSON.stringify({ ...realHolder, nonce: `t${Math.random().toString(36).slice(2)}`, ...changes }),
    );
    const at = new Date(Date.now() - heartbeatAgeMs);
    utimesSync(file, at, at);
  }

  let realHolder: LockHolder;
  test('setup: a lock held by this process names it', async () => {
    const dir = newDir();
    const release = lockDataDir(dir);
    realHolder = JSON.parse(readFileSync(join(dir, '.lock', 'holder.json'), 'utf8'));
    await release();
    expect(realHolder.pid).toBe(process.pid);
    expect(realHolder.host).toBe(hostname());
  });

  /** Takes the lock (it was free, or its holder judged dead) and releases it. */
  const takes = async (dir: string) => {
    const release = lockDataDir(dir);
    expect(JSON.parse(readFileSync(join(dir, '.lock', 'holder.json'), 'utf8')).pid).toBe(process.pid);
    await release();
  };

  test('a reused pid (live process, other start time) is not the holder: taken over at once', async () => {
    const dir = newDir();
    leaveLock(dir, { pid: process.ppid, startTicks: '1' });
    await takes(dir);
  });

  test('a holder from before a reboot is dead', async () => {
    const dir = newDir();
    leaveLock(dir, { pid: process.ppid, bootId: 'another-boot' });
    await takes(dir);
  });

  test('a holder on another host is live while its heartbeat is fresh, dead once it is not', async () => {
    const fresh = newDir();
    leaveLock(fresh, { host: 'another-host.example' });
    expect(() => lockDataDir(fresh)).toThrow(DataDirInUseError);
    const stale = newDir();
    leaveLock(stale, { host: 'another-host.example' }, 30_000);
    await takes(stale);
  });

  test(
    'a live process with the right start time holds it, however old its heartbeat',
    async () => {
      const dir = newDir();
      const child = await holdInChild(dir, { lockOnly: true });
      try {
        const file = join(dir, '.lock', 'holder.json');
        utimesSync(file, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
        expect(() => lockDataDir(dir)).toThrow(`locked by a live process (pid ${child.pid} on ${hostname()})`);
      } finally {
        await killHard(child);
      }
      await takes(dir);
    },
    SLOW,
  );

  test('a second lock in the same process is refused; after release it is free', async () => {
    const dir = newDir();
    const release = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    await release();
    await takes(dir);
  });
});
