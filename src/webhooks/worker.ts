import type { WebhookSettings } from '../config.js';
import { expressionBuilder, type InferResult, sql } from 'kysely';
import type { Db } from '../db/client.js';
import { directSql } from '../db/direct-sql.js';
import { builder, type Database, prepared, rowsOf } from '../db/sql-builder.js';
import { typedValue } from '../db/sql-conditions.js';
import type { Webhook } from '../generated/prisma/client.js';
import { committedEvents } from '../events/committed.js';
import type { Logger } from '../logger.js';
import { CIRCUIT_OPEN_AFTER_FAILURES, recordCircuit } from './circuit.js';
import { InFlight, WORKER_IN_FLIGHT_MAX, type DueEndpoint } from './fairness.js';
import { PRUNE_EVERY_MS, pruneDeliveries } from './retention.js';
import { DISABLE_AFTER_MS, MAX_ATTEMPTS, nextDelaySeconds, retryable } from './schedule.js';
import { openSecret } from './secret-box.js';
import { sendWebhook, type SendResult } from './send.js';
import { inSpan, outsideTraces } from '../ops/tracing.js';
import { signatureHeaders } from './signing.js';

/** The database's clock: every instance reads the same one. */
const now = expressionBuilder<Database>().fn<Date>('now');
/** A delivery's state, written in the statements compiled once (`prepared` binds nothing else). */
const PENDING = sql.lit('pending');
/** Ids sent as one array of uuids (Kysely has no name for an array type). */
const uuids = (ids: string[]) => typedValue(ids, sql`uuid[]`);

/**
 * The endpoints with deliveries due, the longest-waiting first: enabled, their circuit not open
 * (src/webhooks/circuit.ts; past the failures that open it and due again is half-open), and
 * not among those this process already sends to as much as it may (`full`: the endpoints, and
 * the organizations at their cap). At most `max`: the fairness plan
 * (src/webhooks/fairness.ts) chooses among them.
 *
 * One look per endpoint at its first due delivery, through the index of pending deliveries,
 * rather than a pass over every pending delivery: an organization whose endpoints never answer
 * piles up thousands of them, and this runs at every refill (compiled once). Its endpoints at
 * their cap are not looked at.
 */
const dueEndpoints = prepared(
  (failuresThatOpen: number, max: number, fullEndpoints: string[], fullOrgs: string[]) =>
    builder
      .selectFrom('webhooks as w')
      .crossJoinLateral((eb) =>
        eb
          .selectFrom('webhook_deliveries as c')
          .select('c.seq')
          .whereRef('c.webhook_id', '=', 'w.id')
          .where('c.state', '=', PENDING)
          .where('c.next_attempt_at', '<=', now)
          .where((c) => c.or([c('c.lease_until', 'is', null), c('c.lease_until', '<', now)]))
          .orderBy('c.seq')
          .limit(eb.lit(1))
          .as('due'),
      )
      .select((eb) => [
        eb.cast<string>('w.id', 'text').as('webhookId'),
        eb.cast<string>('w.org_id', 'text').as('orgId'),
        eb('w.consecutive_failures', '>=', failuresThatOpen).$castTo<boolean>().as('halfOpen'),
      ])
      .where((eb) => eb.ref('w.enabled'))
      .where((eb) => eb.or([eb('w.circuit_open_until', 'is', null), eb('w.circuit_open_until', '<=', now)]))
      .where((eb) => eb.not(eb('w.id', '=', eb.fn.any(uuids(fullEndpoints)))))
      .where((eb) => eb.not(eb('w.org_id', '=', eb.fn.any(uuids(fullOrgs)))))
      .orderBy('due.seq')
      .limit(max),
  4,
);

/**
 * Claims due deliveries, as many of each endpoint as the plan says (`wanted`: JSON of
 * [{ webhook_id, n }]): the oldest first, at most one per webhook and issue at a time (a later
 * event of an issue waits until the earlier one is delivered or given up), skipping rows another
 * instance is claiming (FOR UPDATE SKIP LOCKED) and leasing the claimed ones for `leaseSeconds`,
 * so no two instances send one delivery at once. A worker killed mid-send leaves its lease to
 * expire; the delivery is then claimed again. Compiled once: it runs at every refill.
 */
const claim = prepared(
  (leaseSeconds: number, wanted: string) =>
    builder
      .updateTable('webhook_deliveries as d')
      .set((eb) => ({
        // make_interval's named argument has no Kysely construct.
        lease_until: sql<Date>`${now} + make_interval(secs => ${leaseSeconds})`,
        attempts: eb('d.attempts', '+', eb.lit(1)),
        last_attempt_at: now,
      }))
      .where('d.seq', 'in', (eb) =>
        eb
          // A set-returning function with a column definition list has no Kysely construct.
          .selectFrom(
            sql<{ webhook_id: string; n: number }>`jsonb_to_recordset(${typedValue(wanted, 'jsonb')})`.as<'q'>(
              sql`q(webhook_id uuid, n int)`,
            ),
          )
          .crossJoinLateral((lateral) =>
            lateral
              .selectFrom('webhook_deliveries as c')
              .select('c.seq')
              .whereRef('c.webhook_id', '=', 'q.webhook_id')
              .where('c.state', '=', PENDING)
              .where('c.next_attempt_at', '<=', now)
              .where((c) => c.or([c('c.lease_until', 'is', null), c('c.lease_until', '<', now)]))
              .where((c) =>
                c.exists(
                  c
                    .selectFrom('webhooks as w')
                    .select(c.lit(1).as('open'))
                    .whereRef('w.id', '=', 'q.webhook_id')
                    .where((w) => w.ref('w.enabled'))
                    .where((w) => w.or([w('w.circuit_open_until', 'is', null), w('w.circuit_open_until', '<=', now)])),
                ),
              )
              .where((c) =>
                c.or([
                  c('c.order_key', 'is', null),
                  c.not(
                    c.exists(
                      c
                        .selectFrom('webhook_deliveries as p')
                        .select(c.lit(1).as('earlier'))
                        .whereRef('p.webhook_id', '=', 'c.webhook_id')
                        .whereRef('p.order_key', '=', 'c.order_key')
                        .where('p.state', '=', PENDING)
                        .whereRef('p.seq', '<', 'c.seq'),
                    ),
                  ),
                ]),
              )
              .orderBy('c.seq')
              .limit((l) => l.ref('q.n'))
              .forUpdate('c')
              .skipLocked()
              .as('c'),
          )
          .select('c.seq'),
      )
      .returning((eb) => [
        eb.cast<string>('d.id', 'text').as('id'),
        eb.cast<string>('d.webhook_id', 'text').as('webhookId'),
        eb.cast<string>('d.org_id', 'text').as('orgId'),
        'd.message_id as messageId',
        'd.payload',
        'd.attempts',
        'd.traceparent',
      ]),
  2,
);

type Claimed = InferResult<ReturnType<typeof claim.with>>[number];

/** Endpoints the fairness plan looks at in one refill. */
const DUE_ENDPOINTS_MAX = 500;
const POLL_MS = 1000;

/**
 * The delivery worker of one instance: a continuous pool of sends (src/webhooks/fairness.ts),
 * refilled whenever a send ends, when this process queues deliveries, and by a poll for the
 * others' (and for retries and circuits that fall due); it records each outcome, and prunes old
 * deliveries (src/webhooks/retention.ts).
 */
export class DeliveryWorker {
  private timer: NodeJS.Timeout | undefined;
  private pruneTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly inFlight = new InFlight();
  private readonly sends = new Set<Promise<void>>();
  // Woken by a request's write among others: its sends and statements are no part of that request's trace.
  private readonly wake = () => void outsideTraces(() => this.tick());
  private readonly prune = () =>
    void pruneDeliveries(this.db).catch((error: unknown) =>
      this.logger.warn({ err: error }, 'could not prune webhook deliveries; trying again at the next prune'),
    );

  constructor(
    private readonly db: Db,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
  ) {}

  start(): void {
    committedEvents.on('queued', this.wake);
    this.timer = setInterval(this.wake, POLL_MS);
    this.timer.unref();
    this.pruneTimer = setInterval(this.prune, PRUNE_EVERY_MS);
    this.pruneTimer.unref();
    void this.tick();
  }

  /** Stops claiming, and waits for the sends in flight (each ends within the send timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    committedEvents.off('queued', this.wake);
    clearInterval(this.timer);
    clearInterval(this.pruneTimer);
    await this.running;
    await Promise.all(this.sends);
  }

  /** Fills the free slots until nothing more is due; a wake-up during a run makes it look again. */
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
          while (!this.stopped && (await this.fill()));
        } while (this.again && !this.stopped);
      } catch (error) {
        this.logger.error({ err: error }, 'webhook delivery worker failed; retrying at the next poll');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Claims for the free slots, fairly, and starts those sends; whether it started any. */
  private async fill(): Promise<boolean> {
    const free = WORKER_IN_FLIGHT_MAX - this.inFlight.total;
    if (free <= 0) return false;
    const full = this.inFlight.full();
    const due: DueEndpoint[] = await rowsOf(
      directSql(this.db),
      dueEndpoints.with(CIRCUIT_OPEN_AFTER_FAILURES, DUE_ENDPOINTS_MAX, full.endpoints, full.orgs),
    );
    const plan = this.inFlight.plan(due, free);
    if (plan.size === 0) return false;
    const wanted = JSON.stringify([...plan].map(([webhookId, n]) => ({ webhook_id: webhookId, n })));
    const claimed = await rowsOf(directSql(this.db), claim.with(this.settings.leaseSeconds, wanted));
    if (claimed.length === 0) return false;
    const ids = [...new Set(claimed.map((d) => d.webhookId))];
    const webhooks = new Map((await this.db.webhook.findMany({ where: { id: { in: ids } } })).map((w) => [w.id, w]));
    for (const delivery of claimed) {
      this.inFlight.add(delivery.webhookId, delivery.orgId);
      // With tracing on, each delivery is a trace of its own, linked to the request that queued it
      // when that one was traced; the POST sends the delivery's traceparent (src/ops/tracing-start.ts).
      const send: Promise<void> = inSpan(
        'webhook deliver',
        {
          'workmgmt.webhook.id': delivery.webhookId,
          'workmgmt.webhook.delivery_id': delivery.id,
          'workmgmt.webhook.message_id': delivery.messageId,
        },
        () => this.deliver(delivery, webhooks.get(delivery.webhookId)),
        { root: true, linkedTo: delivery.traceparent },
      )
        .catch((error: unknown) => {
          const message = 'could not record a webhook delivery; its lease expires and it is sent again';
          this.logger.error({ err: error, deliveryId: delivery.id }, message);
        })
        .finally(() => {
          this.inFlight.remove(delivery.webhookId, delivery.orgId);
          this.sends.delete(send);
          this.wake();
        });
      this.sends.add(send);
    }
    return true;
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
    const result = await sendWebhook(webhook.url, headers, delivery.payload, {
      allowPrivateNetworks: this.settings.allowPrivateNetworks,
    });
    await this.record(delivery, webhook, result);
  }

  private async record(delivery: Claimed, webhook: Webhook, result: SendResult): Promise<void> {
    const ok = result.status !== null && result.status >= 200 && result.status < 300;
    const delay =
      ok || !retryable(result.status) ? null : nextDelaySeconds(delivery.attempts, result.retryAfterSeconds);
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
    await this.db.webhookDelivery.updateMany({
      where: { id: delivery.id, attempts: delivery.attempts },
      data: outcome,
    });
    await recordCircuit(this.db, delivery.webhookId, result.status);
    if (ok) {
      if (webhook.failingSince)
        await this.db.webhook.updateMany({
          where: { id: delivery.webhookId, failingSince: { not: null } },
          data: { failingSince: null },
        });
      return;
    }
    await this.db.webhook.updateMany({
      where: { id: delivery.webhookId, failingSince: null },
      data: { failingSince: now },
    });
    const reason = result.error ?? `HTTP ${result.status}`;
    const disabled = await this.db.webhook.updateMany({
      where: {
        id: delivery.webhookId,
        enabled: true,
        failingSince: { lt: new Date(now.getTime() - DISABLE_AFTER_MS) },
      },
      data: {
        enabled: false,
        disabledReason: `Disabled on ${now.toISOString()}: every delivery failed for ${DISABLE_AFTER_MS / 86_400_000} days. Last error: ${reason}`,
      },
    });
    if (disabled.count) this.logger.warn({ webhookId: delivery.webhookId }, 'webhook disabled after failing for days');
  }
}
