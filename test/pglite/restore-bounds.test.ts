import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, test } from 'vitest';
import { restoreEmbedded } from '../../src/db/backup.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-restore-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const MIB = 1024 ** 2;

/** Gzip members concatenated are one valid stream: a few KiB on disk per 16 MiB unpacked. */
function bomb(name: string, mib: number): string {
  const file = join(dir, name);
  writeFileSync(file, Buffer.concat(Array(mib / 16).fill(gzipSync(Buffer.alloc(16 * MIB)))));
  return file;
}

describe('restore bounds what a backup unpacks to', () => {
  test('a file unpacking past maxBytes is refused while it streams, naming the limit', async () => {
    const file = bomb('bomb.tar.gz', 64);
    await expect(restoreEmbedded(`file:${join(dir, 'data')}`, file, { maxBytes: 16 * MIB })).rejects.toThrow(
      `${file} unpacks to more than 16 MiB, the most a restore unpacks (a gzip bomb?). A database that large restores with --max-bytes BYTES.`,
    );
  });

  test('a file that is not gzip says so', async () => {
    const file = join(dir, 'plain.tar.gz');
    writeFileSync(file, 'not a backup');
    await expect(restoreEmbedded(`file:${join(dir, 'data')}`, file)).rejects.toThrow(
      `${file} is not a backup of the embedded database (not gzip: incorrect header check).`,
    );
  });
});
