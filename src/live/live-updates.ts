import { createRedisEventTarget } from '@graphql-yoga/redis-event-target';
import { createPubSub, type PubSub } from 'graphql-yoga';
import { setMaxListeners } from 'node:events';
import type { LiveStreamLimits } from '../config.js';
import type { RecordedEvent } from '../events/event.js';
import type { Logger } from '../logger.js';
import { connectRedis, type RedisClient } from '../redis/connect.js';
import { guardedStream, type GuardedStream, type StreamGuard } from './guarded-stream.js';
import { StreamSlots, type StreamRefusal } from './stream-slots.js';

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

/** Attempts at publishing one event, and the wait before the first retry (doubled each time): about 3 s in all. */
const PUBLISH_ATTEMPTS = 5;
const PUBLISH_RETRY_MS = 200;

/**
 * The publishing side the Redis event target needs, whose PUBLISH is retried: one sent while a
 * cluster node fails over (its connection lost with the command on it) fails, and a retry goes
 * to a node still up. The event target drops the command's promise: a failure unhandled there
 * would be an unhandled rejection, which ends the process, so the last one is logged here and
 * the event is lost.
 */
function retriedPublisher(client: RedisClient, logger: Logger): RedisClient {
  const publish = async (channel: string, message: string): Promise<number> => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await client.publish(channel, message);
      } catch (err) {
        if (attempt >= PUBLISH_ATTEMPTS) {
          logger.warn({ err, channel }, 'live updates: an event could not be published');
          return 0;
        }
        await new Promise((resolve) => setTimeout(resolve, PUBLISH_RETRY_MS * 2 ** (attempt - 1)));
      }
    }
  };
  return { publish } as unknown as RedisClient;
}

/** What a subscriber listens for, and whether it still may. */
export type LiveGuard = Pick<StreamGuard<LiveEvent>, 'accept' | 'check'>;

/**
 * Live updates of one app: changes are published per organization after their transaction
 * committed (src/events/record.ts), and GraphQL subscriptions (src/schema/core/live.ts) listen to
 * their organization's topic. With REDIS_URL every instance publishes to and hears from Redis
 * (@graphql-yoga/redis-event-target), so a change made on one reaches subscribers on all;
 * without it, the topics live in this process.
 */
export class LiveUpdates {
  private readonly slots: StreamSlots;

  private constructor(
    private readonly pubsub: PubSub<Topics>,
    private readonly connections: RedisClient[],
    private readonly limits: LiveStreamLimits,
  ) {
    this.slots = new StreamSlots(limits);
  }

  static create(redisUrl: string | undefined, logger: Logger, limits: LiveStreamLimits): LiveUpdates {
    if (!redisUrl) {
      const target = new EventTarget();
      // One listener per open subscription: many are expected, not a leak.
      setMaxListeners(0, target);
      return new LiveUpdates(createPubSub<Topics>({ eventTarget: target as never }), [], limits);
    }
    // A subscribing connection can do nothing else: publishing needs its own.
    const publishClient = connectRedis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
    const subscribeClient = connectRedis(redisUrl, { lazyConnect: false });
    for (const connection of [publishClient, subscribeClient]) {
      connection.on('error', (err) => logger.warn({ err }, 'live updates: Redis connection error'));
    }
    const eventTarget = createRedisEventTarget({
      publishClient: retriedPublisher(publishClient, logger),
      subscribeClient,
    });
    return new LiveUpdates(createPubSub<Topics>({ eventTarget }), [publishClient, subscribeClient], limits);
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

  /**
   * The organization's changes from now on, as one stream of `credential` (`kind:id`): the ones
   * `guard.accept`s, each after `guard.check`, which also runs every SUBSCRIPTION_RECHECK_MS.
   * Refused when the credential or the organization already holds its cap of open streams; the
   * slot is freed however the stream ends.
   */
  open(credential: string, orgId: string, guard: LiveGuard): AsyncIterableIterator<LiveEvent> | StreamRefusal {
    let stream: GuardedStream<LiveEvent> | undefined;
    const slot = this.slots.take(credential, orgId, () => stream?.end());
    if (!('release' in slot)) return slot;
    const { recheckMs } = this.limits;
    stream = guardedStream(this.pubsub.subscribe('org', orgId), { ...guard, recheckMs, onEnd: slot.release });
    return stream;
  }

  async close(): Promise<void> {
    this.slots.endAll();
    await Promise.all(this.connections.map((connection) => connection.quit().catch(() => connection.disconnect())));
  }
}
