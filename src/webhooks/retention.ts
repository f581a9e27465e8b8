import { type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from '../db/client.js';
import { directSql } from '../db/direct-sql.js';
import { builder, prepared, rowsOf } from '../db/sql-builder.js';

/**
 * How long delivery rows are kept. A finished delivery (delivered or failed) goes once it is one
 * of more than DELIVERIES_KEPT_PER_WEBHOOK newer deliveries of its endpoint, or
 * DELIVERY_RETENTION_DAYS after its last attempt was due; a pending one is kept until it finishes
 * (retries end within about a day of the first attempt; see schedule.ts). Every worker prunes
 * every PRUNE_EVERY_MS, in statements of at most PRUNE_BATCH rows, so an endpoint's delivery list
 * (and the claim's walk of it) stays short however many events its organization makes.
 */
export const DELIVERIES_KEPT_PER_WEBHOOK = 1000;
const DELIVERY_RETENTION_DAYS = 30;
export const PRUNE_EVERY_MS = 10 * 60 * 1000;
const PRUNE_BATCH = 5000;

/**
 * Deletes the deliveries `doomed` selects (by seq); how many, as a row (DirectSql answers rows,
 * not a statement's count).
 */
function deleteDeliveries<DB, TB extends keyof DB>(doomed: SelectQueryBuilder<DB, TB, { seq: string }>) {
  return builder
    .with('gone', (db) => db.deleteFrom('webhook_deliveries').where('seq', 'in', doomed).returning('seq'))
    .selectFrom('gone')
    .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('deleted'));
}

/** Finished deliveries older than the newest `kept` of their endpoint, at most `batch`. */
const pruneBeyondCount = prepared(
  (kept: number, batch: number) =>
    deleteDeliveries(
      builder
        .selectFrom('webhooks as w')
        .crossJoinLateral((eb) =>
          eb
            .selectFrom('webhook_deliveries as x')
            .select('x.seq')
            .whereRef('x.webhook_id', '=', 'w.id')
            .orderBy('x.seq', 'desc')
            .offset(kept)
            .limit(eb.lit(1))
            .as('cut'),
        )
        .innerJoin('webhook_deliveries as d', (join) =>
          join
            .onRef('d.webhook_id', '=', 'w.id')
            .onRef('d.seq', '<=', 'cut.seq')
            .on('d.state', '<>', sql.lit('pending')),
        )
        .select('d.seq')
        .limit(batch),
    ),
  2,
);

/** Finished deliveries whose last attempt was due more than `days` days ago, at most `batch`. */
const pruneBeyondAge = prepared(
  (days: number, batch: number) =>
    deleteDeliveries(
      builder
        .selectFrom('webhook_deliveries')
        .select('seq')
        .where('state', 'in', [sql.lit('delivered'), sql.lit('failed')])
        // make_interval's named argument has no Kysely construct.
        .where('next_attempt_at', '<', sql<Date>`now() - make_interval(days => ${days})`)
        .limit(batch),
    ),
  2,
);

/** Deletes the deliveries past their retention; how many. */
export async function pruneDeliveries(db: Db): Promise<number> {
  let deleted = 0;
  for (const [prune, bound] of [
    [pruneBeyondCount, DELIVERIES_KEPT_PER_WEBHOOK],
    [pruneBeyondAge, DELIVERY_RETENTION_DAYS],
  ] as const) {
    for (;;) {
      const [row] = await rowsOf(directSql(db), prune.with(bound, PRUNE_BATCH));
      const n = row?.deleted ?? 0;
      deleted += n;
      if (n < PRUNE_BATCH) break;
    }
  }
  return deleted;
}
