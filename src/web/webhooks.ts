import { roleAtLeast } from '../auth/principal.js';
import type { Context } from '../context.js';
import { AppError } from '../schema/core/errors.js';
import * as ops from '../schema/webhooks/operations.js';
import { formFailure } from './forms.js';
import { flashCookie } from './flash.js';
import { askAnOwner } from './org-data.js';
import { orgPage, orgView, type OrgPage, type PageRequest } from './org-page.js';
import { redirect } from '../views/render.js';
import { Response } from '../http/fetch-api.js';

const RECENT_DELIVERIES = 5;

/** Every webhook of the organization with its latest deliveries, through the same operations as the API. */
async function hooksOf(ctx: Context) {
  const hooks = await ops.listWebhooks.call(ctx, {}, undefined);
  return Promise.all(
    hooks.map(async (hook) => ({
      ...hook,
      deliveries: (await ops.listDeliveries.call(ctx, { webhookId: hook.id, first: RECENT_DELIVERIES }, undefined))
        .deliveries,
    })),
  );
}

async function webhooksPage(p: OrgPage, extra: Record<string, unknown> = {}, status = 200): Promise<Response> {
  const canManage = roleAtLeast(p.org.role, 'admin');
  return orgView(
    p,
    'webhooks',
    {
      title: `Webhooks · ${p.org.name}`,
      section: 'Webhooks',
      canManage,
      ask: canManage ? null : await askAnOwner(p),
      hooks: canManage ? await hooksOf(p.ctx) : [],
      eventTypes: ops.WEBHOOK_EVENTS,
      // The URL rule the operation applies (src/http/outbound-address.ts), said before it refuses one.
      urlHint: p.ctx.config.webhooks.allowPrivateNetworks
        ? 'https or http; private and local addresses are allowed on this server.'
        : 'https, on a public address.',
      formError: null,
      errors: {},
      form: { url: '', events: ['*'], description: '' },
      ...extra,
    },
    { status },
  );
}

/** Post/redirect/get: the page a write redirects to, with its notice or the secret to show once (src/web/flash.ts). */
const backTo = (p: OrgPage, flash: Parameters<typeof flashCookie>[1]) =>
  redirect(`${p.base}/settings/webhooks`, { 'set-cookie': flashCookie(p.ctx.config, flash) });

const secretFlash = (url: string, value: string, rotated: boolean) => ({
  secret: {
    title: `${rotated ? 'New signing secret' : 'Signing secret'} for ${url}`,
    label: 'Signing secret',
    value,
    warning: `Copy this secret now. It is shown only once.${rotated ? ' The previous secret keeps signing too for 24 hours.' : ''}`,
  },
});

export async function showWebhooks(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  return webhooksPage(p);
}

export async function createWebhookFromPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const form = await request.formData().catch(() => new FormData());
  const values = {
    url: String(form.get('url') ?? ''),
    events: form.getAll('events').map(String),
    description: String(form.get('description') ?? ''),
  };
  try {
    const created = await ops.createWebhook.call(p.ctx, values, undefined);
    return backTo(p, secretFlash(created.webhook.url, created.secret, false));
  } catch (error) {
    // `events.2` is shown beside the events checkboxes.
    const failure = formFailure(error, (field) => field.split('.')[0]!);
    return webhooksPage(p, { form: values, errors: failure.errors, formError: failure.formError }, failure.status);
  }
}

/** The buttons of one webhook: rotate, pause, resume, ping, delete. */
export async function webhookAction(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if (p instanceof Response) return p;
  const id = request.params?.id ?? '';
  const action = String((await request.formData().catch(() => new FormData())).get('action') ?? '');
  const back = (notice: string) => backTo(p, { notice });
  try {
    switch (action) {
      case 'rotate': {
        const { webhook, secret } = await ops.updateWebhook.call(p.ctx, { id, rotateSecret: true }, undefined);
        // Asked to rotate, the operation always returns the new secret.
        return backTo(p, secretFlash(webhook.url, secret ?? '', true));
      }
      case 'pause':
      case 'resume':
        await ops.updateWebhook.call(p.ctx, { id, enabled: action === 'resume' }, undefined);
        return back(
          action === 'resume' ? 'The webhook is on again.' : 'The webhook is paused: events are queued but not sent.',
        );
      case 'ping':
        await ops.pingWebhook.call(p.ctx, { id }, undefined);
        return back('A ping is on its way: see the deliveries below.');
      case 'delete':
        await ops.deleteWebhook.call(p.ctx, { id }, undefined);
        return back('The webhook has been deleted.');
      default:
        return webhooksPage(p, { formError: 'Unknown action.' }, 400);
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return webhooksPage(p, { formError: error.message }, error.status);
  }
}
