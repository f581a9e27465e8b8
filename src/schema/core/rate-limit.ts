import { drawFrom } from '../../limits/limiter.js';
import type { Policy } from '../../limits/policy.js';
import type { Context } from '../../context.js';
import { RateLimitedError } from './errors.js';
import { addressKey } from '../../http/address-key.js';
import { BULK_ITEMS_PER_REQUEST } from './bulk.js';

/**
 * Charges a bulk call of `items` items to the request's global bucket: one request more per
 * BULK_ITEMS_PER_REQUEST items, on top of the one the request itself paid, all or none, on
 * every surface (REST, GraphQL, MCP and pages call the operation that calls this).
 */
export async function chargeItems(ctx: Context, items: number): Promise<void> {
  if (ctx.principal.kind === 'operator') return;
  const wait = (await ctx.drawRequest?.(Math.ceil(items / BULK_ITEMS_PER_REQUEST))) ?? null;
  if (wait !== null) throw new RateLimitedError(wait);
}

/**
 * Draws one request from an operation's own bucket (on top of the global one), atomically,
 * in the same store. Called by the resolver, so a REST route and the GraphQL field behind it
 * share the bucket. The decision joins the response's rate-limit headers.
 */
export async function limitOperation(ctx: Context, policy: Policy, subject?: string): Promise<void> {
  // An operator at the console is not a client to slow down.
  if (ctx.principal.kind === 'operator') return;
  const wait = await drawFrom(ctx, policy, subject ?? credentialSubject(ctx));
  if (wait !== null) throw new RateLimitedError(wait);
}

/** Per-token buckets, like the global one: a key, an OAuth grant, a session; without one, the address. */
export function credentialSubject(ctx: Context): string {
  const { principal } = ctx;
  return principal.kind === 'user'
    ? `${principal.credential.kind}:${principal.credential.id}`
    : `ip:${addressKey(ctx.clientIp)}`;
}
