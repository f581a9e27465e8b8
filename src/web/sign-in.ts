import { verifyPassword } from '../auth/password.js';
import { clearedSessionCookie, endSession, readSessionCookie, sessionCookie, startSession } from '../auth/session.js';
import type { Context } from '../context.js';
import { safeNextPath } from './next-path.js';
import type { PageRequest } from './org-page.js';
import { page, redirect } from '../views/render.js';
import { drawSignInAttempt, forgiveSignIn } from './sign-in-throttle.js';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../schema/core/text.js';

// Compared against when the e-mail is unknown, so both answers take the time of one scrypt.
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';

export function showSignIn(request: PageRequest, ctx: Context): Response {
  const next = safeNextPath(new URL(request.url).searchParams.get('next'), ctx.config.baseUrl);
  if (ctx.principal.kind === 'user') return redirect(next);
  return page('login', { title: 'Sign in', next, email: '', error: null, flash: request.flash });
}

export async function signIn(request: Request, ctx: Context): Promise<Response> {
  const form = await request.formData().catch(() => new FormData());
  const email = String(form.get('email') ?? '')
    .trim()
    .toLowerCase();
  const password = String(form.get('password') ?? '');
  const next = safeNextPath(form.get('next'), ctx.config.baseUrl);
  const retry = (error: string, status: number, headers: Record<string, string> = {}) =>
    page('login', { title: 'Sign in', next, email, error }, { status, headers });

  const wait = await drawSignInAttempt(ctx, email);
  if (wait !== null) {
    return retry(`Too many sign-in attempts. Try again in ${Math.ceil(Number(wait) / 60)} minutes.`, 429, {
      'retry-after': wait,
    });
  }
  if (!isStorableText(email)) return retry(`The email ${UNSTORABLE_TEXT_MESSAGE}.`, 400);
  const user = email
    ? await ctx.prisma.user.findUnique({ where: { email }, select: { id: true, passwordHash: true } })
    : null;
  const ok = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user?.passwordHash || !ok) return retry('The email or password is incorrect.', 401);
  await forgiveSignIn(ctx, email);

  // A new session id at every sign-in; whatever session the browser carried ends here.
  const previous = readSessionCookie(ctx.config, request.headers);
  if (previous) await endSession(ctx.prisma, previous);
  const { token, session } = await startSession(ctx.prisma, user.id);
  return redirect(next, { 'set-cookie': sessionCookie(ctx.config, token, session.expiresAt, session.createdAt) });
}

export async function signOut(request: Request, ctx: Context): Promise<Response> {
  const token = readSessionCookie(ctx.config, request.headers);
  if (token) await endSession(ctx.prisma, token);
  return redirect('/login', { 'set-cookie': clearedSessionCookie(ctx.config) });
}
