import type { Db } from '../db/client.js';

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

/** Finished deliveries older than the newest DELIVERIES_KEPT_PER_WEBHOOK of their endpoint. $1 kept, $2 batch. */
const PRUNE_BEYOND_COUNT_SQL = `
DELETE FROM webhook_deliveries WHERE seq IN (
  SELECT d.seq FROM webhooks w
   CROSS JOIN LATERAL (
     SELECT x.seq FROM webhook_deliveries x WHERE x.webhook_id = w.id ORDER BY x.seq DESC OFFSET $1 LIMIT 1) cut
    JOIN webhook_deliveries d ON d.webhook_id = w.id AND d.seq <= cut.seq AND d.state <> 'pending'
   LIMIT $2)`;

/** Finished deliveries whose last attempt was due more than $1 days ago. $2 batch. */
const PRUNE_BEYOND_AGE_SQL = `
DELETE FROM webhook_deliveries WHERE seq IN (
  SELECT seq FROM webhook_deliveries
   WHERE state IN ('delivered', 'failed') AND next_attempt_at < now() - make_interval(days => $1)
   LIMIT $2)`;

/** Deletes the deliveries past their retention; how many. */
export async function pruneDeliveries(db: Db): Promise<number> {
  let deleted = 0;
  for (const [sql, bound] of [
    [PRUNE_BEYOND_COUNT_SQL, DELIVERIES_KEPT_PER_WEBHOOK],
    [PRUNE_BEYOND_AGE_SQL, DELIVERY_RETENTION_DAYS],
  ] as const) {
    for (;;) {
      const n = await db.$executeRawUnsafe(sql, bound, PRUNE_BATCH);
      deleted += n;
      if (n < PRUNE_BATCH) break;
    }
  }
  return deleted;
}
