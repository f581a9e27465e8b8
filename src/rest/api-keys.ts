import type { Context } from '../context.js';
import { readJsonObject } from './body.js';
import { json } from './json.js';
import { defineOperation, ERROR_FIELDS, FIELD_ERRORS, runOperation, unwrapResult } from './operation.js';
import { queryValue, snakeToCamelKeys } from './params.js';

const KEY_FIELDS = /* GraphQL */ `
  fragment KeyFields on ApiKey { id name hint status createdAt expiresAt lastUsedAt revokedAt ownerId }
`;

export const LIST_KEYS = defineOperation(/* GraphQL */ `
  query ListApiKeys($all: Boolean) { apiKeys(all: $all) { ...KeyFields } }
  ${KEY_FIELDS}
`);

export const CREATE_KEY = defineOperation(/* GraphQL */ `
  mutation CreateApiKey($input: CreateApiKeyInput!) {
    createApiKey(input: $input) {
      ... on MutationCreateApiKeySuccess { data { token apiKey { ...KeyFields } } }
      ... on RateLimitedError { retryAfter }
      ${ERROR_FIELDS}
      ${FIELD_ERRORS}
    }
  }
  ${KEY_FIELDS}
`);

export const REVOKE_KEY = defineOperation(/* GraphQL */ `
  mutation RevokeApiKey($id: ID!) {
    revokeApiKey(id: $id) {
      ... on MutationRevokeApiKeySuccess { data { id } }
      ${ERROR_FIELDS}
    }
  }
`);

export interface KeyNode {
  id: string;
  name: string;
  hint: string;
  status: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  ownerId: string;
}

/** An API key record as clients see it: never the hash, never the token. */
export function keyJson(key: KeyNode) {
  return {
    id: key.id,
    name: key.name,
    hint: key.hint,
    status: key.status,
    user_id: key.ownerId,
    created_at: key.createdAt,
    expires_at: key.expiresAt,
    last_used_at: key.lastUsedAt,
    revoked_at: key.revokedAt,
  };
}

/** GET /api/api-keys[?all=true] */
export async function listApiKeys(request: Request, ctx: Context): Promise<Response> {
  const all = queryValue(new URL(request.url), 'all');
  const { apiKeys } = await runOperation<{ apiKeys: KeyNode[] }>(LIST_KEYS, ctx, { all: all === undefined ? undefined : all === 'true' ? true : all });
  return json(apiKeys.map(keyJson));
}

/** POST /api/api-keys: 201 with the key and, this once, its token. */
export async function createApiKey(request: Request, ctx: Context): Promise<Response> {
  const input = snakeToCamelKeys(await readJsonObject(request));
  const { createApiKey } = await runOperation<{ createApiKey: Parameters<typeof unwrapResult<{ token: string; apiKey: KeyNode }>>[0] }>(
    CREATE_KEY,
    ctx,
    { input },
  );
  const { token, apiKey } = unwrapResult(createApiKey);
  return json({ ...keyJson(apiKey), token }, { status: 201, headers: { location: `${ctx.config.baseUrl}/api/api-keys/${apiKey.id}` } });
}

/** DELETE /api/api-keys/:id: revokes; 204. */
export async function revokeApiKey(_request: Request, ctx: Context, params: Record<string, string | undefined>): Promise<Response> {
  const { revokeApiKey } = await runOperation<{ revokeApiKey: Parameters<typeof unwrapResult<{ id: string }>>[0] }>(REVOKE_KEY, ctx, {
    id: params.id,
  });
  unwrapResult(revokeApiKey);
  return new Response(null, { status: 204 });
}
