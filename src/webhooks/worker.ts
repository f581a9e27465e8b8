import type { WebhookSettings } from '../config.js';
import type { Db } from '../db/client.js';
import type { Webhook } from '../generated/prisma/client.js';
import { committedEvents } from '../events/committed.js';
import type { Logger } from '../logger.js';
import { DISABLE_AFTER_MS, MAX_ATTEMPTS, nextDelaySeconds, retryable } from './schedule.js';
import { openSecret } from './secret-box.js';
import { sendWebhook, type SendResult } from './send.js';
import { signatureHeaders } from './signing.js';

/**
 * Claims due deliveries for this worker: the oldest first, at most one per webhook and issue at a
 * time (a later event of an issue waits until the earlier one is delivered or given up), skipping
 * rows another instance is claiming (FOR UPDATE SKIP LOCKED) and leasing the claimed ones, so no
 * two instances send one delivery at once. A worker killed mid-send leaves its lease to expire;
 * the delivery is then claimed again. $1 lease seconds, $2 batch size.
 */
const CLAIM_SQL = `
UPDATE webhook_deliveries d
   SET lease_until = now() + make_interval(secs => $1), attempts = d.attempts + 1, last_attempt_at = now()
 WHERE d.seq IN (
   SELECT c.seq FROM webhook_deliveries c JOIN webhooks w ON w.id = c.webhook_id
    WHERE c.state = 'pending' AND c.next_attempt_at <= now() AND (c.lease_until IS NULL OR c.lease_until < now())
      AND w.enabled
      AND (c.order_key IS NULL OR NOT EXISTS (
        SELECT 1 FROM webhook_deliveries p
         WHERE p.webhook_id = c.webhook_id AND p.order_key = c.order_key AND p.state = 'pending' AND p.seq < c.seq))
    ORDER BY c.seq
    LIMIT $2
    FOR UPDATE OF c SKIP LOCKED)
RETURNING d.id::text AS id, d.webhook_id::text AS "webhookId", d.message_id AS "messageId", d.payload, d.attempts`;

interface Claimed {
  id: string;
  webhookId: string;
  messageId: string;
  payload: string;
  attempts: number;
}

const BATCH = 32;
const POLL_MS = 1000;

/**
 * The delivery worker of one instance: wakes when this process queues deliveries and polls for
 * the others' (and for retries that fall due), sends what it claims, and records each outcome.
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly wake = () => void this.tick();

  constructor(
    private readonly db: Db,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    committedEvents.on('queued', this.wake);
    this.timer = setInterval(this.wake, POLL_MS);
    this.timer.unref();
    void this.tick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    committedEvents.off('queued', this.wake);
    clearInterval(this.timer);
    await this.running;
  }

  /** Sends until nothing is due; a wake-up during a run makes it look again. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while (!this.stopped) {
            const claimed = await this.db.$queryRawUnsafe<Claimed[]>(CLAIM_SQL, this.settings.leaseSeconds, BATCH);
            if (claimed.length === 0) break;
            const ids = [...new Set(claimed.map((d) => d.webhookId))];
            const webhooks = new Map((await this.db.webhook.findMany({ where: { id: { in: ids } } })).map((w) => [w.id, w]));
            await Promise.all(claimed.map((delivery) => this.deliver(delivery, webhooks.get(delivery.webhookId))));
          }
        } while (this.again && !this.stopped);
      } catch (error) {
        this.logger.error({ err: error }, 'webhook delivery worker failed; retrying at the next poll');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  private async deliver(delivery: Claimed, webhook: Webhook | undefined): Promise<void> {
    if (!webhook) return; // deleted meanwhile: its deliveries went with it
    const now = new Date();
    let headers: Record<string, string>;
    try {
      const secrets = [openSecret(webhook.secret, this.settings.secretKey)];
      if (webhook.previousSecret && webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > now) {
        secrets.push(openSecret(webhook.previousSecret, this.settings.secretKey));
      }
      headers = signatureHeaders(secrets, delivery.messageId, now, delivery.payload);
    } catch {
      // Retried like a network error: the operator can put the right key back.
      const error = 'cannot open the signing secret (was WEBHOOKS_SECRET_KEY changed?)';
      await this.record(delivery, webhook, { status: null, body: null, durationMs: 0, retryAfterSeconds: null, error });
      return;
    }
    const result = await sendWebhook(webhook.url, headers, delivery.payload, { allowPrivateNetworks: this.settings.allowPrivateNetworks });
    await this.record(delivery, webhook, result);
  }

  private async record(delivery: Claimed, webhook: Webhook, result: SendResult): Promise<void> {
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const delay = ok || !retryable(result.status) ? null : nextDelaySeconds(delivery.attempts, result.retryAfterSeconds);
    const state = ok ? 'delivered' : delay === null || delivery.attempts >= MAX_ATTEMPTS ? 'failed' : 'pending';
    const now = new Date();
    const outcome = {
      state,
      leaseUntil: null,
      responseStatus: result.status,
      responseBody: result.body,
      durationMs: result.durationMs,
      error: result.error,
      deliveredAt: ok ? now : null,
      ...(state === 'pending' ? { nextAttemptAt: new Date(now.getTime() + delay! * 1000) } : {}),
    };
    // Only while the lease is ours (the attempt count it was claimed with); a late answer after expiry changes nothing.
    await this.db.webhookDelivery.updateMany({ where: { id: delivery.id, attempts: delivery.attempts }, data: outcome });
    if (ok) {
      if (webhook.failingSince) await this.db.webhook.updateMany({ where: { id: delivery.webhookId, failingSince: { not: null } }, data: { failingSince: null } });
      return;
    }
    await this.db.webhook.updateMany({ where: { id: delivery.webhookId, failingSince: null }, data: { failingSince: now } });
    const reason = result.error ?? `HTTP ${result.status}`;
    const disabled = await this.db.webhook.updateMany({
      where: { id: delivery.webhookId, enabled: true, failingSince: { lt: new Date(now.getTime() - DISABLE_AFTER_MS) } },
      data: { enabled: false, disabledReason: `Disabled on ${now.toISOString()}: every delivery failed for ${DISABLE_AFTER_MS / 86_400_000} days. Last error: ${reason}` },
    });
    if (disabled.count) this.logger.warn({ webhookId: delivery.webhookId }, 'webhook disabled after failing for days');
  }
}
