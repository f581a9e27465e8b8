import { Router, type IRequest } from 'itty-router';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { HttpProblem } from '../rest/problem.js';
import { asset } from './assets.js';
import { confirmRevoke, createKey, revokeKey, showIntegrations } from './integrations.js';
import { page, redirect } from './render.js';
import { setPassword, showSetPassword } from './set-password.js';
import { loadShell } from './shell.js';
import { showSignIn, signIn, signOut } from './sign-in.js';
import { createWebhookFromPage, showWebhooks, webhookAction } from './webhooks.js';

type Handler = (request: Request & { params?: Record<string, string> }, ctx: Context) => Promise<Response> | Response;

async function home(_request: Request, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return redirect('/login');
  const shell = await loadShell(ctx);
  if (shell.orgs.length === 1) return redirect(`/orgs/${shell.orgs[0]!.slug}/settings/integrations`);
  return page('orgs', { ...shell, title: 'Your organizations' });
}

const PAGE_PATHS = [/^\/$/, /^\/login$/, /^\/logout$/, /^\/set-password$/, /^\/orgs\/[^/]+\/settings\//, /^\/assets\/[^/]+$/];

/** The pages people use: sign-in, the org switcher, Settings > Integrations. */
export function createWebRouter(logger: Logger) {
  const router = Router<IRequest, [Context]>({
    catch: (error: unknown) => {
      if (error instanceof HttpProblem) {
        return page('error', { title: 'Error', heading: 'Something is not right', message: error.detail }, { status: error.status });
      }
      logger.error({ err: error }, 'unexpected error in a page');
      return page('error', { title: 'Error', heading: 'Something went wrong', message: 'It has been logged. Please try again.' }, { status: 500 });
    },
  });
  const route = (handler: Handler) => (request: IRequest, ctx: Context) => handler(request as unknown as Request, ctx);
  router
    .get('/', route(home))
    .get('/login', route(showSignIn))
    .post('/login', route(signIn))
    .post('/logout', route(signOut))
    .get('/set-password', route(showSetPassword))
    .post('/set-password', route(setPassword))
    .get('/orgs/:slug/settings/integrations', route(showIntegrations))
    .post('/orgs/:slug/settings/integrations/keys', route(createKey))
    .get('/orgs/:slug/settings/integrations/keys/:id/revoke', route(confirmRevoke))
    .post('/orgs/:slug/settings/integrations/keys/:id/revoke', route(revokeKey))
    .get('/orgs/:slug/settings/webhooks', route(showWebhooks))
    .post('/orgs/:slug/settings/webhooks', route(createWebhookFromPage))
    .post('/orgs/:slug/settings/webhooks/:id', route(webhookAction))
    .get('/assets/:name', (request: IRequest) => asset(request.params.name ?? '') ?? undefined)
    .all('*', () => page('error', { title: 'Not found', heading: 'Page not found', message: 'There is nothing at this address.' }, { status: 404 }));
  return {
    serves: (path: string) => PAGE_PATHS.some((p) => p.test(path)),
    fetch: async (request: Request, ctx: Context) => (await router.fetch(request, ctx)) as Response,
  };
}
