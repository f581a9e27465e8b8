import { passwordLinkUser, passwordProblem, PASSWORD_MIN_LENGTH, usePasswordLink } from '../auth/password-setup.js';
import type { Context } from '../context.js';
import { flashCookie } from './flash.js';
import { page, redirect } from '../views/render.js';

// The token is in this page's URL: Referer carries only the origin, even to our own assets.
// (Not no-referrer: browsers then send `Origin: null` with the form, which the CSRF check refuses.)
const NO_REFERRER = { 'referrer-policy': 'strict-origin' };

const invalid = () =>
  page('set-password', { title: 'Set your password', token: null }, { status: 404, headers: NO_REFERRER });

/** GET /set-password?token=...: the form of a one-time password link (src/auth/password-setup.ts). */
export async function showSetPassword(request: Request, ctx: Context): Promise<Response> {
  const token = new URL(request.url).searchParams.get('token') ?? '';
  const user = token ? await passwordLinkUser(ctx.prisma, token) : null;
  if (!user) return invalid();
  return page(
    'set-password',
    { title: 'Set your password', token, email: user.email, minLength: PASSWORD_MIN_LENGTH, error: null },
    { headers: NO_REFERRER },
  );
}

/** POST /set-password: sets the password once, then the link is spent. */
export async function setPassword(request: Request, ctx: Context): Promise<Response> {
  const form = await request.formData().catch(() => new FormData());
  const token = String(form.get('token') ?? '');
  const password = String(form.get('password') ?? '');
  const user = token ? await passwordLinkUser(ctx.prisma, token) : null;
  if (!user) return invalid();
  const problem = passwordProblem(password, String(form.get('confirmation') ?? ''));
  if (problem) {
    return page(
      'set-password',
      { title: 'Set your password', token, email: user.email, minLength: PASSWORD_MIN_LENGTH, error: problem },
      { status: 400, headers: NO_REFERRER },
    );
  }
  const email = await usePasswordLink(ctx.prisma, token, password);
  if (!email) return invalid();
  // Post/redirect/get: a reload of the sign-in page cannot post the spent link again.
  return redirect('/login', {
    ...NO_REFERRER,
    'set-cookie': flashCookie(ctx.config, {
      notice: `Your password is set. Sign in with ${email} and your new password.`,
    }),
  });
}
