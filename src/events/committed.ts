import { EventEmitter } from 'node:events';
import type { RecordedEvent } from './event.js';

/**
 * Events of this process, announced after their transaction committed (never before: a listener
 * must not see a change that may still roll back), and `queued` when they queued webhook
 * deliveries. The delivery worker listens to `queued` to send at once instead of at its next
 * poll; a write that queued nothing (no webhook of the organization wants the event) does not
 * wake it, where it would only find nothing to claim, one statement per write.
 */
export const committedEvents = new EventEmitter<{ committed: [RecordedEvent[]]; queued: [] }>();
// Every app of a test process adds its worker: more than the default 10 is not a leak.
committedEvents.setMaxListeners(0);

/** `queued`: how many webhook deliveries the events queued. */
export function eventsCommitted(events: RecordedEvent[], queued: number): void {
  if (events.length) committedEvents.emit('committed', events);
  if (queued > 0) committedEvents.emit('queued');
}
