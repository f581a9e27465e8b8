import type { Context } from '../context.js';
import { roleAtLeast } from '../auth/principal.js';
import { ApiKeyJson } from '../rest/resources.js';
import { createApiKey, listApiKeys, revokeApiKey } from '../schema/api-key.js';
import { AppError, statusForCode, ValidationError } from '../schema/errors.js';
import { page, redirect } from './render.js';
import { inOrg, loadShell, type ShellOrg } from './shell.js';

type PageRequest = Request & { params?: Record<string, string> };

/** Settings > Integrations of the organization in the path, for a signed-in member of it. */
type OrgPage = { response: Response } | { shell: Awaited<ReturnType<typeof loadShell>>; org: ShellOrg; ctx: Context };

export async function orgPage(request: PageRequest, ctx: Context): Promise<OrgPage> {
  if (ctx.principal.kind !== 'user') {
    const here = new URL(request.url);
    return { response: redirect(`/login?next=${encodeURIComponent(here.pathname)}`) };
  }
  const shell = await loadShell(ctx);
  const org = shell.orgs.find((o) => o.slug === request.params?.slug);
  if (!org) {
    return {
      response: page('error', { ...shell, title: 'Not found', heading: 'Organization not found', message: 'It does not exist, or you are not a member of it.' }, { status: 404 }),
    };
  }
  return { shell, org, ctx: inOrg(ctx, org) };
}

/** The keys as the page shows them: the API's representation (never the hash, never the token). */
type KeyView = ReturnType<typeof ApiKeyJson.present> & { id: string; name: string; status: string };

async function keysOf(ctx: Context): Promise<KeyView[]> {
  const keys = await listApiKeys.call(ctx, {}, { select: ApiKeyJson.select });
  return keys.map((key) => ApiKeyJson.present(key as never) as KeyView);
}

function integrationsPage(
  shell: Awaited<ReturnType<typeof loadShell>>,
  org: ShellOrg,
  keys: KeyView[],
  extra: Record<string, unknown> = {},
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return page(
    'integrations',
    {
      ...shell,
      title: `Integrations · ${org.name}`,
      currentOrg: org,
      keys,
      canCreate: roleAtLeast(org.role, 'manager'),
      created: null,
      notice: null,
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
  if ('response' in p) return p.response;
  const revoked = new URL(request.url).searchParams.get('revoked');
  return integrationsPage(p.shell, p.org, await keysOf(p.ctx), { notice: revoked ? `The key “${revoked}” has been revoked.` : null });
}

export async function createKey(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if ('response' in p) return p.response;
  const form = await request.formData().catch(() => new FormData());
  const name = String(form.get('name') ?? '');
  const expiresOn = String(form.get('expires_on') ?? '').trim();
  const formValues = { name, expires_on: expiresOn };
  if (expiresOn && !/^\d{4}-\d{2}-\d{2}$/.test(expiresOn)) {
    return integrationsPage(p.shell, p.org, await keysOf(p.ctx), { form: formValues, errors: { expiresAt: 'Enter a date as YYYY-MM-DD.' } }, 400);
  }
  try {
    const { token, apiKey } = await createApiKey.call(p.ctx, { name, expiresAt: expiresOn ? `${expiresOn}T23:59:59.999Z` : null }, undefined);
    return integrationsPage(p.shell, p.org, await keysOf(p.ctx), { created: { name: apiKey.name, token } }, 201);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const fieldErrors = error instanceof ValidationError ? error.fieldErrors : [];
    const errors = Object.fromEntries(fieldErrors.map((e) => [e.field, e.message]));
    const retryAfter = (error.extensions as { retryAfter?: number }).retryAfter;
    return integrationsPage(
      p.shell,
      p.org,
      await keysOf(p.ctx),
      { form: formValues, errors, formError: fieldErrors.length ? null : error.message },
      statusForCode(error.code),
      retryAfter !== undefined ? { 'retry-after': String(retryAfter) } : {},
    );
  }
}

async function ownKey(p: { ctx: Context }, id: string | undefined) {
  return (await keysOf(p.ctx)).find((k) => k.id === id && k.status === 'active');
}

export async function confirmRevoke(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if ('response' in p) return p.response;
  const key = await ownKey(p, request.params?.id);
  if (!key) return page('error', { ...p.shell, title: 'Not found', heading: 'Key not found', message: 'It does not exist or is no longer active.' }, { status: 404 });
  return page('revoke', { ...p.shell, title: `Revoke ${key.name}`, currentOrg: p.org, key });
}

export async function revokeKey(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if ('response' in p) return p.response;
  const key = await ownKey(p, request.params?.id);
  if (!key) return page('error', { ...p.shell, title: 'Not found', heading: 'Key not found', message: 'It does not exist or is no longer active.' }, { status: 404 });
  await revokeApiKey.call(p.ctx, { id: key.id }, { select: { id: true } });
  return redirect(`/orgs/${p.org.slug}/settings/integrations?revoked=${encodeURIComponent(key.name)}`);
}
