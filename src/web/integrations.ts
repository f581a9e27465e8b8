import type { Context } from '../context.js';
import { CREATE_KEY, LIST_KEYS, REVOKE_KEY, type KeyNode } from '../rest/api-keys.js';
import { runOperation, unwrapResult } from '../rest/operation.js';
import { HttpProblem } from '../rest/problem.js';
import { roleAtLeast } from '../auth/principal.js';
import { page, redirect } from './render.js';
import { inOrg, loadShell, type ShellOrg } from './shell.js';

type PageRequest = Request & { params?: Record<string, string> };

/** Settings > Integrations of the organization in the path, for a signed-in member of it. */
type OrgPage = { response: Response } | { shell: Awaited<ReturnType<typeof loadShell>>; org: ShellOrg; ctx: Context };

async function orgPage(request: PageRequest, ctx: Context): Promise<OrgPage> {
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

async function keysOf(ctx: Context): Promise<KeyNode[]> {
  return (await runOperation<{ apiKeys: KeyNode[] }>(LIST_KEYS, ctx)).apiKeys;
}

function integrationsPage(
  shell: Awaited<ReturnType<typeof loadShell>>,
  org: ShellOrg,
  keys: KeyNode[],
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
    const { createApiKey } = await runOperation<{ createApiKey: Parameters<typeof unwrapResult<{ token: string; apiKey: KeyNode }>>[0] }>(
      CREATE_KEY,
      p.ctx,
      { input: { name, expiresAt: expiresOn ? `${expiresOn}T23:59:59.999Z` : null } },
      { expiresAt: 'expiresAt', name: 'name' },
    );
    const { token, apiKey } = unwrapResult(createApiKey, { expiresAt: 'expiresAt', name: 'name' });
    return integrationsPage(p.shell, p.org, await keysOf(p.ctx), { created: { name: apiKey.name, token } }, 201);
  } catch (error) {
    if (!(error instanceof HttpProblem)) throw error;
    const errors = Object.fromEntries((error.errors ?? []).map((e) => [e.field, e.message]));
    const headers: Record<string, string> = error.headers['retry-after'] ? { 'retry-after': error.headers['retry-after'] } : {};
    return integrationsPage(
      p.shell,
      p.org,
      await keysOf(p.ctx),
      { form: formValues, errors, formError: error.errors?.length ? null : error.detail },
      error.status,
      headers,
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
  const { revokeApiKey } = await runOperation<{ revokeApiKey: Parameters<typeof unwrapResult<{ id: string }>>[0] }>(REVOKE_KEY, p.ctx, { id: key.id });
  unwrapResult(revokeApiKey);
  return redirect(`/orgs/${p.org.slug}/settings/integrations?revoked=${encodeURIComponent(key.name)}`);
}
