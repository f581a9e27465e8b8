import { z } from 'zod';
import { mintApiKey } from '../../auth/api-keys.js';
import type { ApiKey } from '../../generated/prisma/client.js';
import { roleAtLeast } from '../../auth/principal.js';
import { ROUTE_POLICIES } from '../../limits/policy.js';
import { builder } from '../core/builder.js';
import { boundedList, firstArg, firstInput, LIST_BOUNDS } from '../core/list-bounds.js';
import { ConflictError, ForbiddenError, NotFoundError, RateLimitedError, ValidationError } from '../core/errors.js';
import type { CredentialEpoch } from '../../auth/credential-epoch.js';
import type { Db } from '../../db/client.js';
import type { Prisma } from '../../generated/prisma/client.js';
import { apiKeyStatus, type API_KEY_STATUSES } from './api-key-status.js';
import { instant } from '../core/dates.js';
import { notNull } from '../core/messages.js';
import { defineOperation } from '../core/operation.js';
import { nonEmpty } from '../core/selection.js';
import { isUuid } from '../core/uuid.js';
import { activeOrgId, viewer } from '../people/viewer.js';
import { storableString } from '../core/text.js';
import { outcome } from '../core/outcome.js';
import { lockMembership } from '../../db/row-locks.js';

/** Spec: at most 20 active keys per user per organization. */
const MAX_ACTIVE_KEYS = 20;

/**
 * Revoked and expired keys kept per user per organization, for the list's record of what was
 * used; older ones are deleted when a key is created, so a user's keys in an organization never
 * exceed MAX_ACTIVE_KEYS + KEPT_INACTIVE_KEYS rows, however long they keep rotating.
 */
export const KEPT_INACTIVE_KEYS = 100;

async function pruneInactiveKeys(tx: Prisma.TransactionClient, orgId: string, userId: string, now: Date) {
  const beyond = await tx.apiKey.findMany({
    where: { orgId, userId, OR: [{ revokedAt: { not: null } }, { expiresAt: { lte: now } }] },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: KEPT_INACTIVE_KEYS,
    select: { id: true },
  });
  if (beyond.length) await tx.apiKey.deleteMany({ where: { id: { in: beyond.map((key) => key.id) } } });
}

const ApiKeyStatus = builder.enumType('ApiKeyStatus', {
  description: 'Whether a key still works, from its revocation and expiry times.',
  values: {
    active: { description: 'It authenticates requests.' },
    expired: { description: 'Its expiry time has passed; it no longer authenticates.' },
    revoked: { description: 'Revoked by its owner or an admin; it no longer authenticates.' },
  } satisfies Record<(typeof API_KEY_STATUSES)[number], unknown>,
});

const ApiKeyRef = builder.prismaObject('ApiKey', {
  description: 'A personal access token. Its secret is shown once, at creation, and never stored.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The key id (not the token): what revokeApiKey takes.' }),
    name: t.exposeString('name', { description: 'What the key is for, as its creator named it.' }),
    hint: t.exposeString('hint', { description: 'The last 4 characters of the token, to recognise it.' }),
    ownerId: t.exposeID('userId', { description: 'The user the key acts as.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When it was created.' }),
    expiresAt: t.expose('expiresAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it stops working; null if it never expires.',
    }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'To the minute.' }),
    revokedAt: t.expose('revokedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was revoked; null while not revoked.',
    }),
    status: t.field({
      type: ApiKeyStatus,
      description: 'Whether it works now: revoked before expired, expired before active.',
      select: { revokedAt: true, expiresAt: true },
      resolve: (key) => apiKeyStatus(key),
    }),
  }),
});

export const listApiKeys = defineOperation({
  name: 'listApiKeys',
  description: `The caller's API keys in the organization, newest first, at most ${LIST_BOUNDS.apiKeys}; with all: true (owners and admins), everyone's.`,
  kind: 'read',
  access: { role: 'viewer' },
  input: z.strictObject({
    all: z.boolean({ error: (issue) => (issue.input === undefined ? undefined : 'must be true or false') }).nullish(),
    first: firstInput(LIST_BOUNDS.apiKeys),
  }),
  run(ctx, { all, first }, query: { select?: Prisma.ApiKeySelect }) {
    const me = viewer(ctx);
    const orgId = activeOrgId(ctx);
    if (all && !roleAtLeast(me.org!.role, 'admin'))
      throw new ForbiddenError('Only owners and admins can list every key.');
    return ctx.prisma.apiKey.findMany({
      ...query,
      where: { orgId, ...(all ? {} : { userId: me.userId }) },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: first ?? LIST_BOUNDS.apiKeys,
    });
  },
});

builder.queryField('apiKeys', (t) =>
  t.prismaField({
    type: ['ApiKey'],
    description: listApiKeys.description,
    args: {
      all: t.arg.boolean({
        required: false,
        description: "true: every member's keys (owners and admins only); default: your own.",
      }),
      first: t.arg.int(firstArg(LIST_BOUNDS.apiKeys)),
    },
    complexity: boundedList(LIST_BOUNDS.apiKeys),
    resolve: (query, _root, args, ctx) => listApiKeys.call(ctx, args, query),
  }),
);

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  description: 'A new API key: its name and, optionally, when it expires.',
  fields: (t) => ({
    name: t.string({ description: 'What the key is for, e.g. "CI deploys".' }),
    expiresAt: t.field({ type: 'DateTime', required: false, description: 'Optional; in the future.' }),
  }),
});

export const API_KEY_NAME_MAX = 100;

const CreatedApiKey = builder.objectRef<{ apiKey: ApiKey; token: string }>('CreatedApiKey').implement({
  description: 'A key just created, with its token: the only answer that ever holds the token.',
  fields: (t) => ({
    apiKey: t.field({
      type: ApiKeyRef,
      description: 'The key as listed from now on (without its token).',
      resolve: (created) => created.apiKey,
    }),
    token: t.exposeString('token', { description: 'The plaintext token. This is the only time it is ever returned.' }),
  }),
});

export const createApiKey = defineOperation({
  name: 'createApiKey',
  description: `Creates an API key acting as the caller in this organization. Owners, admins and managers, from a session or OAuth token (never from another key); at most ${MAX_ACTIVE_KEYS} active keys per user per organization; 10 creations per hour per user.`,
  kind: 'write',
  access: { notPat: true, role: 'manager' },
  rateLimit: { policy: ROUTE_POLICIES.apiKeyCreate, subject: (ctx) => `user:${viewer(ctx).userId}` },
  input: z.strictObject({
    name: storableString(notNull('must be a string'))
      .trim()
      .min(1, 'must not be empty')
      .max(API_KEY_NAME_MAX, `must be at most ${API_KEY_NAME_MAX} characters`),
    expiresAt: instant.refine((d) => d.getTime() > Date.now(), 'must be in the future').nullish(),
  }),
  async run(ctx, input) {
    const me = viewer(ctx);
    const orgId = activeOrgId(ctx);
    return ctx.prisma.$transaction(async (tx) => {
      // Locking the membership row serialises this user's creations in this org, so two
      // concurrent requests cannot both see 19 active keys and make a 21st.
      await lockMembership(tx, orgId, me.userId);
      const now = new Date();
      const active = await tx.apiKey.count({
        where: { orgId, userId: me.userId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
      });
      if (active >= MAX_ACTIVE_KEYS) {
        const message = `You already have ${MAX_ACTIVE_KEYS} active keys in this organization. Revoke one first.`;
        throw new ConflictError(message, 'KEY_LIMIT_REACHED', { limit: MAX_ACTIVE_KEYS });
      }
      await pruneInactiveKeys(tx, orgId, me.userId, now);
      const { key, token } = await mintApiKey(tx, {
        userId: me.userId,
        orgId,
        name: input.name,
        expiresAt: input.expiresAt,
      });
      return { apiKey: key, token };
    });
  },
});

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: CreatedApiKey,
    description: createApiKey.description,
    errors: outcome('createApiKey', 'The new key, with its token (shown this once).', [
      ValidationError,
      ConflictError,
      RateLimitedError,
    ]),
    args: { input: t.arg({ type: CreateApiKeyInput, required: true, description: 'The name and expiry of the key.' }) },
    resolve: (_root, args, ctx) => createApiKey.call(ctx, args.input, undefined),
  }),
);

/**
 * Revokes a key (idempotent: a revoked key keeps its first revocation time), then announces the
 * credential change: every instance drops its cached keys before the caller hears back, so the
 * key's next request is looked up (and refused) wherever it lands. The one revocation, shared by
 * the operation below and the admin CLI (which has no organization to check against).
 */
export async function revokeKeyRow(
  db: Db,
  epoch: CredentialEpoch,
  where: { id: string; orgId?: string },
  select: Prisma.ApiKeySelect = { id: true },
) {
  const key = await db.apiKey.findFirst({ where, select: { id: true, revokedAt: true } });
  if (!key) return null;
  const revoked = await db.apiKey.update({
    select,
    where: { id: key.id },
    data: { revokedAt: key.revokedAt ?? new Date() },
  });
  await epoch.bump();
  return revoked;
}

export const revokeApiKey = defineOperation({
  name: 'revokeApiKey',
  description:
    "Revokes a key at once: its next request gets 401. A key's owner may revoke it, and so may the organization's owners and admins. Never from another key.",
  kind: 'write',
  access: { notPat: true, role: 'viewer' },
  input: z.strictObject({ id: z.string() }),
  async run(ctx, { id }, query: { select?: Prisma.ApiKeySelect }) {
    const me = viewer(ctx);
    const orgId = activeOrgId(ctx);
    const key = isUuid(id)
      ? await ctx.prisma.apiKey.findFirst({ where: { id, orgId }, select: { id: true, userId: true } })
      : null;
    // Someone else's key is as invisible as a missing one unless you may manage it.
    if (!key || (key.userId !== me.userId && !roleAtLeast(me.org!.role, 'admin'))) throw new NotFoundError('API key');
    const revoked = await revokeKeyRow(ctx.prisma, ctx.credentialEpoch, { id: key.id, orgId }, nonEmpty(query).select);
    if (!revoked) throw new NotFoundError('API key');
    return revoked;
  },
});

builder.mutationField('revokeApiKey', (t) =>
  t.prismaField({
    type: 'ApiKey',
    description: revokeApiKey.description,
    errors: outcome('revokeApiKey', 'The key, now revoked.', [NotFoundError]),
    args: {
      id: t.arg.id({
        required: true,
        description: 'The id of the key (one of your own; any key of the organization for owners and admins).',
      }),
    },
    resolve: (query, _root, args, ctx) => revokeApiKey.call(ctx, args, query),
  }),
);
