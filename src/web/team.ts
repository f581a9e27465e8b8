import { roleAtLeast, ROLES } from '../auth/principal.js';
import type { Context } from '../context.js';
import { createInvitation, joinOrganization } from '../schema/organizations/invitation.js';
import { changeRole, listInvitations, removeMember, revokeInvitation } from '../schema/organizations/team.js';
import { flashCookie, type Flash } from './flash.js';
import { formFailure, readForm, type FormFailure } from './forms.js';
import { askAnOwner, membersOf, ownerNames } from './org-data.js';
import { orgPage, orgView, signInFirst, type OrgPage, type PageRequest } from './org-page.js';
import { page, redirect } from '../views/render.js';
import { loadShell } from '../views/shell.js';
import { Response } from '../http/fetch-api.js';

/**
 * The team: members and roles (owners and admins change and remove), invitations (create a
 * code shown once, see and revoke pending ones), and joining another organization by code.
 */

const canManage = (p: OrgPage) => roleAtLeast(p.org.role, 'admin');

async function teamPage(p: OrgPage, failure?: FormFailure): Promise<Response> {
  const manage = canManage(p);
  const [members, invitations] = await Promise.all([
    membersOf(p),
    manage ? listInvitations.call(p.ctx, {}, undefined) : Promise.resolve([]),
  ]);
  const me = p.ctx.principal.kind === 'user' ? p.ctx.principal.userId : '';
  return orgView(
    p,
    'team',
    {
      title: `Team · ${p.org.name}`,
      section: 'Team',
      members,
      invitations,
      me,
      canManage: manage,
      mails: p.ctx.mailer !== undefined,
      owners: ownerNames(members),
      // Nobody gives a role above their own.
      roles: ROLES.filter((r) => roleAtLeast(p.org.role, r)).reverse(),
      errors: failure?.errors ?? {},
      formError: failure?.formError ?? null,
    },
    { status: failure?.status ?? 200, headers: failure?.headers },
  );
}

export async function showTeam(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  return p instanceof Response ? p : teamPage(p);
}

/** Runs a team write, then back to the team page with a notice, or the page with the refusal. */
async function teamWrite(
  request: PageRequest,
  ctx: Context,
  write: (p: OrgPage, form: Record<string, string>) => Promise<{ notice?: string; secret?: Flash['secret'] }>,
): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const form = await readForm(request);
  try {
    const { notice, secret } = await write(p, form);
    return redirect(`${p.base}/team`, { 'set-cookie': flashCookie(ctx.config, { notice, secret }) });
  } catch (error) {
    const failure = formFailure(error);
    // A refusal for want of a role names who has it.
    if (failure.status === 403 && failure.formError)
      failure.formError = `${failure.formError} To have it done, ${await askAnOwner(p)}.`;
    return teamPage(p, failure);
  }
}

export const changeRolePage = (request: PageRequest, ctx: Context) =>
  teamWrite(request, ctx, async (p, form) => {
    await changeRole.call(p.ctx, { userId: request.params?.id ?? '', role: form.role ?? '' }, undefined);
    return { notice: `Role changed to ${form.role}.` };
  });

export const removeMemberPage = (request: PageRequest, ctx: Context) =>
  teamWrite(request, ctx, async (p) => {
    await removeMember.call(p.ctx, { userId: request.params?.id ?? '' }, undefined);
    return { notice: 'Member removed.' };
  });

export const createInvitationPage = (request: PageRequest, ctx: Context) =>
  teamWrite(request, ctx, async (p, form) => {
    const days = form.expires_in_days ? Number(form.expires_in_days) : undefined;
    const email = form.email?.trim() ? form.email : undefined;
    const { url, mailed } = await createInvitation.call(
      p.ctx,
      { role: form.role ?? '', expiresInDays: days, email },
      undefined,
    );
    const copy =
      'Copy this link now and give it to the person you invite. It is shown only once and works once; the code at its end also works at /join.';
    const warning = mailed
      ? `It was mailed to ${email}. It is shown only this once and works once; the code in it also works at /join.`
      : email && p.ctx.mailer
        ? `It could not be mailed to ${email} (the mail server refused, or this organization sent its most invitation mails for the hour). ${copy}`
        : copy;
    return { secret: { title: 'A new invitation link', label: 'Invitation link', value: url, warning } };
  });

export const revokeInvitationPage = (request: PageRequest, ctx: Context) =>
  teamWrite(request, ctx, async (p) => {
    await revokeInvitation.call(p.ctx, { id: request.params?.id ?? '' }, undefined);
    return { notice: 'Invitation revoked: its link and code no longer work.' };
  });

/** The code of a pasted invitation link (its last path segment), or the text as given. */
const codeFromLink = (text: string) => /\/invite\/([^/?#\s]+)/.exec(text)?.[1] ?? text;

/** GET /join: the form to join an organization with an invite code. */
export async function showJoin(
  request: PageRequest,
  ctx: Context,
  error: string | null = null,
  status = 200,
): Promise<Response> {
  if (ctx.principal.kind !== 'user') return signInFirst(request);
  return page(
    'join',
    { ...(await loadShell(ctx)), title: 'Join an organization', error, flash: request.flash },
    { status },
  );
}

/** POST /join: joins, then to the organization's dashboard. */
export async function join(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return signInFirst(request);
  const form = await readForm(request);
  try {
    const membership = await joinOrganization.call(
      ctx,
      { code: codeFromLink(form.code ?? '') },
      { select: { role: true, org: { select: { slug: true, name: true } } } },
    );
    const joined = membership as unknown as { role: string; org: { slug: string; name: string } };
    return redirect(`/orgs/${joined.org.slug}`, {
      'set-cookie': flashCookie(ctx.config, { notice: `Welcome to ${joined.org.name}: you joined as ${joined.role}.` }),
    });
  } catch (error) {
    const failure = formFailure(error);
    return showJoin(request, ctx, failure.formError ?? Object.values(failure.errors).join(' '), failure.status);
  }
}
