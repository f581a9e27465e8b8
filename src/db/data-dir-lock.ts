/**
 * One process per embedded-database directory. PGlite is a single-process database: two
 * processes writing one directory corrupt it, so the directory carries a lock, `<dir>/.lock`.
 *
 * The lock names its holder (pid, host, boot id, pid namespace, process start time), so that
 * after a crash (kill -9, power loss) the next start sees at once that the holder is dead and
 * takes the directory over, instead of waiting for an mtime to age (proper-lockfile, used before,
 * needed 10 s: long enough for a supervisor restarting quickly to hit its start limit). A live
 * holder is never displaced. Written by hand because the maintained lock packages decide
 * staleness by mtime alone, and the kernel locks that die with their process (flock, fcntl) need
 * a native addon.
 *
 * Atomicity comes from rename(2) of directories, which fails when the target is a non-empty
 * directory:
 * - acquire: the holder file is written into a private staging directory, which is then renamed
 *   to `.lock`. The lock therefore never exists without its holder file, and of two processes
 *   only one rename succeeds.
 * - take over a dead holder: `.lock` is renamed to `.lock-dead-<that holder's nonce>`, a name
 *   only that holder's lock can take. If another process took it over first, the name is taken
 *   (by the same non-empty directory), so a latecomer's rename fails instead of moving the new
 *   live lock aside; the latecomer then reads the new holder, which is alive.
 *
 * Liveness, on the holder's own machine (same host name and boot id): `process.kill(pid, 0)`,
 * then (Linux) the start time of that pid in /proc, which tells a reused pid from the holder,
 * and its state, which tells a zombie from a live process. Where the holder cannot be checked
 * (another host on a shared volume, another pid namespace, or a platform without /proc), it
 * counts as alive while it keeps its heartbeat: the holder file's mtime is refreshed every 2 s,
 * and a lock not refreshed for 10 s is stale, as with proper-lockfile.
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { threadId } from 'node:worker_threads';

/** What the lock says about its holder. Optional fields are absent where the platform has no such thing. */
export interface LockHolder {
  pid: number;
  host: string;
  /** Linux: /proc/sys/kernel/random/boot_id. A different one means the holder's machine rebooted since. */
  bootId?: string;
  /** Linux: the pid namespace, so that a pid is only checked where it means the same process. */
  pidNamespace?: string;
  /** Linux: the process start time in clock ticks after boot (/proc/<pid>/stat, field 22). */
  startTicks?: string;
  /** The worker thread that holds it (0: the main thread). */
  thread?: number;
  /** Unique per acquisition: names the lock when it is moved aside. */
  nonce: string;
  since: string;
}

const LOCK_NAME = '.lock';
const HOLDER_FILE = 'holder.json';
const HEARTBEAT_MS = 2_000;
/** A holder that cannot be checked directly is presumed dead after this long without a heartbeat. */
const HEARTBEAT_STALE_MS = 10_000;
/** Moved-aside and staging directories older than this are removed by the next acquisition. */
const LEFTOVER_MS = 60_000;

/** Nonces of the locks this process holds: a lock naming our own pid is live only if it is one of these. */
const heldHere = new Set<string>();

export class DataDirInUseError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder | null,
  ) {
    super(`${dir} is locked by a live process${holder ? ` (pid ${holder.pid} on ${holder.host})` : ''}`);
  }
}

function readOrNull(read: () => string): string | undefined {
  try {
    return read().trim() || undefined;
  } catch {
    return undefined;
  }
}

/** The fields of /proc/<pid>/stat after the command name (which may itself hold spaces and parentheses). */
function procStat(pid: number | 'self'): string[] | undefined {
  const stat = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
}

// Fields 3 (state) and 22 (starttime) of proc(5), as indexes into procStat's list, which starts at field 3.
const STATE = 0;
const START_TICKS = 22 - 3;

function currentIdentity(): Omit<LockHolder, 'nonce' | 'since'> {
  return {
    pid: process.pid,
    host: hostname(),
    bootId: readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8')),
    pidNamespace: readOrNull(() => readlinkSync('/proc/self/ns/pid')),
    startTicks: procStat('self')?.[START_TICKS],
    thread: threadId,
  };
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, and belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether the holder may still be using the directory. `heartbeatMs`: mtime of its holder file. */
function holderAlive(holder: LockHolder, heartbeatMs: number, now = Date.now()): boolean {
  const me = currentIdentity();
  const heartbeatFresh = now - heartbeatMs < HEARTBEAT_STALE_MS;
  if (holder.host !== me.host) return heartbeatFresh;
  if (holder.bootId && me.bootId && holder.bootId !== me.bootId) return false;
  // A pid of another namespace (another container on the same volume) names some other process here.
  if (holder.pidNamespace !== me.pidNamespace) return heartbeatFresh;
  if (holder.pid === process.pid) {
    // An earlier process that had our pid (pid 1 of a restarted container, say) is gone.
    if (holder.startTicks !== me.startTicks) return false;
    // This very process: another worker thread's lock is live; our own thread knows its locks.
    return holder.thread !== me.thread || heldHere.has(holder.nonce);
  }
  if (!Number.isSafeInteger(holder.pid) || holder.pid <= 0 || !processExists(holder.pid)) return false;
  const stat = holder.startTicks ? procStat(holder.pid) : undefined;
  if (stat) return stat[START_TICKS] === holder.startTicks && stat[STATE] !== 'Z' && stat[STATE] !== 'X';
  // The pid exists, but it may be a new process that reuses it: only the heartbeat can tell.
  return heartbeatFresh;
}

interface Found {
  holder: LockHolder | null;
  /** A name for this lock instance, unique to it. */
  id: string;
  heartbeatMs: number;
}

function readLock(lockPath: string): Found | null {
  const file = join(lockPath, HOLDER_FILE);
  let raw: string;
  let heartbeatMs: number;
  try {
    raw = readFileSync(file, 'utf8');
    heartbeatMs = statSync(file).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  try {
    const holder = JSON.parse(raw) as LockHolder;
    if (typeof holder.nonce === 'string' && /^[A-Za-z0-9_-]+$/.test(holder.nonce) && typeof holder.pid === 'number') {
      return { holder, id: holder.nonce, heartbeatMs };
    }
  } catch {
    // A holder file we cannot read: judged by its heartbeat alone.
  }
  return { holder: null, id: `x${createHash('sha256').update(raw).digest('hex').slice(0, 24)}`, heartbeatMs };
}

const isTaken = (error: unknown) => ['EEXIST', 'ENOTEMPTY'].includes((error as NodeJS.ErrnoException).code ?? '');
const isGone = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

function removeLeftovers(dir: string, now: number): void {
  for (const name of readdirSync(dir)) {
    if (!/^\.lock-(dead|new|free)-/.test(name)) continue;
    const path = join(dir, name);
    try {
      // ctime: when it was renamed here, which is when it stopped being a lock.
      if (now - statSync(path).ctimeMs > LEFTOVER_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by someone else meanwhile.
    }
  }
}

/**
 * Locks `dir` for this process, or throws DataDirInUseError while a live process holds it.
 * Returns the release function (also safe to skip: a dead holder is recognized at once).
 */
export function lockDataDir(dir: string): () => Promise<void> {
  const lockPath = join(dir, LOCK_NAME);
  const nonce = randomBytes(12).toString('base64url');
  const holder: LockHolder = { ...currentIdentity(), nonce, since: new Date().toISOString() };
  const staged = join(dir, `.lock-new-${nonce}`);
  mkdirSync(staged, { recursive: true });
  writeFileSync(join(staged, HOLDER_FILE), `${JSON.stringify(holder)}\n`);
  try {
    // A few rounds: each failed one means another process changed the lock meanwhile.
    for (let round = 0; round < 5; round++) {
      try {
        renameSync(staged, lockPath);
        heldHere.add(nonce);
        removeLeftovers(dir, Date.now());
        return startHeld(lockPath, nonce);
      } catch (error) {
        if (!isTaken(error)) throw error;
      }
      const found = readLock(lockPath);
      if (!found) continue; // released meanwhile
      const alive = found.holder
        ? holderAlive(found.holder, found.heartbeatMs)
        : Date.now() - found.heartbeatMs < HEARTBEAT_STALE_MS;
      if (alive) throw new DataDirInUseError(dir, found.holder);
      const grave = join(dir, `.lock-dead-${found.id}`);
      try {
        renameSync(lockPath, grave);
      } catch (error) {
        // Gone (released), or the grave is taken: someone else moved this holder aside first.
        if (isGone(error) || isTaken(error)) continue;
        throw error;
      }
      // Belt and braces: if what was moved is not the lock judged dead (its grave was cleaned
      // up before this late rename), put the live lock back.
      if (readLock(grave)?.id !== found.id) {
        try {
          renameSync(grave, lockPath);
        } catch {
          // A third process locked it meanwhile; the next round reads whoever holds it now.
        }
      }
    }
    throw new DataDirInUseError(dir, readLock(lockPath)?.holder ?? null);
  } finally {
    rmSync(staged, { recursive: true, force: true });
  }
}

function startHeld(lockPath: string, nonce: string): () => Promise<void> {
  const holderFile = join(lockPath, HOLDER_FILE);
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      utimesSync(holderFile, now, now);
    } catch {
      // Only readers that cannot check our pid use the heartbeat; nothing to do here.
    }
  }, HEARTBEAT_MS).unref();
  let released = false;
  return async () => {
    if (released) return;
    released = true;
    clearInterval(heartbeat);
    heldHere.delete(nonce);
    if (readLock(lockPath)?.id !== nonce) return; // not ours any more
    const freed = `${lockPath}-free-${nonce}`;
    renameSync(lockPath, freed);
    rmSync(freed, { recursive: true, force: true });
  };
}
