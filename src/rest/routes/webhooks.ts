import { z } from 'zod';
import { snakeField } from '../../events/outbox.js';
import { listIssueHistory, type HistoryEntry } from '../../schema/issues/history-operations.js';
import { PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../../schema/issues/operations.js';
import { DESCRIPTION_MAX } from '../../schema/issues/workflow.js';
import * as ops from '../../schema/webhooks/operations.js';
import { EVENT_TYPES } from '../../events/record.js';
import { ISSUE_FIELDS } from '../../events/subjects.js';
import { DISABLED_REASON_MAX, ERROR_MAX, RESPONSE_BODY_MAX } from '../../webhooks/send.js';
import { camelKeys, CURSOR_MAX, ID_MAX, integer, once, snakeBody } from '../inputs.js';
import { nextLink } from '../../http/links.js';
import { column, representation, timeColumn } from '../../schema/core/representation.js';
import { route } from '../route.js';

// ---- Representations (history, webhooks, deliveries): declared here, where their routes are. ----

/** A changed field's value: a title or description at most (the longest text an issue has). */
const Value = z.union([z.string().max(DESCRIPTION_MAX), z.number(), z.boolean(), z.null()]);
/** The fields an issue event can name (title, status, priority, description, assignee_id...). */
const FIELD_NAME_MAX = 32;

const HistoryEventJson = representation<HistoryEntry>(
  'IssueEvent',
  'One change of an issue: what, who, through what, when.',
  {
    id: column('id', z.uuid().meta({ description: 'The event id (the `id` of its webhook payload).' })),
    type: column(
      'type',
      z
        .enum([
          'issue.created',
          'issue.updated',
          'issue.deleted',
          'comment.created',
          'comment.updated',
          'comment.deleted',
        ])
        .meta({
          description: "The issue's own events, and those of its comments (whose changes lead with `comment_id`).",
        }),
    ),
    actor_id: column(
      'actorId',
      z.uuid().nullable().meta({ description: 'The user who made the change; null: the operator CLI.' }),
    ),
    via: column(
      'via',
      z
        .enum(['pat', 'oauth', 'session', 'cli'])
        .meta({ description: 'Through what: an API key, an OAuth client, a browser session, the CLI.' }),
    ),
    via_id: column(
      'viaId',
      z
        .string()
        .max(ID_MAX)
        .nullable()
        .meta({ description: 'The API key id (pat) or the OAuth client id (oauth); else null.' }),
    ),
    changes: {
      schema: z
        .array(z.strictObject({ field: z.string().max(FIELD_NAME_MAX), old: Value, new: Value }))
        .max(ISSUE_FIELDS.length)
        .meta({ description: 'Each field that changed (REST names), before and after; null: none.' }),
      value: (row) => row.changes.map((c) => ({ field: snakeField(c.field), old: c.old, new: c.new })),
    },
    created_at: timeColumn('createdAt', 'When.'),
  },
);

const webhookFields = {
  id: column<ops.WebhookView, 'id'>('id', z.uuid()),
  url: column<ops.WebhookView, 'url'>('url', z.url().max(ops.WEBHOOK_URL_MAX)),
  events: column<ops.WebhookView, 'events'>(
    'events',
    z.array(z.enum(ops.WEBHOOK_EVENTS)).max(ops.WEBHOOK_EVENTS.length),
  ),
  description: column<ops.WebhookView, 'description'>('description', z.string().max(ops.WEBHOOK_DESCRIPTION_MAX)),
  enabled: column<ops.WebhookView, 'enabled'>(
    'enabled',
    z
      .boolean()
      .meta({ description: 'false: paused by its owners, or disabled after failing for days (see disabled_reason).' }),
  ),
  disabled_reason: column<ops.WebhookView, 'disabledReason'>(
    'disabledReason',
    z.string().max(DISABLED_REASON_MAX).nullable().meta({ description: 'Why the service disabled it.' }),
  ),
  failing_since: timeColumn<ops.WebhookView, 'failingSince'>(
    'failingSince',
    'First failure since the last success; null: healthy.',
    true,
  ),
  rotating: column<ops.WebhookView, 'rotating'>(
    'rotating',
    z.boolean().meta({ description: 'The previous secret still signs too (24 h after a rotation).' }),
  ),
  created_at: timeColumn<ops.WebhookView, 'createdAt'>('createdAt', 'Creation time.'),
};
const WebhookJson = representation<ops.WebhookView>(
  'Webhook',
  "An endpoint receiving the organization's events. Never shows the secret.",
  webhookFields,
);

type WithSecret = { webhook: ops.WebhookView; secret: string | null };
const WebhookWithSecretJson = representation<WithSecret>(
  'WebhookWithSecret',
  'The webhook and, this once, its signing secret.',
  {
    ...Object.fromEntries(
      Object.entries(webhookFields).map(([name, field]) => [
        name,
        { ...field, value: (row: WithSecret) => field.value(row.webhook) },
      ]),
    ),
    secret: {
      // `whsec_` and 32 bytes in base64 (44 characters).
      schema: z.string().max(64).nullable().meta({
        description: 'The signing secret (`whsec_...`), when just created or rotated; null otherwise. Store it now.',
      }),
      value: (row) => row.secret,
    },
  },
);

const DeliveryJson = representation<ops.DeliveryView>(
  'WebhookDelivery',
  'One message to one webhook and how sending it went.',
  {
    id: column('id', z.uuid()),
    message_id: column(
      'messageId',
      z
        .uuid()
        .meta({ description: 'The `webhook-id` header: the event id, the same on every attempt and redelivery.' }),
    ),
    event_type: column('eventType', z.enum([...EVENT_TYPES, 'webhook.ping'])),
    status: column(
      'state',
      z
        .enum(['pending', 'delivered', 'failed'])
        .meta({ description: 'pending: queued or waiting for a retry; failed: given up.' }),
    ),
    attempt: column('attempts', z.int().min(0).meta({ description: 'Attempts made so far.' })),
    response_code: column(
      'responseStatus',
      z.int().nullable().meta({ description: 'HTTP status of the last attempt; null: no response.' }),
    ),
    response_body: column(
      'responseBody',
      z.string().max(RESPONSE_BODY_MAX).nullable().meta({ description: 'First 4 KB of the last response.' }),
    ),
    duration_ms: column('durationMs', z.int().nullable()),
    error: column(
      'error',
      z
        .string()
        .max(ERROR_MAX)
        .nullable()
        .meta({ description: 'Why the last attempt got no response (timeout, network, refused address).' }),
    ),
    next_attempt_at: {
      schema: z.iso.datetime().nullable().meta({ description: 'When it is tried next; null unless pending.' }),
      value: (row) => (row.state === 'pending' ? row.nextAttemptAt.toISOString() : null),
    },
    created_at: timeColumn('createdAt', 'When it was queued.'),
    delivered_at: timeColumn('deliveredAt', 'When a 2xx came back.', true),
  },
);

const HOOK_ID = '3f1c2a9e-6b0d-4e5f-9a8b-7c6d5e4f3a2b';
const EXAMPLES = {
  event: {
    id: '0b7e4d52-9c1a-4f3e-8d2b-5a6c7e8f9a0b',
    type: 'issue.updated',
    actor_id: '7d9e2c1b-4a5f-4e6d-8c7b-9a0b1c2d3e4f',
    via: 'pat',
    via_id: 'c2a1b3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
    changes: [{ field: 'status', old: 'In Progress', new: 'Done' }],
    created_at: '2026-11-23T10:15:00.000Z',
  },
  webhook: {
    id: HOOK_ID,
    url: 'https://hooks.example.com/workmgmt',
    events: ['issue.created', 'issue.updated'],
    description: 'Sync to the data warehouse',
    enabled: true,
    disabled_reason: null,
    failing_since: null,
    rotating: false,
    created_at: '2026-11-23T09:00:00.000Z',
  },
  delivery: {
    id: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
    message_id: '0b7e4d52-9c1a-4f3e-8d2b-5a6c7e8f9a0b',
    event_type: 'issue.updated',
    status: 'delivered',
    attempt: 1,
    response_code: 200,
    response_body: 'ok',
    duration_ms: 84,
    error: null,
    next_attempt_at: null,
    created_at: '2026-11-23T10:15:00.000Z',
    delivered_at: '2026-11-23T10:15:00.090Z',
  },
};
const withSecret = { ...EXAMPLES.webhook, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8Lg8f0GvEVo=' };
const queued = {
  ...EXAMPLES.delivery,
  id: '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e',
  status: 'pending',
  attempt: 0,
  response_code: null,
  response_body: null,
  duration_ms: null,
  next_attempt_at: '2026-11-23T10:20:00.000Z',
  delivered_at: null,
};

const WebhookId = z.object({ id: z.string().min(1).meta({ maxLength: ID_MAX, description: 'The webhook id.' }) });
const TAG = 'Webhooks';

export const webhookRoutes = [
  route({
    method: 'get',
    path: '/issues/{id}/history',
    operationId: 'listIssueHistory',
    summary: "An issue's history",
    tag: 'Issues',
    operation: listIssueHistory,
    params: z.object({
      id: z.string().min(1).meta({ maxLength: ID_MAX, description: 'The issue id or key (a deleted issue: its id).' }),
    }),
    query: z.object({
      limit: integer(listIssueHistory.input.shape.first.unwrap().unwrap())
        .optional()
        .meta({ description: `Page size, default ${PAGE_SIZE_DEFAULT}.` }),
      cursor: once(z.string().meta({ maxLength: CURSOR_MAX }))
        .optional()
        .meta({ description: 'Where to continue: take it from the `Link` header.' }),
    }),
    names: { first: 'limit', after: 'cursor' },
    success: {
      status: 200,
      description: 'One page of events, newest first.',
      schema: z.array(HistoryEventJson.schema).max(PAGE_SIZE_MAX),
      headers: ['Link'],
      examples: { page: [EXAMPLES.event] },
    },
    errors: { 404: 'No such issue here (a deleted one: only owners and admins see its history).' },
    async handle(ctx, { params, query, url }) {
      const page = await listIssueHistory.run(
        ctx,
        listIssueHistory.parse({ id: params.id, first: query.limit, after: query.cursor }),
        undefined,
      );
      const cursor = page.pageInfo.hasNextPage ? page.pageInfo.endCursor : null;
      return {
        body: page.edges.map((edge) => HistoryEventJson.present(edge!.node)),
        headers: nextLink(url, ctx.config.baseUrl, cursor),
      };
    },
  }),
  route({
    method: 'get',
    path: '/webhooks',
    operationId: 'listWebhooks',
    summary: 'Webhooks',
    tag: TAG,
    operation: ops.listWebhooks,
    success: {
      status: 200,
      description: 'The webhooks.',
      schema: z.array(WebhookJson.schema).max(ops.WEBHOOKS_PER_ORG_MAX),
      examples: { webhooks: [EXAMPLES.webhook] },
    },
    async handle(ctx) {
      return { body: (await ops.listWebhooks.run(ctx, {}, undefined)).map((w) => WebhookJson.present(w)) };
    },
  }),
  route({
    method: 'post',
    path: '/webhooks',
    operationId: 'createWebhook',
    summary: 'Create a webhook',
    tag: TAG,
    operation: ops.createWebhook,
    body: snakeBody(ops.createWebhook.input),
    success: {
      status: 201,
      description: 'The webhook and its signing secret (shown this once).',
      schema: WebhookWithSecretJson.schema,
      headers: ['Location'],
      examples: { created: withSecret },
    },
    errors: { 409: `The organization already has ${ops.WEBHOOKS_PER_ORG_MAX} webhooks (\`webhook_limit_reached\`).` },
    async handle(ctx, { body }) {
      const created = await ops.createWebhook.run(ctx, ops.createWebhook.parse(camelKeys(body)), undefined);
      return {
        body: WebhookWithSecretJson.present(created),
        headers: { location: `${ctx.config.baseUrl}/api/webhooks/${created.webhook.id}` },
      };
    },
  }),
  route({
    method: 'get',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    summary: 'A webhook',
    tag: TAG,
    operation: ops.getWebhook,
    params: WebhookId,
    success: {
      status: 200,
      description: 'The webhook.',
      schema: WebhookJson.schema,
      examples: { webhook: EXAMPLES.webhook },
    },
    errors: { 404: 'No such webhook here.' },
    async handle(ctx, { params }) {
      return { body: WebhookJson.present(await ops.getWebhook.run(ctx, ops.getWebhook.parse(params), undefined)) };
    },
  }),
  route({
    method: 'patch',
    path: '/webhooks/{id}',
    operationId: 'updateWebhook',
    summary: 'Change a webhook (or rotate its secret)',
    tag: TAG,
    operation: ops.updateWebhook,
    params: WebhookId,
    body: snakeBody(ops.updateWebhook.input, ['id']),
    success: {
      status: 200,
      description: 'The webhook; `secret` is set only when rotated.',
      schema: WebhookWithSecretJson.schema,
      examples: { rotated: withSecret, changed: { ...EXAMPLES.webhook, secret: null } },
    },
    errors: { 404: 'No such webhook here.' },
    async handle(ctx, { params, body }) {
      const updated = await ops.updateWebhook.run(
        ctx,
        ops.updateWebhook.parse({ ...camelKeys(body), id: params.id }),
        undefined,
      );
      return { body: WebhookWithSecretJson.present(updated) };
    },
  }),
  route({
    method: 'delete',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    summary: 'Delete a webhook',
    tag: TAG,
    operation: ops.deleteWebhook,
    params: WebhookId,
    success: { status: 204, description: 'Deleted, with its deliveries.' },
    errors: { 404: 'No such webhook here.' },
    async handle(ctx, { params }) {
      await ops.deleteWebhook.run(ctx, ops.deleteWebhook.parse(params), undefined);
      return {};
    },
  }),
  route({
    method: 'get',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    summary: "A webhook's deliveries",
    tag: TAG,
    operation: ops.listDeliveries,
    params: WebhookId,
    query: z.object({
      limit: integer(z.int().min(1).max(ops.DELIVERIES_PAGE_MAX))
        .optional()
        .meta({ description: 'Page size, default 50.' }),
      cursor: once(z.string().meta({ maxLength: CURSOR_MAX }))
        .optional()
        .meta({ description: 'Where to continue: take it from the `Link` header.' }),
    }),
    names: { first: 'limit', after: 'cursor', webhookId: 'id' },
    success: {
      status: 200,
      description: 'One page of deliveries, newest first.',
      schema: z.array(DeliveryJson.schema).max(ops.DELIVERIES_PAGE_MAX),
      headers: ['Link'],
      examples: { page: [EXAMPLES.delivery] },
    },
    errors: { 404: 'No such webhook here.' },
    async handle(ctx, { params, query, url }) {
      const page = await ops.listDeliveries.run(
        ctx,
        ops.listDeliveries.parse({ webhookId: params.id, first: query.limit, after: query.cursor }),
        undefined,
      );
      return {
        body: page.deliveries.map((d) => DeliveryJson.present(d)),
        headers: nextLink(url, ctx.config.baseUrl, page.nextCursor),
      };
    },
  }),
  route({
    method: 'post',
    path: '/webhooks/{id}/deliveries/{delivery_id}/redeliver',
    operationId: 'redeliverWebhookDelivery',
    summary: 'Send a delivery again',
    tag: TAG,
    operation: ops.redeliver,
    params: z.object({
      id: z.string().min(1).meta({ maxLength: ID_MAX }),
      delivery_id: z.string().min(1).meta({ maxLength: ID_MAX }),
    }),
    names: { webhookId: 'id', deliveryId: 'delivery_id' },
    success: {
      status: 201,
      description: 'The new delivery, queued.',
      schema: DeliveryJson.schema,
      examples: { queued },
    },
    errors: { 404: 'No such webhook or delivery here.' },
    async handle(ctx, { params }) {
      const delivery = await ops.redeliver.run(
        ctx,
        ops.redeliver.parse({ webhookId: params.id, deliveryId: params.delivery_id }),
        undefined,
      );
      return { body: DeliveryJson.present(delivery) };
    },
  }),
  route({
    method: 'post',
    path: '/webhooks/{id}/ping',
    operationId: 'pingWebhook',
    summary: 'Send a test message',
    tag: TAG,
    operation: ops.pingWebhook,
    params: WebhookId,
    success: {
      status: 201,
      description: 'The ping delivery, queued.',
      schema: DeliveryJson.schema,
      examples: { queued: { ...queued, event_type: 'webhook.ping' } },
    },
    errors: { 404: 'No such webhook here.' },
    async handle(ctx, { params }) {
      return { body: DeliveryJson.present(await ops.pingWebhook.run(ctx, ops.pingWebhook.parse(params), undefined)) };
    },
  }),
];
