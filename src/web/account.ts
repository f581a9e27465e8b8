import { clearedSessionCookie } from '../auth/session.js';
import type { Context } from '../context.js';
import { changePassword, signOutEverywhere, updateProfile } from '../schema/people/account.js';
import { getMe } from '../schema/people/user.js';
import { PASSWORD_MIN_LENGTH } from '../auth/password-setup.js';
import { flashCookie } from './flash.js';
import { formFailure, readForm, type FormFailure } from './forms.js';
import { signInFirst, type PageRequest } from './org-page.js';
import { page, redirect } from '../views/render.js';
import { loadShell } from '../views/shell.js';

/** The person's own account: name, password, and signing out of every session. */

async function accountPage(
  request: PageRequest,
  ctx: Context,
  extra: { name?: string; profile?: FormFailure; password?: FormFailure } = {},
): Promise<Response> {
  const [shell, me] = await Promise.all([
    loadShell(ctx),
    getMe.call(ctx, {}, { select: { name: true, email: true, username: true } }),
  ]);
  const failure = extra.profile ?? extra.password;
  return page(
    'account',
    {
      ...shell,
      title: 'Your account',
      flash: request.flash,
      me,
      name: extra.name ?? me.name,
      minLength: PASSWORD_MIN_LENGTH,
      profileErrors: extra.profile?.errors ?? {},
      profileError: extra.profile?.formError ?? null,
      passwordErrors: extra.password?.errors ?? {},
      passwordError: extra.password?.formError ?? null,
    },
    { status: failure?.status ?? 200, headers: failure?.headers },
  );
}

export async function showAccount(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return signInFirst(request);
  return accountPage(request, ctx);
}

export async function saveProfile(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return signInFirst(request);
  const form = await readForm(request);
  try {
    await updateProfile.call(ctx, { name: form.name ?? '' }, undefined);
    return redirect('/account', { 'set-cookie': flashCookie(ctx.config, { notice: 'Your name is saved.' }) });
  } catch (error) {
    return accountPage(request, ctx, { name: form.name, profile: formFailure(error) });
  }
}

export async function savePassword(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return signInFirst(request);
  const form = await readForm(request);
  try {
    await changePassword.call(
      ctx,
      {
        currentPassword: form.current_password ?? '',
        password: form.password ?? '',
        confirmation: form.confirmation ?? '',
      },
      undefined,
    );
    return redirect('/account', {
      'set-cookie': flashCookie(ctx.config, {
        notice: 'Your password is changed. Your other sessions have been signed out.',
      }),
    });
  } catch (error) {
    return accountPage(request, ctx, { password: formFailure(error) });
  }
}

export async function signOutAll(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return signInFirst(request);
  await signOutEverywhere.call(ctx, {}, undefined);
  return redirect('/login', { 'set-cookie': clearedSessionCookie(ctx.config) });
}
