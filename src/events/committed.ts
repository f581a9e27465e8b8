import { EventEmitter } from 'node:events';
import type { RecordedEvent } from './record.js';

/**
 * Events of this process, announced after their transaction committed (never before: a listener
 * must not see a change that may still roll back). The delivery worker listens to send at once
 * instead of at its next poll; live updates can listen here too.
 */
export const committedEvents = new EventEmitter<{ committed: [RecordedEvent[]] }>();
// Every app of a test process adds its worker: more than the default 10 is not a leak.
committedEvents.setMaxListeners(0);

export function eventsCommitted(events: RecordedEvent[]): void {
  committedEvents.emit('committed', events);
}
