import { roleAtLeast } from '../auth/principal.js';
import type { Context } from '../context.js';
import { AppError, statusForCode, ValidationError } from '../schema/errors.js';
import * as ops from '../schema/webhook-operations.js';
import { orgPage } from './integrations.js';
import { page, redirect } from './render.js';
import type { loadShell, ShellOrg } from './shell.js';

type PageRequest = Request & { params?: Record<string, string> };
type Shell = Awaited<ReturnType<typeof loadShell>>;

const RECENT_DELIVERIES = 5;

/** Every webhook of the organization with its latest deliveries, through the same operations as the API. */
async function hooksOf(ctx: Context) {
  const hooks = await ops.listWebhooks.call(ctx, {}, undefined);
  return Promise.all(
    hooks.map(async (hook) => ({ ...hook, deliveries: (await ops.listDeliveries.call(ctx, { webhookId: hook.id, first: RECENT_DELIVERIES }, undefined)).deliveries })),
  );
}

async function webhooksPage(shell: Shell, org: ShellOrg, ctx: Context, extra: Record<string, unknown> = {}, status = 200): Promise<Response> {
  const canManage = roleAtLeast(org.role, 'admin');
  return page(
    'webhooks',
    {
      ...shell,
      title: `Webhooks · ${org.name}`,
      currentOrg: org,
      canManage,
      hooks: canManage ? await hooksOf(ctx) : [],
      eventTypes: ops.WEBHOOK_EVENTS,
      secret: null,
      notice: null,
      formError: null,
      errors: {},
      form: { url: '', events: ['*'], description: '' },
      ...extra,
    },
    { status },
  );
}

export async function showWebhooks(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if ('response' in p) return p.response;
  return webhooksPage(p.shell, p.org, p.ctx, { notice: new URL(request.url).searchParams.get('notice') });
}

export async function createWebhookFromPage(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if ('response' in p) return p.response;
  const form = await request.formData().catch(() => new FormData());
  const values = { url: String(form.get('url') ?? ''), events: form.getAll('events').map(String), description: String(form.get('description') ?? '') };
  try {
    const created = await ops.createWebhook.call(p.ctx, values, undefined);
    return webhooksPage(p.shell, p.org, p.ctx, { secret: { url: created.webhook.url, value: created.secret } }, 201);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const fieldErrors = error instanceof ValidationError ? error.fieldErrors : [];
    const errors = Object.fromEntries(fieldErrors.map((e) => [e.field.split('.')[0], e.message]));
    return webhooksPage(p.shell, p.org, p.ctx, { form: values, errors, formError: fieldErrors.length ? null : error.message }, statusForCode(error.code));
  }
}

/** The buttons of one webhook: rotate, pause, resume, ping, delete. */
export async function webhookAction(request: PageRequest, ctx: Context): Promise<Response> {
  const p = await orgPage(request, ctx);
  if ('response' in p) return p.response;
  const id = request.params?.id ?? '';
  const action = String((await request.formData().catch(() => new FormData())).get('action') ?? '');
  const back = (notice: string) => redirect(`/orgs/${p.org.slug}/settings/webhooks?notice=${encodeURIComponent(notice)}`);
  try {
    switch (action) {
      case 'rotate': {
        const { webhook, secret } = await ops.updateWebhook.call(p.ctx, { id, rotateSecret: true }, undefined);
        return webhooksPage(p.shell, p.org, p.ctx, { secret: { url: webhook.url, value: secret, rotated: true } });
      }
      case 'pause':
      case 'resume':
        await ops.updateWebhook.call(p.ctx, { id, enabled: action === 'resume' }, undefined);
        return back(action === 'resume' ? 'The webhook is on again.' : 'The webhook is paused: events are queued but not sent.');
      case 'ping':
        await ops.pingWebhook.call(p.ctx, { id }, undefined);
        return back('A ping is on its way: see the deliveries below.');
      case 'delete':
        await ops.deleteWebhook.call(p.ctx, { id }, undefined);
        return back('The webhook has been deleted.');
      default:
        return webhooksPage(p.shell, p.org, p.ctx, { formError: 'Unknown action.' }, 400);
    }
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return webhooksPage(p.shell, p.org, p.ctx, { formError: error.message }, statusForCode(error.code));
  }
}
