import type { RecordedEvent, Tx } from './record.js';

/** Placeholder until webhooks exist: the outbox is written by recordEvents in the same transaction. */
export async function enqueueDeliveries(_tx: Tx, _events: RecordedEvent[]): Promise<void> {}
