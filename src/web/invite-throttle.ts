import type { Context } from '../context.js';
import { drawFrom, giveBack } from '../limits/limiter.js';
import type { Policy } from '../limits/policy.js';
import { addressKey } from '../http/address-key.js';

const WINDOW_MS = 15 * 60 * 1000;

/**
 * Invitation links opened from one address that name no invitation. A code has 144 random bits,
 * so guessing is hopeless anyway; the bound keeps a prober from turning it into free lookups.
 * Lookups of links that name an invitation are given back: opening real links never fills it.
 */
export const INVITE_PROBE_POLICY: Policy = { name: 'invite.address', limit: 20, windowMs: WINDOW_MS };
/**
 * Sign-up attempts through invitation links from one address, successful or not. Each account
 * needs an unused invitation, and each attempt costs a password hash: a person correcting a few
 * mistakes fits, a loop does not.
 */
export const SIGN_UP_POLICY: Policy = { name: 'sign-up.address', limit: 10, windowMs: WINDOW_MS };

const probe = (ctx: Context) => ({ policy: INVITE_PROBE_POLICY, subject: `invite:${addressKey(ctx.clientIp)}` });

/** Draws an invitation lookup before it is made: Retry-After seconds when refused, else null. */
export const drawInviteLookup = (ctx: Context) => drawFrom(ctx, INVITE_PROBE_POLICY, probe(ctx).subject);

/** Takes back the lookup of a link that named an invitation. */
export const forgiveInviteLookup = (ctx: Context) => giveBack(ctx, [probe(ctx)]);

/** Draws a sign-up attempt before the form is checked: Retry-After seconds when refused, else null. */
export const drawSignUpAttempt = (ctx: Context) => drawFrom(ctx, SIGN_UP_POLICY, `sign-up:${addressKey(ctx.clientIp)}`);
