import type { Context } from '../context.js';
import { drawFromEach, giveBack, type Draw } from '../limits/limiter.js';
import type { Policy } from '../limits/policy.js';
import { addressKey } from '../http/address-key.js';

const WINDOW_MS = 15 * 60 * 1000;

/** Guessing one account's password from one address: every attempt counts. */
const SIGN_IN_POLICY: Policy = { name: 'sign-in', limit: 10, windowMs: WINDOW_MS };
/** One address trying many accounts (credential stuffing): failed attempts across accounts. */
const SIGN_IN_ADDRESS_POLICY: Policy = { name: 'sign-in.address', limit: 20, windowMs: WINDOW_MS };
/**
 * One account tried from many addresses: failed attempts across addresses. Higher than the
 * address bound because anyone who knows the e-mail can fill it: they can keep its owner from
 * signing in with a password while they keep failing 30 times per 15 minutes, from at least 3
 * addresses (10 each), and no longer than 15 minutes after they stop. Sessions already open,
 * API keys and OAuth tokens are not affected. Comparable services make the same trade: GitLab
 * locks an account for 10 minutes after 10 failures; Microsoft Entra's smart lockout locks for
 * a minute, longer on repeats; neither locks forever.
 */
const SIGN_IN_ACCOUNT_POLICY: Policy = { name: 'sign-in.account', limit: 30, windowMs: WINDOW_MS };

/** The buckets one attempt is counted in; the last two count failures only (see forgiveSignIn). */
function draws(ctx: Pick<Context, 'clientIp'>, email: string): Draw[] {
  return [
    { policy: SIGN_IN_POLICY, subject: `sign-in:${addressKey(ctx.clientIp)}:${email}` },
    { policy: SIGN_IN_ADDRESS_POLICY, subject: `sign-in:${addressKey(ctx.clientIp)}` },
    { policy: SIGN_IN_ACCOUNT_POLICY, subject: `sign-in:${email}` },
  ];
}

/**
 * Draws a sign-in attempt before the password is checked, so concurrent guesses cannot all pass
 * before the first failure is recorded. Returns the Retry-After seconds when refused, else null.
 */
export function drawSignInAttempt(ctx: Context, email: string): Promise<string | null> {
  return drawFromEach(ctx, draws(ctx, email));
}

/**
 * Takes a successful sign-in back from the address and account buckets: people behind one
 * shared address (an office, a carrier's NAT) signing in correctly never lock each other out.
 */
export function forgiveSignIn(ctx: Context, email: string): Promise<void> {
  return giveBack(ctx, draws(ctx, email).slice(1));
}
