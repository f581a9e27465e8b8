import { sql } from 'kysely';
import { builder, type RawQueries, transactionRowsOf } from './sql-builder.js';

// Row locks that serialise a kind of write inside an interactive transaction: a later
// transaction taking the same lock waits until this one commits, so a count read after the lock
// (of webhooks, invitations, keys) still holds when the write comes.

/** Locks an organization's row: its webhook creations and its invitations, one at a time. */
export async function lockOrganization(tx: RawQueries, orgId: string): Promise<void> {
  await transactionRowsOf(tx, builder.selectFrom('organizations').select('id').where('id', '=', orgId).forUpdate());
}

/** Locks a membership's row: a user's key creations in an organization, one at a time. */
export async function lockMembership(tx: RawQueries, orgId: string, userId: string): Promise<void> {
  await transactionRowsOf(
    tx,
    builder
      .selectFrom('memberships')
      .select('id')
      .where('org_id', '=', orgId)
      .where('user_id', '=', userId)
      .forUpdate(),
  );
}

/**
 * How many of `ids` are rows of `table` of organization `orgId`, each locked until `tx` ends:
 * FOR UPDATE (rows a change writes) or FOR KEY SHARE (rows it refers to, which then cannot be
 * deleted under it). In id order, so concurrent changes take turns without deadlock. Reads the
 * ids only: lockIssues (src/events/subjects.ts) locks issues with the snapshot a write records.
 */
export async function lockOrgRows(
  tx: RawQueries,
  table: 'issues' | 'labels',
  orgId: string,
  ids: readonly string[],
  lock: 'update' | 'key share',
): Promise<number> {
  const rows = await transactionRowsOf(
    tx,
    builder
      .selectFrom(table)
      .select(sql<string>`id::text`.as('id'))
      .where('org_id', '=', orgId)
      .where('id', 'in', ids)
      .orderBy('id')
      .$call((q) => (lock === 'update' ? q.forUpdate() : q.forKeyShare())),
  );
  return rows.length;
}
