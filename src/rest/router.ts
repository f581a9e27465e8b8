import { Router, type IRequest, type RouterType } from 'itty-router';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import { createIssue, deleteIssue, getIssue, listIssues, updateIssue } from './issues.js';
import { getMe, getMyOrgs } from './me.js';
import { getOpenApiDocument } from './openapi.js';
import { createInvitation, createOrg, joinOrg, listOrgs, searchOrgs } from './orgs.js';
import { HttpProblem, problems } from './problem.js';
import { createProject, deleteProject, getProject, listProjects, updateProject } from './projects.js';
import { paletteSearch, searchPeople } from './search.js';

type Handler = (request: Request, ctx: Context, params: Record<string, string | undefined>) => Promise<Response>;

/** The REST surface under /api: each route maps HTTP to one GraphQL operation. */
export function createRestRouter(logger: Logger): RouterType<IRequest, [Context], Response> {
  const router = Router<IRequest, [Context]>({
    base: '/api',
    catch: (error: unknown) => {
      if (error instanceof HttpProblem) return error.toResponse();
      logger.error({ err: error }, 'unexpected error in a REST route');
      return problems.internal().toResponse();
    },
  });
  const route = (handler: Handler) => (request: IRequest, ctx: Context) =>
    handler(request as unknown as Request, ctx, request.params);

  router
    .get('/me', route(getMe))
    .get('/me/orgs', route(getMyOrgs))
    .get('/projects', route(listProjects))
    .post('/projects', route(createProject))
    .get('/projects/:id', route(getProject))
    .put('/projects/:id', route(updateProject))
    .delete('/projects/:id', route(deleteProject))
    .get('/issues', route(listIssues))
    .post('/issues', route(createIssue))
    .get('/api-keys', route(listApiKeys))
    .post('/api-keys', route(createApiKey))
    .delete('/api-keys/:id', route(revokeApiKey))
    .get('/orgs', route(listOrgs))
    .post('/orgs', route(createOrg))
    .get('/orgs/search', route(searchOrgs))
    .post('/orgs/join', route(joinOrg))
    .post('/invitations', route(createInvitation))
    .get('/issues/:id', route(getIssue))
    .patch('/issues/:id', route(updateIssue))
    .delete('/issues/:id', route(deleteIssue))
    .get('/people/search', route(searchPeople))
    .get('/palette/search', route(paletteSearch))
    .get('/openapi.json', route(getOpenApiDocument))
    .all('*', (request: IRequest) => {
      const path = new URL(request.url).pathname;
      const allow = router.routes
        .filter(([method, pattern]) => method !== 'ALL' && pattern.test(path))
        .map(([method]) => method);
      throw allow.length ? problems.methodNotAllowed([...new Set(allow)]) : problems.notFound();
    });
  return router;
}
