import { describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations, migrateIfBehind, pendingSchemaChanges, readMigrations } from '../../src/db/migrations.js';

describe('migrations', () => {
  test('the committed migrations produce exactly prisma/schema.prisma', async () => {
    expect(await pendingSchemaChanges()).toBe('');
  });

  test('apply once, record them as prisma migrate does, and do nothing the second time', async () => {
    const db = await openDatabase('memory://');
    try {
      const names = (await readMigrations()).migrationDirectories.map((d) => d.path);
      expect(names.length).toBeGreaterThan(0);
      expect(await applyMigrations(db.adapterFactory)).toEqual(names);
      expect(await applyMigrations(db.adapterFactory)).toEqual([]);
      const rows = await db.prisma.$queryRawUnsafe<{ migration_name: string; finished_at: Date | null }[]>(
        'SELECT migration_name, finished_at FROM _prisma_migrations ORDER BY migration_name',
      );
      expect(rows.map((r) => r.migration_name)).toEqual(names);
      expect(rows.every((r) => r.finished_at !== null)).toBe(true);
    } finally {
      await db.close();
    }
  });

  test('at start: applies what a database lacks, and leaves an up-to-date one alone', async () => {
    const db = await openDatabase('memory://');
    try {
      const names = (await readMigrations()).migrationDirectories.map((d) => d.path);
      expect(await migrateIfBehind(db)).toEqual(names);
      expect(await migrateIfBehind(db)).toEqual([]);
      // A migration recorded as failed is not applied: the engine takes the case (and refuses, as prisma migrate deploy).
      await db.prisma.$executeRawUnsafe(
        'UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = $1',
        names.at(-1),
      );
      await expect(migrateIfBehind(db)).rejects.toThrow(/failed/i);
    } finally {
      await db.close();
    }
  });
});
