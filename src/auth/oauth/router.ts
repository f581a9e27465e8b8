import { Router, type IRequest } from 'itty-router';
import type { Context } from '../../context.js';
import { onRequest, routeWithoutQuery } from '../../http/routing.js';
import type { Logger } from '../../logger.js';
import { requestLogger } from '../../ops/request-scope.js';
import type { Config } from '../../config.js';
import { decideAuthorize, showAuthorize } from './authorize.js';
import type { DescribedOperation } from './capabilities.js';
import { ClientMetadataResolver } from './client-metadata.js';
import { OAuthError, oauthErrorResponse } from './errors.js';
import { introspect } from './introspect.js';
import { authorizationServerMetadata, protectedResourceMetadata } from './metadata.js';
import { register } from './register.js';
import { revoke } from './revoke.js';
import type { SigningKeys } from './signing-keys.js';
import { token } from './token.js';
import { json } from '../../http/json.js';
import type { Response } from '../../http/fetch-api.js';

/** Discovery documents and keys change only with a deploy: clients may keep them five minutes. */
const published = (body: unknown) => json(body, { headers: { 'cache-control': 'public, max-age=300' } });

/** The authorization server: discovery, registration, authorization, token, revocation, introspection. */
/** `operations` are what the consent page lists a token's powers from (src/auth/oauth/capabilities.ts). */
export function createOAuthRouter(
  logger: Logger,
  keys: SigningKeys,
  config: Config,
  operations: readonly DescribedOperation[],
) {
  const clients = new ClientMetadataResolver(config);
  const router = Router<IRequest, [Context, Request]>({
    catch: (error: unknown, _routing: IRequest, ctx: Context) => {
      if (error instanceof OAuthError) return oauthErrorResponse(error);
      requestLogger(logger, ctx.scope).error({ err: error }, 'unexpected error in the authorization server');
      return oauthErrorResponse(
        new OAuthError('server_error', 'Something went wrong on our side. It has been logged.'),
      );
    },
  });
  type Handler = (request: Request, ctx: Context) => Promise<Response> | Response;
  const route = (handler: Handler) => onRequest(handler);
  router
    .get(
      '/.well-known/oauth-authorization-server',
      route((_r, ctx) => published(authorizationServerMetadata(ctx.config))),
    )
    .get(
      '/.well-known/oauth-protected-resource',
      route((_r, ctx) => published(protectedResourceMetadata(ctx.config))),
    )
    .get(
      '/.well-known/oauth-protected-resource/api',
      route((_r, ctx) => published(protectedResourceMetadata(ctx.config))),
    )
    // The path-aware address of the MCP endpoint (RFC 9728 §3.1), where MCP clients look first.
    // Its resource stays `{base}/api`, the audience of every token, which covers /api/mcp.
    .get(
      '/.well-known/oauth-protected-resource/api/mcp',
      route((_r, ctx) => published(protectedResourceMetadata(ctx.config))),
    )
    .get(
      '/oauth/jwks',
      route(() => published(keys.publicJwks())),
    )
    .post('/oauth/register', route(register))
    .get(
      '/oauth/authorize',
      route((r, ctx) => showAuthorize(r, ctx, clients, operations)),
    )
    .post(
      '/oauth/authorize',
      route((r, ctx) => decideAuthorize(r, ctx, clients, operations)),
    )
    .post(
      '/oauth/token',
      route((r, ctx) => token(r, ctx, keys)),
    )
    .post(
      '/oauth/revoke',
      route((r, ctx) => revoke(r, ctx, keys)),
    )
    .post(
      '/oauth/introspect',
      route((r, ctx) => introspect(r, ctx, keys)),
    )
    .all('*', (request: IRequest) => {
      const path = new URL(request.url).pathname;
      const allow = router.routes.filter(([m, p]) => m !== 'ALL' && p.test(path)).map(([m]) => m);
      return allow.length
        ? oauthErrorResponse(
            new OAuthError('invalid_request', `Use ${allow.join(' or ')}.`, {
              status: 405,
              headers: { allow: allow.join(', ') },
            }),
          )
        : oauthErrorResponse(new OAuthError('invalid_request', 'No such endpoint.', { status: 404 }));
    });
  // Which paths come here, and which of them is a page, is the surface table's to say (src/http/surfaces.ts).
  return {
    fetch: (request: Request, ctx: Context) => routeWithoutQuery(router, request, ctx),
  };
}
