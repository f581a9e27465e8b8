import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, type PubSub } from 'graphql-yoga';
import { Redis } from 'ioredis';
import { setMaxListeners } from 'node:events';
import type { RecordedEvent } from '../events/record.js';
import type { Logger } from '../logger.js';

/** A committed change as live subscribers receive it: what changed, never the data itself (read under the subscriber's own rights). */
export interface LiveEvent {
  /** issue.created, issue.updated, issue.deleted, project.created, project.updated, project.deleted. */
  type: string;
  orgId: string;
  subjectId: string;
  projectId: string;
  /** The fields that changed. */
  fields: string[];
  /** ISO 8601: crosses Redis as JSON. */
  at: string;
}

type Topics = { org: [orgId: string, event: LiveEvent] };

/**
 * Live updates of one app: changes are published per organization after their transaction
 * committed (src/events/record.ts), and GraphQL subscriptions (src/schema/live.ts) listen to
 * their organization's topic. With REDIS_URL every instance publishes to and hears from Redis
 * (@graphql-yoga/redis-event-target), so a change made on one reaches subscribers on all;
 * without it, the topics live in this process.
 */
export class LiveUpdates {
  private constructor(
    private readonly pubsub: PubSub<Topics>,
    private readonly connections: Redis[],
  ) {}

  static create(redisUrl: string | undefined, logger: Logger): LiveUpdates {
    if (!redisUrl) {
      const target = new EventTarget();
      // One listener per open subscription: many are expected, not a leak.
      setMaxListeners(0, target);
      return new LiveUpdates(createPubSub<Topics>({ eventTarget: target as never }), []);
    }
    // A subscribing connection can do nothing else: publishing needs its own.
    const publishClient = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
    const subscribeClient = new Redis(redisUrl, { lazyConnect: false });
    for (const connection of [publishClient, subscribeClient]) {
      connection.on('error', (err) => logger.warn({ err }, 'live updates: Redis connection error'));
    }
    return new LiveUpdates(createPubSub<Topics>({ eventTarget: createRedisEventTarget({ publishClient, subscribeClient }) }), [publishClient, subscribeClient]);
  }

  publish(events: RecordedEvent[]): void {
    for (const event of events) {
      this.pubsub.publish('org', event.orgId, {
        type: event.type,
        orgId: event.orgId,
        subjectId: event.subjectId,
        projectId: event.projectId,
        fields: event.changes.map((change) => change.field),
        at: event.createdAt.toISOString(),
      });
    }
  }

  /** Every change of the organization from now on, until the iterator is returned. */
  subscribe(orgId: string): AsyncIterable<LiveEvent> {
    return this.pubsub.subscribe('org', orgId);
  }

  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
  }
}
