import { roleAtLeast } from '../auth/principal.js';
import type { Context } from '../context.js';
import { ApiKeyJson } from '../schema/keys/representation.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../schema/keys/api-key.js';
import { flashCookie } from './flash.js';
import { formFailure, readForm } from './forms.js';
import { askAnOwner } from './org-data.js';
import { notFoundPage, orgPage, orgView, type OrgPage, type PageRequest } from './org-page.js';
import { redirect } from '../views/render.js';
import { Response } from '../http/fetch-api.js';

/**
 * The API keys page (/orgs/<slug>/settings/integrations): the caller's API keys in the organization and, for owners and
 * admins, every member's (each revocable). Creating a key redirects (post/redirect/get) to this
 * page, which shows the token once from the flash.
 */

/** The keys as the page shows them: the API's representation (never the hash, never the token). */
type KeyView = ReturnType<typeof ApiKeyJson.present> & { id: string; name: string; status: string; owner?: string };

const canSeeAll = (p: OrgPage) => roleAtLeast(p.org.role, 'admin');

async function keysOf(p: OrgPage): Promise<KeyView[]> {
  const all = canSeeAll(p);
  const keys = await listApiKeys.call(
    p.ctx,
    { all },
    { select: { ...ApiKeyJson.select, membership: { select: { user: { select: { name: true } } } } } },
  );
  return keys.map((key) => ({
    ...(ApiKeyJson.present(key as never) as KeyView),
    owner: (key as unknown as { membership: { user: { name: string } } }).membership.user.name,
  }));
}

async function integrationsPage(
  p: OrgPage,
  extra: Record<string, unknown> = {},
  status = 200,
  headers: Record<string, string> = {},
): Promise<Response> {
  return orgView(
    p,
    'integrations',
    {
      title: `API keys · ${p.org.name}`,
      section: 'API keys',
      keys: await keysOf(p),
      all: canSeeAll(p),
      canCreate: roleAtLeast(p.org.role, 'manager'),
      ask: roleAtLeast(p.org.role, 'manager') ? null : await askAnOwner(p),
      formError: null,
      errors: {},
      form: { name: '', expires_on: '' },
      ...extra,
    },
    { status, headers },
  );
}

export async function showIntegrations(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  return p instanceof Response ? p : integrationsPage(p);
}

export async function createKey(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const form = await readForm(request);
  const formValues = { name: form.name ?? '', expires_on: (form.expires_on ?? '').trim() };
  if (formValues.expires_on && !/^\d{4}-\d{2}-\d{2}$/.test(formValues.expires_on)) {
    return integrationsPage(p, { form: formValues, errors: { expiresAt: 'Enter a date as YYYY-MM-DD.' } }, 400);
  }
  try {
    const expiresAt = formValues.expires_on ? `${formValues.expires_on}T23:59:59.999Z` : null;
    const { token, apiKey } = await createApiKey.call(p.ctx, { name: formValues.name, expiresAt }, undefined);
    const secret = {
      title: `Your new key “${apiKey.name}”`,
      label: 'Token',
      value: token,
      warning: 'Copy this token now. It is shown only once and cannot be recovered: only its hash is stored.',
    };
    return redirect(`${p.base}/settings/integrations`, { 'set-cookie': flashCookie(ctx.config, { secret }) });
  } catch (error) {
    const failure = formFailure(error);
    return integrationsPage(
      p,
      { form: formValues, errors: failure.errors, formError: failure.formError },
      failure.status,
      failure.headers,
    );
  }
}

async function activeKey(p: OrgPage, id: string | undefined) {
  return (await keysOf(p)).find((k) => k.id === id && k.status === 'active');
}

const keyNotFound = (p: OrgPage) => notFoundPage(p.shell, 'Key not found', 'It does not exist or is no longer active.');

export async function confirmRevoke(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const key = await activeKey(p, request.params?.id);
  if (!key) return keyNotFound(p);
  return orgView(p, 'revoke', { title: `Revoke ${key.name}`, key });
}

export async function revokeKey(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const key = await activeKey(p, request.params?.id);
  if (!key) return keyNotFound(p);
  await revokeApiKey.call(p.ctx, { id: key.id }, { select: { id: true } });
  return redirect(`${p.base}/settings/integrations`, {
    'set-cookie': flashCookie(ctx.config, { notice: `The key “${key.name}” has been revoked.` }),
  });
}
