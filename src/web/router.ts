import { Router, type IRequest } from 'itty-router';
import type { FirstRunLink } from '../auth/first-run.js';
import type { Context } from '../context.js';
import { onRequest, routeWithoutQuery } from '../http/routing.js';
import type { Logger } from '../logger.js';
import { requestLogger } from '../ops/request-scope.js';
import { AppError } from '../schema/core/errors.js';
import { revokeApplication, showApplications } from './applications.js';
import { asset } from './assets.js';
import { showBoard } from './board.js';
import { clearedFlashCookie, readFlash } from './flash.js';
import { savePassword, saveProfile, showAccount, signOutAll } from './account.js';
import { showDashboard } from './dashboard.js';
import { confirmRevoke, createKey, revokeKey, showIntegrations } from './integrations.js';
import { addComment, deleteCommentPage, editComment } from './issue-comment-forms.js';
import {
  bulkIssuesPage,
  confirmDeleteIssue,
  createIssuePage,
  deleteIssuePage,
  editIssue,
  moveIssue,
  setIssueProperties,
  showIssue,
  showIssues,
} from './issues.js';
import {
  confirmDeleteProject,
  createProjectPage,
  deleteProjectPage,
  editProject,
  showProject,
  showProjects,
} from './projects.js';
import { acceptInvite, showInvite, signUpWithInvite } from './invite.js';
import { showSearch } from './search.js';
import {
  changeRolePage,
  createInvitationPage,
  join,
  removeMemberPage,
  revokeInvitationPage,
  showJoin,
  showTeam,
} from './team.js';
import { notFoundPage, type PageRequest } from './org-page.js';
import { page, redirect } from '../views/render.js';
import { setPassword, showSetPassword } from './set-password.js';
import { createSetupPages } from './setup.js';
import { loadShell } from '../views/shell.js';
import { showSignIn, signIn, signOut } from './sign-in.js';
import { createWebhookFromPage, showWebhooks, webhookAction } from './webhooks.js';
import { createLabelFromPage, labelAction, setIssueLabelsFromPage, showLabels } from './labels.js';

type Handler = (request: PageRequest, ctx: Context) => Promise<Response> | Response;

async function home(_request: Request, ctx: Context): Promise<Response> {
  if (ctx.principal.kind !== 'user') return redirect('/login');
  const shell = await loadShell(ctx);
  if (shell.orgs.length === 1) return redirect(`/orgs/${shell.orgs[0]!.slug}`);
  return page('orgs', { ...shell, title: 'Your organizations' });
}

/**
 * Runs a page handler with the flash its request carries (src/web/flash.ts): a page that shows
 * it (a successful GET) clears it, so a reload does not show it again.
 */
function withFlash(handler: Handler) {
  return async (request: Request, ctx: Context): Promise<Response> => {
    const req = request as unknown as PageRequest;
    req.flash = readFlash(req.headers);
    const response = await handler(req, ctx);
    if (req.flash && req.method === 'GET' && response.status === 200 && !response.headers.has('set-cookie')) {
      response.headers.append('set-cookie', clearedFlashCookie(ctx.config));
    }
    return response;
  };
}

export interface WebOptions {
  /** The first-run setup link of an empty database (null once the database has users). */
  firstRun: FirstRunLink | null;
}

/** The pages people use: sign-in, first-run setup, and the organization's pages. */
export function createWebRouter(logger: Logger, options: WebOptions = { firstRun: null }) {
  const setup = createSetupPages(options.firstRun);
  const router = Router<IRequest, [Context, Request]>({
    catch: (error: unknown, _routing: IRequest, ctx: Context) => {
      if (error instanceof AppError) {
        return page(
          'error',
          { title: 'Error', heading: 'Something is not right', message: error.message },
          { status: error.status },
        );
      }
      requestLogger(logger, ctx.scope).error({ err: error }, 'unexpected error in a page');
      return page(
        'error',
        { title: 'Error', heading: 'Something went wrong', message: 'It has been logged. Please try again.' },
        { status: 500 },
      );
    },
  });
  const route = (handler: Handler) => onRequest(withFlash(handler));
  router
    .get('/', route(home))
    .get('/login', route(showSignIn))
    .post('/login', route(signIn))
    .post('/logout', route(signOut))
    .get('/set-password', route(showSetPassword))
    .post('/set-password', route(setPassword))
    .get('/setup', route(setup.showSetup))
    .post('/setup', route(setup.submitSetup))
    .get(
      '/join',
      route((request, ctx) => showJoin(request, ctx)),
    )
    .post('/join', route(join))
    .get('/invite/:code', route(showInvite))
    .post('/invite/:code', route(signUpWithInvite))
    .post('/invite/:code/accept', route(acceptInvite))
    .get('/account', route(showAccount))
    .post('/account/profile', route(saveProfile))
    .post('/account/password', route(savePassword))
    .post('/account/sign-out-everywhere', route(signOutAll))
    .get('/orgs/:slug', route(showDashboard))
    .get('/orgs/:slug/search', route(showSearch))
    .get('/orgs/:slug/projects', route(showProjects))
    .post('/orgs/:slug/projects', route(createProjectPage))
    .get('/orgs/:slug/projects/:key', route(showProject))
    .post('/orgs/:slug/projects/:key', route(editProject))
    .get('/orgs/:slug/projects/:key/delete', route(confirmDeleteProject))
    .post('/orgs/:slug/projects/:key/delete', route(deleteProjectPage))
    .get('/orgs/:slug/issues', route(showIssues))
    .post('/orgs/:slug/issues', route(createIssuePage))
    .post('/orgs/:slug/issues/bulk', route(bulkIssuesPage))
    .get('/orgs/:slug/board', route(showBoard))
    .get('/orgs/:slug/issues/:key', route(showIssue))
    .post('/orgs/:slug/issues/:key', route(editIssue))
    .post('/orgs/:slug/issues/:key/status', route(moveIssue))
    .post('/orgs/:slug/issues/:key/properties', route(setIssueProperties))
    .post('/orgs/:slug/issues/:key/labels', route(setIssueLabelsFromPage))
    .get('/orgs/:slug/issues/:key/delete', route(confirmDeleteIssue))
    .post('/orgs/:slug/issues/:key/delete', route(deleteIssuePage))
    .post('/orgs/:slug/issues/:key/comments', route(addComment))
    .post('/orgs/:slug/issues/:key/comments/:id', route(editComment))
    .post('/orgs/:slug/issues/:key/comments/:id/delete', route(deleteCommentPage))
    .get('/orgs/:slug/team', route(showTeam))
    .post('/orgs/:slug/team/members/:id/role', route(changeRolePage))
    .post('/orgs/:slug/team/members/:id/remove', route(removeMemberPage))
    .post('/orgs/:slug/team/invitations', route(createInvitationPage))
    .post('/orgs/:slug/team/invitations/:id/revoke', route(revokeInvitationPage))
    .get('/orgs/:slug/settings/integrations', route(showIntegrations))
    .post('/orgs/:slug/settings/integrations/keys', route(createKey))
    .get('/orgs/:slug/settings/integrations/keys/:id/revoke', route(confirmRevoke))
    .post('/orgs/:slug/settings/integrations/keys/:id/revoke', route(revokeKey))
    .get('/settings/applications', route(showApplications))
    .post('/settings/applications/:id/revoke', route(revokeApplication))
    .get('/orgs/:slug/settings/labels', route(showLabels))
    .post('/orgs/:slug/settings/labels', route(createLabelFromPage))
    .post('/orgs/:slug/settings/labels/:id', route(labelAction))
    .get('/orgs/:slug/settings/webhooks', route(showWebhooks))
    .post('/orgs/:slug/settings/webhooks', route(createWebhookFromPage))
    .post('/orgs/:slug/settings/webhooks/:id', route(webhookAction))
    .get('/assets/:name', (request: IRequest) => asset(request.params.name ?? '') ?? undefined)
    .all('*', () => notFoundPage());
  // Which paths come here is the surface table's to say (src/http/surfaces.ts).
  return {
    fetch: (request: Request, ctx: Context) => routeWithoutQuery(router, request, ctx),
  };
}
