import { builder } from '../core/builder.js';
import { ConflictError, NotFoundError, ValidationError } from '../core/errors.js';
import { boundedList, firstArg, fixedList, textCost } from '../core/list-bounds.js';
import { DISABLED_REASON_MAX, ERROR_MAX, RESPONSE_BODY_MAX } from '../../webhooks/send.js';
import * as ops from './operations.js';
import { outcome } from '../core/outcome.js';

const WebhookDeliveryRef = builder.objectRef<ops.DeliveryView>('WebhookDelivery').implement({
  description: 'One message to one webhook, and how its sending went.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The delivery id: what redeliverWebhookDelivery takes.' }),
    messageId: t.exposeString('messageId', {
      description: 'The webhook-id header: the event id, the same on every attempt and redelivery.',
    }),
    eventType: t.exposeString('eventType', {
      description: 'The event it carries (issue.created ... project.deleted), or webhook.ping.',
    }),
    state: t.exposeString('state', { description: 'pending (queued or retrying), delivered or failed (gave up).' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far.' }),
    responseStatus: t.int({
      nullable: true,
      description: "The last attempt's HTTP status; null if no response came.",
      resolve: (d) => d.responseStatus,
    }),
    responseBody: t.string({
      nullable: true,
      description: 'The first 4 KB of the last response.',
      complexity: textCost(RESPONSE_BODY_MAX),
      resolve: (d) => d.responseBody,
    }),
    durationMs: t.int({
      nullable: true,
      description: 'How long the last attempt took, in milliseconds; null before the first.',
      resolve: (d) => d.durationMs,
    }),
    error: t.string({
      nullable: true,
      description: 'Why the last attempt got no response.',
      complexity: textCost(ERROR_MAX),
      resolve: (d) => d.error,
    }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it is tried next; null unless pending.',
      resolve: (d) => (d.state === 'pending' ? d.nextAttemptAt : null),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was queued.', resolve: (d) => d.createdAt }),
    deliveredAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When a 2xx came back; null until then.',
      resolve: (d) => d.deliveredAt,
    }),
  }),
});

const WebhookRef = builder.objectRef<ops.WebhookView>('Webhook').implement({
  description: "An endpoint that receives the organization's events, signed with the Standard Webhooks scheme.",
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The webhook id.' }),
    url: t.exposeString('url', {
      description: 'Where the events are POSTed.',
      complexity: textCost(ops.WEBHOOK_URL_MAX),
    }),
    events: t.exposeStringList('events', {
      description: 'The event types it receives, or ["*"] for all.',
      complexity: fixedList(ops.WEBHOOK_EVENTS.length),
    }),
    description: t.exposeString('description', {
      description: 'What its owners wrote about it.',
      complexity: textCost(ops.WEBHOOK_DESCRIPTION_MAX),
    }),
    enabled: t.exposeBoolean('enabled', {
      description: 'false: paused by its owners, or disabled after failing for days (see disabledReason).',
    }),
    disabledReason: t.string({
      nullable: true,
      description: 'Why the service disabled it, if it did.',
      complexity: textCost(DISABLED_REASON_MAX),
      resolve: (w) => w.disabledReason,
    }),
    failingSince: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'First failure since the last success; null while healthy.',
      resolve: (w) => w.failingSince,
    }),
    rotating: t.exposeBoolean('rotating', {
      description: 'A rotated-out secret still signs too (until its grace period ends).',
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was added.', resolve: (w) => w.createdAt }),
    deliveries: t.field({
      type: [WebhookDeliveryRef],
      description: 'Newest first.',
      args: { first: t.arg.int(firstArg(ops.DELIVERIES_PAGE_MAX)) },
      complexity: boundedList(ops.DELIVERIES_PAGE_MAX),
      resolve: async (w, args, ctx) =>
        (await ops.listDeliveries.call(ctx, { webhookId: w.id, first: args.first }, undefined)).deliveries,
    }),
  }),
});

const WebhookWithSecret = builder
  .objectRef<{ webhook: ops.WebhookView; secret: string | null }>('WebhookWithSecret')
  .implement({
    description: 'A webhook just created or changed, with its signing secret when there is a new one.',
    fields: (t) => ({
      webhook: t.field({
        type: WebhookRef,
        description: 'The webhook, as listed from now on.',
        resolve: (r) => r.webhook,
      }),
      secret: t.string({
        nullable: true,
        description: 'The signing secret (whsec_...), only when just created or rotated. Store it now.',
        resolve: (r) => r.secret,
      }),
    }),
  });

builder.queryField('webhooks', (t) =>
  t.field({
    type: [WebhookRef],
    description: ops.listWebhooks.description,
    complexity: fixedList(ops.WEBHOOKS_PER_ORG_MAX),
    resolve: (_r, _a, ctx) => ops.listWebhooks.call(ctx, {}, undefined),
  }),
);

builder.queryField('webhook', (t) =>
  t.field({
    type: WebhookRef,
    description: ops.getWebhook.description,
    errors: outcome('webhook', 'The webhook.', [NotFoundError]),
    args: { id: t.arg.id({ required: true, description: 'The webhook id.' }) },
    resolve: (_r, args, ctx) => ops.getWebhook.call(ctx, args, undefined),
  }),
);

const CreateWebhookInput = builder.inputType('CreateWebhookInput', {
  description: 'A new webhook: where to send which events.',
  fields: (t) => ({
    url: t.string({ description: 'https; must resolve to public addresses.' }),
    events: t.stringList({ description: `Any of: ${ops.WEBHOOK_EVENTS.join(', ')}.` }),
    description: t.string({ required: false, description: 'What it is for (at most 500 characters).' }),
  }),
});

const UpdateWebhookInput = builder.inputType('UpdateWebhookInput', {
  description: 'Fields left out stay as they are.',
  fields: (t) => ({
    url: t.string({ required: false, description: 'A new URL: https, on public addresses.' }),
    events: t.stringList({
      required: false,
      description: `A new list of event types: any of ${ops.WEBHOOK_EVENTS.join(', ')}.`,
    }),
    description: t.string({ required: false, description: 'What it is for (at most 500 characters).' }),
    enabled: t.boolean({ required: false, description: 'true turns a paused or disabled webhook back on.' }),
    rotateSecret: t.boolean({ required: false, description: 'A new secret; the previous one signs too for 24 hours.' }),
  }),
});

builder.mutationField('createWebhook', (t) =>
  t.field({
    type: WebhookWithSecret,
    description: ops.createWebhook.description,
    errors: outcome('createWebhook', 'The webhook, with its signing secret (shown this once).', [
      ValidationError,
      ConflictError,
    ]),
    args: {
      input: t.arg({ type: CreateWebhookInput, required: true, description: 'Its URL, events and description.' }),
    },
    resolve: (_r, args, ctx) => ops.createWebhook.call(ctx, args.input, undefined),
  }),
);

builder.mutationField('updateWebhook', (t) =>
  t.field({
    type: WebhookWithSecret,
    description: ops.updateWebhook.description,
    errors: outcome('updateWebhook', 'The webhook as changed, with its new signing secret when it was rotated.', [
      ValidationError,
      NotFoundError,
    ]),
    args: {
      id: t.arg.id({ required: true, description: 'The webhook id.' }),
      input: t.arg({ type: UpdateWebhookInput, required: true, description: 'The fields to change.' }),
    },
    resolve: (_r, args, ctx) => ops.updateWebhook.call(ctx, { ...args.input, id: args.id }, undefined),
  }),
);

builder.mutationField('deleteWebhook', (t) =>
  t.field({
    type: 'ID',
    description: ops.deleteWebhook.description,
    errors: outcome('deleteWebhook', 'The id of the deleted webhook.', [NotFoundError]),
    args: { id: t.arg.id({ required: true, description: 'The webhook id.' }) },
    resolve: (_r, args, ctx) => ops.deleteWebhook.call(ctx, args, undefined),
  }),
);

builder.mutationField('pingWebhook', (t) =>
  t.field({
    type: WebhookDeliveryRef,
    description: ops.pingWebhook.description,
    errors: outcome('pingWebhook', 'The delivery of the ping: its status and the response.', [NotFoundError]),
    args: { id: t.arg.id({ required: true, description: 'The webhook id.' }) },
    resolve: (_r, args, ctx) => ops.pingWebhook.call(ctx, args, undefined),
  }),
);

builder.mutationField('redeliverWebhookDelivery', (t) =>
  t.field({
    type: WebhookDeliveryRef,
    description: ops.redeliver.description,
    errors: outcome('redeliverWebhookDelivery', 'The new delivery of the same message.', [NotFoundError]),
    args: {
      webhookId: t.arg.id({ required: true, description: 'The webhook the delivery was for.' }),
      deliveryId: t.arg.id({ required: true, description: 'The delivery whose message is sent again.' }),
    },
    resolve: (_r, args, ctx) => ops.redeliver.call(ctx, args, undefined),
  }),
);
