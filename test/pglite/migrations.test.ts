import { describe, expect, test } from 'vitest';
import { openDatabase } from '../../src/db/client.js';
import { applyMigrations, pendingSchemaChanges, readMigrations } from '../../src/db/migrations.js';

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
});
