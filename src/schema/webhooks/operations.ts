import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { eventsCommitted } from '../../events/committed.js';
import { pingPayload } from '../../events/outbox.js';
import { EVENT_TYPES } from '../../events/record.js';
import type { Webhook, WebhookDelivery } from '../../generated/prisma/client.js';
import { checkOutboundUrl, OutboundAddressError } from '../../http/outbound-address.js';
import { currentTraceparent } from '../../ops/tracing.js';
import type { Context } from '../../context.js';
import { sealSecret } from '../../webhooks/secret-box.js';
import { newSigningSecret } from '../../webhooks/signing.js';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.js';
import { firstInput } from '../core/list-bounds.js';
import { notNull } from '../core/messages.js';
import { defineOperation } from '../core/operation.js';
import { storableString } from '../core/text.js';
import { isUuid } from '../core/uuid.js';
import { activeOrgId } from '../people/viewer.js';
import { lockOrganization } from '../../db/row-locks.js';

/** After a rotation the previous secret keeps signing this long, so receivers can switch without losing a message. */
const ROTATION_GRACE_MS = 24 * 3600 * 1000;
export const WEBHOOKS_PER_ORG_MAX = 20;
export const DELIVERIES_PAGE_MAX = 100;
export const WEBHOOK_URL_MAX = 2000;
export const WEBHOOK_DESCRIPTION_MAX = 500;

export const WEBHOOK_EVENTS = ['*', ...EVENT_TYPES] as const;

// The scheme is checked here, with the other fields' rules; where the URL may point is checked after (it needs DNS).
const url = z
  .string(notNull('must be a string'))
  .min(1, 'is required')
  .max(WEBHOOK_URL_MAX, `must be at most ${WEBHOOK_URL_MAX} characters`)
  .refine((value) => /^https?:\/\/[^/]/i.test(value), 'must be an https URL');
const events = z
  .array(
    z.enum(WEBHOOK_EVENTS, notNull(`must be one of: ${WEBHOOK_EVENTS.join(', ')}`)),
    notNull('must be a list of event types'),
  )
  .min(1, 'must name at least one event type (or *)')
  .max(WEBHOOK_EVENTS.length, `must name at most ${WEBHOOK_EVENTS.length} event types`)
  .transform((list) => [...new Set(list)]);
const description = storableString(notNull('must be a string')).max(
  WEBHOOK_DESCRIPTION_MAX,
  `must be at most ${WEBHOOK_DESCRIPTION_MAX} characters`,
);
const id = z.string().min(1, 'is required');

/** Who may manage webhooks: owners and admins, through any credential their role allows. */
const admins = { role: 'admin' } as const;

/** The URL's checks (src/http/outbound-address.ts), as the field error of `url`. */
async function checkedUrl(ctx: Context, value: string): Promise<string> {
  try {
    return (await checkOutboundUrl(value, { allowPrivateNetworks: ctx.config.webhooks.allowPrivateNetworks })).href;
  } catch (error) {
    if (error instanceof OutboundAddressError) throw new ValidationError([{ field: 'url', message: error.message }]);
    throw error;
  }
}

async function findWebhook(ctx: Context, webhookId: string): Promise<Webhook> {
  if (!isUuid(webhookId)) throw new NotFoundError('webhook');
  const webhook = await ctx.prisma.webhook.findFirst({ where: { id: webhookId, orgId: activeOrgId(ctx) } });
  if (!webhook) throw new NotFoundError('webhook');
  return webhook;
}

/** A webhook as its owners see it: never the secret. */
export type WebhookView = Omit<Webhook, 'secret' | 'previousSecret'> & { rotating: boolean };
const view = ({ secret: _s, previousSecret, ...webhook }: Webhook): WebhookView => ({
  ...webhook,
  rotating: !!previousSecret && !!webhook.previousSecretExpiresAt && webhook.previousSecretExpiresAt > new Date(),
});

export const listWebhooks = defineOperation({
  name: 'listWebhooks',
  description: "The organization's webhooks, oldest first. Owners and admins.",
  kind: 'read',
  access: admins,
  input: z.strictObject({}),
  async run(ctx) {
    const rows = await ctx.prisma.webhook.findMany({
      where: { orgId: activeOrgId(ctx) },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      take: WEBHOOKS_PER_ORG_MAX,
    });
    return rows.map(view);
  },
});

export const getWebhook = defineOperation({
  name: 'getWebhook',
  description: 'One webhook of the organization. Owners and admins.',
  kind: 'read',
  access: admins,
  input: z.strictObject({ id }),
  run: async (ctx, input) => view(await findWebhook(ctx, input.id)),
});

export const createWebhook = defineOperation({
  name: 'createWebhook',
  description:
    'Adds an endpoint that receives the events named (or `*`), signed with the Standard Webhooks scheme. ' +
    'The signing secret is returned this once. The URL must be https and resolve to public addresses. ' +
    `At most ${WEBHOOKS_PER_ORG_MAX} per organization (else WEBHOOK_LIMIT_REACHED). Owners and admins.`,
  kind: 'write',
  access: admins,
  input: z.strictObject({ url, events, description: description.nullish() }),
  async run(ctx, input) {
    const orgId = activeOrgId(ctx);
    const checked = await checkedUrl(ctx, input.url);
    const secret = newSigningSecret();
    const webhook = await ctx.prisma.$transaction(async (tx) => {
      // Locking the organization row serialises its creations, so two concurrent requests cannot both see 19 and make a 21st.
      await lockOrganization(tx, orgId);
      if ((await tx.webhook.count({ where: { orgId } })) >= WEBHOOKS_PER_ORG_MAX) {
        throw new ConflictError(
          `This organization already has ${WEBHOOKS_PER_ORG_MAX} webhooks, the most it may have. Delete one first.`,
          'WEBHOOK_LIMIT_REACHED',
        );
      }
      return tx.webhook.create({
        data: {
          orgId,
          url: checked,
          events: input.events,
          description: input.description ?? '',
          secret: sealSecret(secret, ctx.config.webhooks.secretKey),
          createdBy: ctx.principal.kind === 'user' ? ctx.principal.userId : null,
        },
      });
    });
    return { webhook: view(webhook), secret };
  },
});

export const updateWebhook = defineOperation({
  name: 'updateWebhook',
  description:
    'Changes a webhook. `enabled: true` turns a paused or disabled one back on. `rotate_secret: true` returns a new ' +
    'secret this once; the previous one keeps signing too for 24 hours. Owners and admins.',
  kind: 'write',
  access: admins,
  input: z.strictObject({
    id,
    url: url.optional(),
    events: events.optional(),
    description: description.optional(),
    enabled: z.boolean({ error: 'must be true or false' }).optional(),
    rotateSecret: z.boolean({ error: 'must be true or false' }).optional(),
  }),
  async run(ctx, { id: webhookId, rotateSecret, ...input }) {
    const webhook = await findWebhook(ctx, webhookId);
    const data: Record<string, unknown> = {};
    if (input.url !== undefined) data.url = await checkedUrl(ctx, input.url);
    if (input.events !== undefined) data.events = input.events;
    if (input.description !== undefined) data.description = input.description;
    if (input.enabled !== undefined) {
      data.enabled = input.enabled;
      if (input.enabled) Object.assign(data, { disabledReason: null, failingSince: null });
    }
    let secret: string | null = null;
    if (rotateSecret) {
      secret = newSigningSecret();
      Object.assign(data, {
        secret: sealSecret(secret, ctx.config.webhooks.secretKey),
        previousSecret: webhook.secret,
        previousSecretExpiresAt: new Date(Date.now() + ROTATION_GRACE_MS),
      });
    }
    const updated = await ctx.prisma.webhook.update({ where: { id: webhook.id }, data });
    return { webhook: view(updated), secret };
  },
});

export const deleteWebhook = defineOperation({
  name: 'deleteWebhook',
  description: 'Deletes a webhook and its deliveries; returns its id. Owners and admins.',
  kind: 'write',
  access: admins,
  input: z.strictObject({ id }),
  async run(ctx, input) {
    const webhook = await findWebhook(ctx, input.id);
    await ctx.prisma.webhook.deleteMany({ where: { id: webhook.id, orgId: webhook.orgId } });
    return webhook.id;
  },
});

export type DeliveryView = Omit<WebhookDelivery, 'payload' | 'leaseUntil'>;
const DELIVERY_SELECT = {
  seq: true,
  id: true,
  webhookId: true,
  orgId: true,
  messageId: true,
  eventType: true,
  orderKey: true,
  state: true,
  attempts: true,
  nextAttemptAt: true,
  lastAttemptAt: true,
  responseStatus: true,
  responseBody: true,
  durationMs: true,
  error: true,
  createdAt: true,
  deliveredAt: true,
} as const;

export const listDeliveries = defineOperation({
  name: 'listWebhookDeliveries',
  description: `A webhook's deliveries, newest first, at most ${DELIVERIES_PAGE_MAX} per page. Owners and admins.`,
  kind: 'read',
  access: admins,
  input: z.strictObject({ webhookId: id, first: firstInput(DELIVERIES_PAGE_MAX), after: z.string().nullish() }),
  async run(ctx, input) {
    const webhook = await findWebhook(ctx, input.webhookId);
    const take = input.first ?? 50;
    const after = input.after && /^\d{1,19}$/.test(input.after) ? BigInt(input.after) : null;
    if (input.after && after === null)
      throw new ValidationError([{ field: 'after', message: 'is not a cursor this list gave' }]);
    const rows = await ctx.prisma.webhookDelivery.findMany({
      select: DELIVERY_SELECT,
      where: { webhookId: webhook.id, ...(after !== null ? { seq: { lt: after } } : {}) },
      orderBy: { seq: 'desc' },
      take: take + 1,
    });
    const page = rows.slice(0, take);
    return { deliveries: page as DeliveryView[], nextCursor: rows.length > take ? String(page.at(-1)!.seq) : null };
  },
});

/** Queues a message for one webhook and wakes this process's worker. */
async function enqueue(
  ctx: Context,
  webhook: Webhook,
  message: { messageId: string; eventType: string; payload: string },
): Promise<DeliveryView> {
  const delivery = await ctx.prisma.webhookDelivery.create({
    select: DELIVERY_SELECT,
    data: {
      webhookId: webhook.id,
      orgId: webhook.orgId,
      ...message,
      orderKey: null,
      nextAttemptAt: new Date(),
      traceparent: currentTraceparent(),
    },
  });
  eventsCommitted([], 1);
  return delivery as DeliveryView;
}

export const redeliver = defineOperation({
  name: 'redeliverWebhookDelivery',
  description:
    'Sends a delivery again, as a new delivery with the same webhook-id and body (receivers can tell it is the same message). Owners and admins.',
  kind: 'write',
  access: admins,
  input: z.strictObject({ webhookId: id, deliveryId: id }),
  async run(ctx, input) {
    const webhook = await findWebhook(ctx, input.webhookId);
    const original = isUuid(input.deliveryId)
      ? await ctx.prisma.webhookDelivery.findFirst({ where: { id: input.deliveryId, webhookId: webhook.id } })
      : null;
    if (!original) throw new NotFoundError('delivery');
    return enqueue(ctx, webhook, {
      messageId: original.messageId,
      eventType: original.eventType,
      payload: original.payload,
    });
  },
});

export const pingWebhook = defineOperation({
  name: 'pingWebhook',
  description:
    'Queues a `webhook.ping` message to the webhook, signed like every other, to check the endpoint. Owners and admins.',
  kind: 'write',
  access: admins,
  input: z.strictObject({ id }),
  async run(ctx, input) {
    const webhook = await findWebhook(ctx, input.id);
    const messageId = randomUUID();
    return enqueue(ctx, webhook, {
      messageId,
      eventType: 'webhook.ping',
      payload: pingPayload(messageId, webhook.orgId, webhook.id, new Date()),
    });
  },
});
