import { Router, type IRequest } from 'itty-router';
import type { Context } from '../../context.js';
import { onRequest, routeWithoutQuery } from '../../http/routing.js';
import type { Logger } from '../../logger.js';
import { requestLogger } from '../../ops/request-scope.js';
import type { Config } from '../../config.js';
import { decideAuthorize, showAuthorize } from './authorize.js';
import { ClientMetadataResolver } from './client-metadata.js';
import { OAuthError } from './errors.js';
import { introspect } from './introspect.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import { register } from './register.js';
import { revoke } from './revoke.js';
import type { SigningKeys } from './signing-keys.js';
import { token } from './token.js';
import { Response } from '../../http/fetch-api.js';

function json(body: unknown, cache = 'public, max-age=300'): Response {
  return new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json', 'cache-control': cache } });
}

/** The authorization server: discovery, registration, authorization, token, revocation, introspection. */
export function createOAuthRouter(logger: Logger, keys: SigningKeys, config: Config) {
  const clients = new ClientMetadataResolver(config);
  const router = Router<IRequest, [Context, Request]>({
    catch: (error: unknown, _routing: IRequest, ctx: Context) => {
      if (error instanceof OAuthError) return error.toResponse();
      requestLogger(logger, ctx.scope).error({ err: error }, 'unexpected error in the authorization server');
      return new OAuthError('server_error', 'Something went wrong on our side. It has been logged.', 500).toResponse();
    },
  });
  type Handler = (request: Request, ctx: Context) => Promise<Response> | Response;
  const route = (handler: Handler) => onRequest(handler);
  router
    .get('/.well-known/oauth-authorization-server', route((_r, ctx) => json(authorizationServerMetadata(ctx.config))))
    .get('/.well-known/oauth-protected-resource', route((_r, ctx) => json(protectedResourceMetadata(ctx.config))))
    .get('/.well-known/oauth-protected-resource/api', route((_r, ctx) => json(protectedResourceMetadata(ctx.config))))
    .get('/oauth/jwks', route(() => json(keys.publicJwks())))
    .post('/oauth/register', route(register))
    .get('/oauth/authorize', route((r, ctx) => showAuthorize(r, ctx, clients)))
    .post('/oauth/authorize', route((r, ctx) => decideAuthorize(r, ctx, clients)))
    .post('/oauth/token', route((r, ctx) => token(r, ctx, keys)))
    .post('/oauth/revoke', route((r, ctx) => revoke(r, ctx, keys)))
    .post('/oauth/introspect', route((r, ctx) => introspect(r, ctx, keys)))
    .all('*', (request: IRequest) => {
      const path = new URL(request.url).pathname;
      const allow = router.routes.filter(([m, p]) => m !== 'ALL' && p.test(path)).map(([m]) => m);
      return allow.length
        ? new OAuthError('invalid_request', `Use ${allow.join(' or ')}.`, 405, { allow: allow.join(', ') }).toResponse()
        : new OAuthError('invalid_request', 'No such endpoint.', 404).toResponse();
    });
  // Which paths come here, and which of them is a page, is the surface table's to say (src/http/surfaces.ts).
  return {
    fetch: (request: Request, ctx: Context) => routeWithoutQuery(router, request, ctx),
  };
}
