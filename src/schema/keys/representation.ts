import { z } from 'zod';
import type { ApiKey } from '../../generated/prisma/client.js';
import { API_KEY_NAME_MAX } from './api-key.js';
import { apiKeyStatus, API_KEY_STATUSES } from './api-key-status.js';
import { column, representation, text, timeColumn, uuid, type Field } from '../core/representation.js';

/** An API key as REST answers it and the integrations page shows it. */

const ApiKeyStatusSchema = z
  .enum(API_KEY_STATUSES)
  .meta({ id: 'ApiKeyStatus', description: 'Derived: revoked, else expired, else active.' });

const apiKeyFields: Record<string, Field<ApiKey>> = {
  id: column('id', uuid('The key id.')),
  name: column('name', text(API_KEY_NAME_MAX, 'What the key is for.')),
  hint: column(
    'hint',
    z.string().min(4).max(4).meta({ description: 'The last 4 characters of the token, to recognise it.' }),
  ),
  status: {
    schema: ApiKeyStatusSchema,
    select: { revokedAt: true, expiresAt: true },
    value: (key) => apiKeyStatus(key),
  },
  user_id: column('userId', uuid('The user the key acts as (its creator).')),
  created_at: timeColumn('createdAt', 'Creation time.'),
  expires_at: timeColumn('expiresAt', 'When the key stops working; null: never.', true),
  last_used_at: timeColumn('lastUsedAt', 'Last use, to the minute; null: never used.', true),
  revoked_at: timeColumn('revokedAt', 'When it was revoked; null: not revoked.', true),
};
export const ApiKeyJson = representation<ApiKey>(
  'ApiKey',
  'An API key record: never the hash, never the token.',
  apiKeyFields,
);

export const CreatedApiKeyJson = representation<{ apiKey: ApiKey; token: string }>(
  'CreatedApiKey',
  'The new key record and, this once, its token.',
  {
    ...Object.fromEntries(
      Object.entries(apiKeyFields).map(([name, field]) => [
        name,
        { ...field, value: (row: { apiKey: ApiKey }) => field.value(row.apiKey) },
      ]),
    ),
    token: {
      schema: z
        .string()
        .length(41)
        .regex(/^tok_live_[0-9A-Za-z]{32}$/)
        .meta({
          description: 'The plaintext token: `tok_live_` and 32 base62 characters. Returned only here; store it now.',
        }),
      value: (row) => row.token,
    },
  },
);
