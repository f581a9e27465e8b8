import { z } from 'zod';
import { LIST_BOUNDS } from '../../schema/core/list-bounds.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../../schema/keys/api-key.js';
import { boolean, camelKeys, ID_MAX, snakeBody } from '../inputs.js';
import { ApiKeyJson, CreatedApiKeyJson } from '../../schema/keys/representation.js';
import { route } from '../route.js';
import { EXAMPLE } from './examples.js';

export const apiKeyRoutes = [
  route({
    method: 'get',
    path: '/api-keys',
    operationId: 'listApiKeys',
    summary: 'API keys',
    description:
      "The caller's keys in the organization, newest first; `all=true` (owners and admins): every key of the organization.",
    tag: 'API keys',
    operation: listApiKeys,
    query: z.object({
      all: boolean(listApiKeys.input.shape.all).meta({ description: "Everyone's keys (owners and admins)." }),
    }),
    success: {
      status: 200,
      description: 'The keys.',
      schema: z.array(ApiKeyJson.schema).max(LIST_BOUNDS.apiKeys),
      examples: { keys: [EXAMPLE.apiKey] },
    },
    async handle(ctx, { query }) {
      const keys = await listApiKeys.run(ctx, listApiKeys.parse(query), { select: ApiKeyJson.select });
      return { body: keys.map((key) => ApiKeyJson.present(key as never)) };
    },
  }),
  route({
    method: 'post',
    path: '/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key',
    description:
      'Acting as the caller in this organization; the token is returned this once. Owners, admins and managers, from a session or an OAuth token (never from another key). At most 20 active keys per user per organization (else 409 `key_limit_reached`).',
    tag: 'API keys',
    operation: createApiKey,
    body: snakeBody(createApiKey.input),
    success: {
      status: 201,
      description: 'The key and its token.',
      schema: CreatedApiKeyJson.schema,
      headers: ['Location'],
      examples: { created: EXAMPLE.createdApiKey },
    },
    errors: { 409: 'The caller already has 20 active keys in this organization (`key_limit_reached`).' },
    async handle(ctx, { body }) {
      const created = await createApiKey.run(ctx, createApiKey.parse(camelKeys(body)), undefined);
      return {
        body: CreatedApiKeyJson.present(created),
        headers: { location: `${ctx.config.baseUrl}/api/api-keys/${created.apiKey.id}` },
      };
    },
  }),
  route({
    method: 'delete',
    path: '/api-keys/{id}',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key',
    description:
      "Its next request gets 401 `token_revoked`. Idempotent. The key's owner, or the organization's owners and admins; never from another key.",
    tag: 'API keys',
    operation: revokeApiKey,
    params: z.object({ id: z.string().min(1).meta({ maxLength: ID_MAX, description: 'The key id.' }) }),
    success: { status: 204, description: 'Revoked.' },
    errors: { 404: 'No such key (or not one the caller may manage).' },
    async handle(ctx, { params }) {
      await revokeApiKey.run(ctx, revokeApiKey.parse(params), { select: { id: true } });
      return {};
    },
  }),
];
