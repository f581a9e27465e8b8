import { Router, type IRequest, type RouterType } from 'itty-router';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { createApiKey, listApiKeys, revokeApiKey } from './api-keys.js';
import { createIssue, listIssues } from './issues.js';
import { getMe, getMyOrgs } from './me.js';
import { createInvitation, createOrg, joinOrg, listOrgs, searchOrgs } from './orgs.js';
import { HttpProblem, problems } from './problem.js';

type Handler = (request: Request, ctx: Context) => Promise<Response>;

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
  const route = (handler: Handler) => (request: IRequest, ctx: Context) => handler(request as unknown as Request, ctx);

  router
    .get('/me', route(getMe))
    .get('/me/orgs', route(getMyOrgs))
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
    .all('*', (request: IRequest) => {
      const path = new URL(request.url).pathname;
      const allow = router.routes
        .filter(([method, pattern]) => method !== 'ALL' && pattern.test(path))
        .map(([method]) => method);
      throw allow.length ? problems.methodNotAllowed([...new Set(allow)]) : problems.notFound();
    });
  return router;
}
