import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';

/**
 * Key of the PostgreSQL advisory lock that serializes our migration runs. Not Prisma's own key
 * (72707369), which its schema engine takes on a connection of its own: holding that one here
 * would make the engine wait for us while we wait for the engine.
 */
export const MIGRATION_LOCK_KEY = 72707370;

const statement = (sql: string) => ({ sql, args: [], argTypes: [] });

/**
 * Runs `work` (applying migrations) while holding a transaction-level advisory lock, so several
 * instances started at once on one PostgreSQL database migrate one after another: the first
 * applies the migrations, the others wait, then find nothing left to apply. The lock belongs to
 * a transaction on a connection of its own, so it is released when `work` ends and also when
 * this process dies mid-way (PostgreSQL drops a dead session's locks).
 *
 * The embedded database needs no lock: one process per data directory (src/db/client.ts).
 */
export async function withMigrationLock<T>(
  factory: SqlMigrationAwareDriverAdapterFactory,
  work: () => Promise<T>,
): Promise<T> {
  if (factory.adapterName !== '@prisma/adapter-pg') return work();
  const adapter = await factory.connect();
  try {
    // The driver adapter's transaction pins one pooled connection; the query engine would send
    // BEGIN/COMMIT itself, so this code does too.
    const tx = await adapter.startTransaction();
    try {
      await tx.executeRaw(statement(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`));
      const result = await work();
      await tx.executeRaw(statement('COMMIT'));
      await tx.commit();
      return result;
    } catch (error) {
      await tx.executeRaw(statement('ROLLBACK')).catch(() => {});
      await tx.rollback();
      throw error;
    }
  } finally {
    await adapter.dispose();
  }
}
