import type { Db } from '../db/client.js';
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
 * circuit for 30 s x 2^(failures - threshold), at most an hour. $1 webhook id.
 */
const FAILED_SQL = `
UPDATE webhooks SET consecutive_failures = consecutive_failures + 1,
  circuit_open_until = CASE WHEN consecutive_failures + 1 >= ${CIRCUIT_OPEN_AFTER_FAILURES}
    THEN now() + make_interval(secs => LEAST(${CIRCUIT_OPEN_MAX_SECONDS},
      ${CIRCUIT_OPEN_SECONDS} * power(2, consecutive_failures + 1 - ${CIRCUIT_OPEN_AFTER_FAILURES})))
    ELSE circuit_open_until END
 WHERE id = $1::uuid`;

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
    await db.$executeRawUnsafe(FAILED_SQL, webhookId);
  }
}
