import { sql } from 'kysely';
import type { Db } from '../db/client.js';
import { directSql } from '../db/direct-sql.js';
import { builder, prepared, rowsOf } from '../db/sql-builder.js';
import { typedValue } from '../db/sql-conditions.js';
import { retryable } from './schedule.js';

/**
 * The circuit breaker of an endpoint. Each attempt that gets no answer (timeout, network error)
 * or a retryable one (5xx, 408, 429) counts; this many in a row open the circuit: the endpoint's
 * deliveries stay queued, unclaimed, taking no send slot and spending no attempt, until
 * `circuit_open_until`. Then it is half-open: one delivery at a time goes out as a probe; a
 * success (or any final answer: the endpoint is up) closes the circuit, a failure opens it again
 * for twice as long. The state lives on the webhook row, so every instance sees it.
 */
export const CIRCUIT_OPEN_AFTER_FAILURES = 5;
/** The first open period; each failed probe doubles it, up to CIRCUIT_OPEN_MAX_SECONDS. */
const CIRCUIT_OPEN_SECONDS = 30;
const CIRCUIT_OPEN_MAX_SECONDS = 3600;

/**
 * Counts a failure; the count reaching the threshold (or passing it: a failed probe) opens the
 * circuit for 30 s x 2^(failures - threshold), at most an hour. Compiled once.
 */
const failed = prepared(
  (webhookId: string) =>
    builder
      .updateTable('webhooks')
      .set((eb) => {
        const failures = eb('consecutive_failures', '+', eb.lit(1));
        const beyond = eb(failures, '-', eb.lit(CIRCUIT_OPEN_AFTER_FAILURES));
        const seconds = eb.fn<number>('least', [
          eb.lit(CIRCUIT_OPEN_MAX_SECONDS),
          eb(eb.lit<number>(CIRCUIT_OPEN_SECONDS), '*', eb.fn<number>('power', [eb.lit(2), beyond])),
        ]);
        return {
          consecutive_failures: failures,
          circuit_open_until: eb
            .case()
            .when(failures, '>=', eb.lit(CIRCUIT_OPEN_AFTER_FAILURES))
            // make_interval's named argument has no Kysely construct.
            .then(sql<Date>`now() + make_interval(secs => ${seconds})`)
            .else(eb.ref('circuit_open_until'))
            .end(),
        };
      })
      .where('id', '=', typedValue(webhookId, 'uuid')),
  1,
);

/** Updates the endpoint's circuit after an attempt that got `status` (null: no answer). */
export async function recordCircuit(db: Db, webhookId: string, status: number | null): Promise<void> {
  // No answer (null) is retryable: it counts as a failure.
  const answered = !retryable(status);
  if (answered) {
    await db.webhook.updateMany({
      where: { id: webhookId, OR: [{ consecutiveFailures: { gt: 0 } }, { circuitOpenUntil: { not: null } }] },
      data: { consecutiveFailures: 0, circuitOpenUntil: null },
    });
  } else {
    await rowsOf(directSql(db), failed.with(webhookId));
  }
}
