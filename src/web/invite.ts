import { sessionCookie, startSession } from '../auth/session.js';
import type { Context } from '../context.js';
import { PASSWORD_MIN_LENGTH } from '../auth/password-setup.js';
import { joinOrganization } from '../schema/organizations/invitation.js';
import {
  openInvitation,
  signUpWithInvitation,
  type OpenedInvitation,
} from '../schema/organizations/invitation-signup.js';
import { flashCookie } from './flash.js';
import { formFailure, readForm } from './forms.js';
import { drawInviteLookup, drawSignUpAttempt, forgiveInviteLookup } from './invite-throttle.js';
import type { PageRequest } from './org-page.js';
import { page, redirect } from '../views/render.js';
import { formatDate } from '../views/time.js';
import { loadShell } from '../views/shell.js';
import { Response } from '../http/fetch-api.js';

/**
 * GET/POST /invite/<code>: an invitation link. Signed out, the person creates an account and
 * joins in one step, or signs in and comes back; signed in, they accept with one click. A link
 * that no longer works says why and whom to ask, never more than the link's holder may know.
 */

// The code is in the URL: Referer carries only the origin (as on /set-password).
const NO_REFERRER = { 'referrer-policy': 'strict-origin' };

const EMPTY = { name: '', email: '', username: '' };

type Shown = Record<string, unknown>;

function invitePage(data: Shown, status = 200, headers: Record<string, string> = {}): Response {
  return page(
    'invite',
    { title: 'Invitation', minLength: PASSWORD_MIN_LENGTH, form: EMPTY, errors: {}, formError: null, ...data },
    { status, headers: { ...NO_REFERRER, ...headers } },
  );
}

/** Whom to ask for a new link. */
const whom = (inv: OpenedInvitation) =>
  inv.createdByName ? `${inv.createdByName}, who invited you,` : `an owner or admin of ${inv.org.name}`;

/** Why a link does not work, with the next step. */
function deadLink(inv: OpenedInvitation | null): Response {
  if (!inv) {
    return invitePage(
      {
        dead: {
          heading: 'This invitation link does not work',
          message:
            'No invitation has this link. Check that you copied all of it, or ask the person who invited you for a new one.',
        },
      },
      404,
    );
  }
  const why = {
    used: `This invitation to ${inv.org.name} was already used. If you used it, sign in. If not, ask ${whom(inv)} for a new one.`,
    revoked: `This invitation to ${inv.org.name} was revoked. Ask ${whom(inv)} for a new one.`,
    expired: `This invitation to ${inv.org.name} expired on ${formatDate(inv.expiresAt.toISOString())}. Ask ${whom(inv)} for a new one.`,
    pending: '',
  }[inv.state];
  return invitePage(
    { dead: { heading: 'This invitation link no longer works', message: why, signIn: inv.state === 'used' } },
    410,
  );
}

const codeOf = (request: PageRequest) => request.params?.code ?? '';

/** The invitation of the link, or the page that refuses it (throttled, unknown, no longer pending). */
async function pendingInvitation(
  request: PageRequest,
  ctx: Context,
): Promise<{ code: string; inv: OpenedInvitation } | Response> {
  const wait = await drawInviteLookup(ctx);
  if (wait !== null) return tooMany(wait);
  const code = codeOf(request);
  const inv = await openInvitation(ctx.prisma, code);
  if (inv) await forgiveInviteLookup(ctx);
  if (inv?.state !== 'pending') return deadLink(inv);
  return { code, inv };
}

function tooMany(wait: string): Response {
  const message = `Too many attempts from your network. Try again in ${Math.ceil(Number(wait) / 60)} minutes.`;
  return invitePage({ dead: { heading: 'Please wait', message } }, 429, { 'retry-after': wait });
}

async function signedInView(
  ctx: Context,
  code: string,
  inv: OpenedInvitation,
  data: Shown = {},
  status = 200,
): Promise<Response> {
  const shell = await loadShell(ctx);
  const member = shell.orgs.some((o) => o.id === inv.org.id);
  return invitePage({ ...shell, code, inv, member, ...data }, status);
}

export async function showInvite(request: PageRequest, ctx: Context): Promise<Response> {
  const found = await pendingInvitation(request, ctx);
  if (found instanceof Response) return found;
  const { code, inv } = found;
  if (ctx.principal.kind === 'user') return signedInView(ctx, code, inv);
  return invitePage({
    code,
    inv,
    signIn: `/login?next=${encodeURIComponent(`/invite/${code}`)}`,
    form: { ...EMPTY, email: inv.email ?? '' },
  });
}

/** To the organization joined, with a welcome; `cookies` are set as well (a new session). */
function welcome(ctx: Context, org: { slug: string; name: string }, role: string, cookies: string[] = []): Response {
  const headers = new Headers({ ...NO_REFERRER, location: `/orgs/${org.slug}` });
  for (const cookie of [
    flashCookie(ctx.config, { notice: `Welcome to ${org.name}: you joined as ${role}.` }),
    ...cookies,
  ])
    headers.append('set-cookie', cookie);
  return new Response(null, { status: 303, headers });
}

/** POST /invite/<code>: creates the account, joins, signs in, and lands in the organization. */
export async function signUpWithInvite(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind === 'user') return redirect(`/invite/${codeOf(request)}`);
  const wait = await drawSignUpAttempt(ctx);
  if (wait !== null) return tooMany(wait);
  const found = await pendingInvitation(request, ctx);
  if (found instanceof Response) return found;
  const { code, inv } = found;
  const form = await readForm(request);
  const shown = { name: form.name ?? '', email: form.email ?? '', username: form.username ?? '' };
  try {
    const joined = await signUpWithInvitation(ctx.prisma, code, form);
    const { token, session } = await startSession(ctx.prisma, joined.userId);
    return welcome(ctx, joined.org, joined.role, [
      sessionCookie(ctx.config, token, session.expiresAt, session.createdAt),
    ]);
  } catch (error) {
    const failure = formFailure(error);
    // Claimed by someone else while this form was filled in.
    if (failure.status === 404) return deadLink(await openInvitation(ctx.prisma, code));
    const signIn = `/login?next=${encodeURIComponent(`/invite/${code}`)}`;
    return invitePage(
      { code, inv, signIn, form: shown, errors: failure.errors, formError: failure.formError },
      failure.status,
      failure.headers,
    );
  }
}

/** POST /invite/<code>/accept: a signed-in person joins with one click. */
export async function acceptInvite(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return redirect(`/invite/${codeOf(request)}`);
  const found = await pendingInvitation(request, ctx);
  if (found instanceof Response) return found;
  const { code, inv } = found;
  try {
    await joinOrganization.call(ctx, { code }, { select: { id: true } });
    return welcome(ctx, inv.org, inv.role);
  } catch (error) {
    const failure = formFailure(error);
    if (failure.status === 404) return deadLink(await openInvitation(ctx.prisma, code));
    return signedInView(ctx, code, inv, { formError: failure.formError }, failure.status);
  }
}
