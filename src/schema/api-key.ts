import { z } from 'zod';
import { mintApiKey } from '../auth/api-keys.js';
import type { ApiKey } from '../generated/prisma/client.js';
import { roleAtLeast } from '../auth/principal.js';
import { ROUTE_POLICIES } from '../limits/policy.js';
import { builder } from './builder.js';
import { ConflictError, ForbiddenError, NotFoundError, RateLimitedError, ValidationError } from './errors.js';
import { limitOperation } from './rate-limit.js';
import { nonEmpty } from './selection.js';
import { validate } from './validate.js';
import { activeOrgId, viewer } from './viewer.js';

/** Spec: at most 20 active keys per user per organization. */
export const MAX_ACTIVE_KEYS = 20;

const ApiKeyStatus = builder.enumType('ApiKeyStatus', { values: ['active', 'revoked', 'expired'] as const });

function status(key: { revokedAt: Date | null; expiresAt: Date | null }, now = new Date()) {
  if (key.revokedAt) return 'revoked' as const;
  if (key.expiresAt && key.expiresAt <= now) return 'expired' as const;
  return 'active' as const;
}

const ApiKeyRef = builder.prismaObject('ApiKey', {
  description: 'A personal access token. Its secret is shown once, at creation, and never stored.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    hint: t.exposeString('hint', { description: 'The last 4 characters of the token, to recognise it.' }),
    ownerId: t.exposeID('userId', { description: 'The user the key acts as.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true, description: 'To the minute.' }),
    revokedAt: t.expose('revokedAt', { type: 'DateTime', nullable: true }),
    status: t.field({
      type: ApiKeyStatus,
      select: { revokedAt: true, expiresAt: true },
      resolve: (key) => status(key),
    }),
  }),
});

builder.queryField('apiKeys', (t) =>
  t.prismaField({
    type: ['ApiKey'],
    description: "The caller's API keys in the organization, newest first; with all: true (owners and admins), everyone's.",
    authScopes: { role: 'viewer' },
    args: { all: t.arg.boolean({ required: false }) },
    resolve: (query, _root, args, ctx) => {
      const me = viewer(ctx);
      const orgId = activeOrgId(ctx);
      if (args.all && !roleAtLeast(me.org!.role, 'admin')) throw new ForbiddenError('Only owners and admins can list every key.');
      return ctx.prisma.apiKey.findMany({
        ...query,
        where: { orgId, ...(args.all ? {} : { userId: me.userId }) },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      });
    },
  }),
);

const CreateApiKeyInput = builder.inputType('CreateApiKeyInput', {
  fields: (t) => ({
    name: t.string({ description: 'What the key is for, e.g. "CI deploys".' }),
    expiresAt: t.field({ type: 'DateTime', required: false, description: 'Optional; in the future.' }),
  }),
});

const CreateApiKey = z.object({
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  expiresAt: z
    .date()
    .refine((d) => d.getTime() > Date.now(), 'must be in the future')
    .nullish(),
});

const CreatedApiKey = builder.objectRef<{ apiKey: ApiKey; token: string }>('CreatedApiKey').implement({
  fields: (t) => ({
    apiKey: t.field({ type: ApiKeyRef, resolve: (created) => created.apiKey }),
    token: t.exposeString('token', { description: 'The plaintext token. This is the only time it is ever returned.' }),
  }),
});

builder.mutationField('createApiKey', (t) =>
  t.field({
    type: CreatedApiKey,
    description: `Creates an API key acting as the caller in this organization. Owners, admins and managers, from a session or OAuth token (never from another key); at most ${MAX_ACTIVE_KEYS} active keys per user per organization; 10 creations per hour per user.`,
    authScopes: { notPat: true, role: 'manager' },
    errors: { types: [ValidationError, ConflictError, RateLimitedError] },
    args: { input: t.arg({ type: CreateApiKeyInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const me = viewer(ctx);
      const orgId = activeOrgId(ctx);
      await limitOperation(ctx, ROUTE_POLICIES.apiKeyCreate, `user:${me.userId}`);
      const input = validate(CreateApiKey, args.input);
      return ctx.prisma.$transaction(async (tx) => {
        // Locking the membership row serialises this user's creations in this org, so two
        // concurrent requests cannot both see 19 active keys and make a 21st.
        await tx.$queryRaw`SELECT id FROM memberships WHERE org_id = ${orgId}::uuid AND user_id = ${me.userId}::uuid FOR UPDATE`;
        const now = new Date();
        const active = await tx.apiKey.count({
          where: { orgId, userId: me.userId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
        });
        if (active >= MAX_ACTIVE_KEYS) {
          throw new ConflictError(`You already have ${MAX_ACTIVE_KEYS} active keys in this organization. Revoke one first.`, 'KEY_LIMIT_REACHED');
        }
        const { key, token } = await mintApiKey(tx, { userId: me.userId, orgId, name: input.name, expiresAt: input.expiresAt });
        return { apiKey: key, token };
      });
    },
  }),
);

builder.mutationField('revokeApiKey', (t) =>
  t.prismaField({
    type: 'ApiKey',
    description:
      "Revokes a key at once: its next request gets 401. A key's owner may revoke it, and so may the organization's owners and admins. Never from another key.",
    authScopes: { notPat: true, role: 'viewer' },
    errors: { types: [NotFoundError] },
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      const me = viewer(ctx);
      const orgId = activeOrgId(ctx);
      const id = z.uuid().safeParse(args.id);
      const key = id.success ? await ctx.prisma.apiKey.findFirst({ where: { id: id.data, orgId }, select: { id: true, userId: true, revokedAt: true } }) : null;
      // Someone else's key is as invisible as a missing one unless you may manage it.
      if (!key || (key.userId !== me.userId && !roleAtLeast(me.org!.role, 'admin'))) throw new NotFoundError('API key');
      const revoked = await ctx.prisma.apiKey.update({ ...nonEmpty(query), where: { id: key.id }, data: { revokedAt: key.revokedAt ?? new Date() } });
      // Committed; now every instance drops its cached keys before this answer goes out, so the
      // key's next request is looked up (and refused) wherever it lands.
      await ctx.credentialEpoch.bump();
      return revoked;
    },
  }),
);
