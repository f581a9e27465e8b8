import { createReadStream, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { readFile, rename, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { isPostgresUrl } from '../config.js';
import { DatabaseInUseError, lockDataDir } from './client.js';

/** A backup or restore that cannot be done as asked; the message says why and what to do. */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

/** The embedded database's directory, or a BackupError for any other DATABASE_URL. */
function dataDirectory(url: string): string {
  if (isPostgresUrl(url)) {
    throw new BackupError(
      'DATABASE_URL is PostgreSQL: back it up with pg_dump and restore with pg_restore (docs/operating.md, "Backups"). This command is for the embedded database.',
    );
  }
  if (!url.startsWith('file:'))
    throw new BackupError(`DATABASE_URL=${url} is in memory: there is nothing on disk to back up or restore.`);
  return resolve(url.slice('file:'.length));
}

/** Holds the directory's lock while `work` runs; a running service holding it is a clear refusal. */
async function whileLocked<T>(dir: string, what: string, work: () => Promise<T>): Promise<T> {
  let release: () => Promise<void>;
  try {
    release = await lockDataDir(dir);
  } catch (error) {
    if (!(error instanceof DatabaseInUseError)) throw error;
    throw new BackupError(
      `The embedded database in ${dir} is open in another process (the service?). PGlite allows one process per data directory, so ${what} cannot run beside it: stop the service, run ${what} again, then start it.`,
    );
  }
  try {
    return await work();
  } finally {
    await release();
  }
}

const isEmpty = (dir: string) => !existsSync(dir) || readdirSync(dir).every((name) => name === '.lock');

/**
 * Writes the embedded database in DATABASE_URL to `file` as PGlite's own dump (a gzipped tar of
 * its data directory, `dumpDataDir`). Written to a temporary name, then renamed, so `file` is
 * never half written. Refused while the service runs (it holds the directory).
 */
export async function backupEmbedded(url: string, file: string): Promise<{ file: string; bytes: number }> {
  const dir = dataDirectory(url);
  if (isEmpty(dir))
    throw new BackupError(`There is no embedded database in ${dir} (DATABASE_URL=${url}): nothing to back up.`);
  const target = resolve(file);
  return whileLocked(dir, 'backup', async () => {
    const pg = await PGlite.create(dir);
    try {
      const dump = await pg.dumpDataDir('gzip');
      const bytes = Buffer.from(await dump.arrayBuffer());
      const partial = `${target}.partial-${process.pid}`;
      await writeFile(partial, bytes, { flag: 'wx' });
      await rename(partial, target);
      return { file: target, bytes: bytes.length };
    } finally {
      await pg.close();
    }
  });
}

/**
 * The most a backup may unpack to, by default. PGlite unpacks a backup in memory, several copies
 * at once, so without a bound a small file that inflates to gigabytes (a gzip bomb) takes the
 * machine's memory before it fails. A database larger than this restores with --max-bytes.
 */
const RESTORE_MAX_BYTES = 1024 ** 3;

function formatBytes(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
  ] as const) {
    if (bytes >= size) return `${+(bytes / size).toFixed(1)} ${unit}`;
  }
  return `${bytes} bytes`;
}

/**
 * Unpacks `source` once, counting and dropping what it inflates to, and refuses it as soon as
 * that passes `maxBytes`: memory stays at one chunk whatever the file holds.
 */
async function checkUnpackedSize(source: string, maxBytes: number): Promise<void> {
  let bytes = 0;
  const tooLarge = new BackupError(
    `${source} unpacks to more than ${formatBytes(maxBytes)}, the most a restore unpacks (a gzip bomb?). ` +
      'A database that large restores with --max-bytes BYTES.',
  );
  const count = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? tooLarge : null);
    },
  });
  try {
    await pipeline(createReadStream(source), createGunzip(), count);
  } catch (error) {
    if (error === tooLarge) throw tooLarge;
    throw new BackupError(`${source} is not a backup of the embedded database (not gzip: ${describeFailure(error)}).`);
  }
}

/**
 * What went wrong, whatever was thrown: PGlite's file system throws Emscripten ErrnoErrors, which
 * are not Errors and carry only a number.
 */
function describeFailure(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'errno' in error) {
    return `PGlite file system error ${String(error.errno)}`;
  }
  return String(error);
}

/**
 * Loads a backup made by backupEmbedded into the directory of DATABASE_URL (PGlite's
 * `loadDataDir`). The backup is loaded and opened in a directory beside it first, and only then
 * put in place, so a bad file changes nothing. An existing database is never overwritten: it is
 * refused, or with `force` moved aside to `<dir>.before-restore-<time>`. Refused while the
 * service runs. Migrations the backup lacks are applied by the next start (or npm run db:migrate).
 * A file that unpacks to more than `maxBytes` (default RESTORE_MAX_BYTES) is refused first.
 */
export async function restoreEmbedded(
  url: string,
  file: string,
  options: { force?: boolean; now?: Date; maxBytes?: number } = {},
): Promise<{ dir: string; movedAside: string | null }> {
  const dir = dataDirectory(url);
  const source = resolve(file);
  if (!existsSync(source)) throw new BackupError(`No backup at ${source}.`);
  const occupied = !isEmpty(dir);
  if (occupied && !options.force) {
    throw new BackupError(
      `${dir} already holds a database (DATABASE_URL=${url}). Restore into an empty directory, or add --force to move the current one aside first.`,
    );
  }
  // Refused now, before the work, if the service holds the directory.
  if (existsSync(dir)) await whileLocked(dir, 'restore', async () => {});
  await checkUnpackedSize(source, options.maxBytes ?? RESTORE_MAX_BYTES);

  const staging = `${dir}.restoring-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  try {
    const pg = await PGlite.create(staging, { loadDataDir: new Blob([await readFile(source)]) });
    try {
      await pg.query('SELECT 1');
    } finally {
      await pg.close();
    }
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw new BackupError(`${source} is not a backup of the embedded database (${describeFailure(error)}).`);
  }
  // The dump holds the lock directory of the process that made it: not ours to keep.
  rmSync(resolve(staging, '.lock'), { recursive: true, force: true });

  let movedAside: string | null = null;
  if (existsSync(dir)) {
    const aside = `${dir}.before-restore-${(options.now ?? new Date()).toISOString().replace(/\D/g, '').slice(0, 14)}`;
    // Under the lock, so a service starting meanwhile either waits for us or is refused.
    await whileLocked(dir, 'restore', () =>
      occupied ? rename(dir, aside) : Promise.resolve(rmSync(dir, { recursive: true, force: true })),
    );
    if (occupied) {
      rmSync(resolve(aside, '.lock'), { recursive: true, force: true });
      movedAside = aside;
    }
  }
  await rename(staging, dir);
  return { dir, movedAside };
}
