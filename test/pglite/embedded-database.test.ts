import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { DatabaseInUseError, openDatabase } from '../../src/db/client.js';
import { applyMigrations } from '../../src/db/migrations.js';

const dir = mkdtempSync(join(tmpdir(), 'wm-pglite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function openInAnotherProcess(dataDir: string) {
  const script = `
    import { openDatabase } from './src/db/client.ts';
    try { const db = await openDatabase(${JSON.stringify(`file:${dataDir}`)}); await db.close(); console.log('opened'); }
    catch (e) { console.log(e.name + ': ' + e.message); }
  `;
  return spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
    cwd: process.cwd(),
  });
}

describe('embedded database on disk', () => {
  test('data survives a restart', async () => {
    const first = await openDatabase(`file:${dir}`);
    await applyMigrations(first.adapterFactory);
    await first.prisma.organization.create({ data: { name: 'Kept', slug: 'kept' } });
    await first.close();
    const second = await openDatabase(`file:${dir}`);
    expect(await second.prisma.organization.findUnique({ where: { slug: 'kept' } })).toMatchObject({ name: 'Kept' });
    await second.close();
  });

  test('a second process opening the same directory gets a clear error, and can open it once it is free', async () => {
    const db = await openDatabase(`file:${dir}`);
    try {
      const out = openInAnotherProcess(dir);
      expect(out.stdout).toContain('DatabaseInUseError');
      expect(out.stdout).toContain('already open in another process');
      await expect(openDatabase(`file:${dir}`)).rejects.toBeInstanceOf(DatabaseInUseError);
      expect(await db.prisma.organization.count()).toBe(1); // the holder is unharmed
    } finally {
      await db.close();
    }
    expect(openInAnotherProcess(dir).stdout).toContain('opened');
  });
});
