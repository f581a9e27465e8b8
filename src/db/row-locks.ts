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
