import type { Context } from '../context.js';
import { isMetadataClientId } from '../auth/client-id.js';
import { listMyGrants, revokeMyGrant } from '../schema/keys/oauth-grant-operations.js';
import { AppError } from '../schema/core/errors.js';
import { page, redirect } from '../views/render.js';
import { loadShell } from '../views/shell.js';

type PageRequest = Request & { params?: Record<string, string> };

/**
 * The host people know an application by: where its metadata document lives (a client_id
 * that is a URL), else where it takes the code back (its first redirect URI).
 */
function clientHost(client: { id: string; redirectUris: string[] }): string {
  const address = isMetadataClientId(client.id) ? client.id : client.redirectUris[0];
  try {
    return address ? new URL(address).host || new URL(address).protocol : '';
  } catch {
    return '';
  }
}

async function applicationsPage(ctx: Context, notice: string | null, status = 200): Promise<Response> {
  const [shell, grants] = await Promise.all([loadShell(ctx), listMyGrants.call(ctx, {}, undefined)]);
  const rows = grants.map((grant) => ({
    id: grant.id,
    name: grant.client.name,
    host: clientHost(grant.client),
    org: grant.membership.org.name,
    scopes: grant.scope.split(' '),
    createdAt: grant.createdAt.toISOString(),
    lastUsedAt: grant.lastUsedAt?.toISOString() ?? null,
  }));
  return page('applications', { ...shell, title: 'Authorized applications', grants: rows, notice }, { status });
}

/** GET /settings/applications: the applications you let act for you. */
export async function showApplications(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user')
    return redirect(`/login?next=${encodeURIComponent(new URL(request.url).pathname)}`);
  const revoked = new URL(request.url).searchParams.get('revoked');
  return applicationsPage(ctx, revoked ? `“${revoked}” can no longer act for you.` : null);
}

/** POST /settings/applications/:id/revoke: every token of the grant fails on its next request. */
export async function revokeApplication(request: PageRequest, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return redirect('/login');
  const grants = await listMyGrants.call(ctx, {}, undefined);
  const grant = grants.find((g) => g.id === request.params?.id);
  try {
    await revokeMyGrant.call(ctx, { id: request.params?.id ?? '' }, undefined);
  } catch (error) {
    if (error instanceof AppError && error.code === 'NOT_FOUND')
      return applicationsPage(ctx, 'That authorization does not exist or was already revoked.', 404);
    throw error;
  }
  return redirect(`/settings/applications?revoked=${encodeURIComponent(grant?.client.name ?? 'The application')}`);
}
