import { AuthError } from './auth/auth-error.js';
import { authenticate } from './auth/authenticate.js';
import type { Config } from './config.js';
import type { Context } from './context.js';
import { openDatabase, type Database } from './db/client.js';
import { applyMigrations } from './db/migrations.js';
import { createGraphQLServer } from './graphql/yoga.js';
import { httpsRedirect } from './http/https-policy.js';
import { createLogger, type Logger } from './logger.js';
import { HttpProblem, problems } from './rest/problem.js';
import { createRestRouter } from './rest/router.js';

export interface App {
  /** The whole service as one fetch handler. */
  fetch(request: Request): Promise<Response>;
  config: Config;
  db: Database;
  logger: Logger;
  close(): Promise<void>;
}

export interface AppOptions {
  /** An already open database (tests share one across apps); otherwise config.databaseUrl is opened. */
  db?: Database;
  logger?: Logger;
}

function bearerChallenge(config: Config, error?: AuthError): string {
  const parts = [`realm="${config.baseUrl}/api"`];
  if (error?.bearerError) parts.push(`error="${error.bearerError}"`, `error_description="${error.detail.replace(/"/g, "'")}"`);
  return `Bearer ${parts.join(', ')}`;
}

function authProblem(config: Config, error: AuthError): HttpProblem {
  const headers: Record<string, string> = error.status === 401 ? { 'www-authenticate': bearerChallenge(config, error) } : {};
  return new HttpProblem(error.status, error.code.toUpperCase(), error.detail, undefined, headers);
}

export async function createApp(config: Config, options: AppOptions = {}): Promise<App> {
  const logger = options.logger ?? createLogger(config.logLevel);
  const db = options.db ?? (await openDatabase(config.databaseUrl));
  if (config.migrateOnStart && !options.db) {
    const applied = await applyMigrations(db.adapterFactory);
    if (applied.length) logger.info({ applied }, 'applied database migrations');
  }
  const rest = createRestRouter(logger);
  const graphql = createGraphQLServer(config, logger);

  async function handleApi(request: Request): Promise<Response> {
    const principal = await authenticate(db.prisma, request.headers);
    if (principal instanceof AuthError) return authProblem(config, principal).toResponse();
    if (principal.kind === 'anonymous') {
      return new HttpProblem(401, 'UNAUTHENTICATED', 'Send a credential: Authorization: Bearer <token> (or X-Auth-Token).', undefined, {
        'www-authenticate': bearerChallenge(config),
      }).toResponse();
    }
    const ctx: Context = { principal, prisma: db.prisma, config };
    const path = new URL(request.url).pathname;
    if (path === '/api/graphql') return graphql.handleRequest(request, ctx);
    return (await rest.fetch(request, ctx)) as Response;
  }

  async function fetch(request: Request): Promise<Response> {
    const redirect = httpsRedirect(request, config.baseUrl, config.trustProxy);
    if (redirect) return redirect;
    const path = new URL(request.url).pathname;
    let response: Response;
    try {
      response = path === '/api' || path.startsWith('/api/') ? await handleApi(request) : problems.notFound().toResponse();
    } catch (error) {
      logger.error({ err: error }, 'unexpected error');
      response = problems.internal().toResponse();
    }
    response.headers.set('x-content-type-options', 'nosniff');
    if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
    return response;
  }

  return {
    fetch,
    config,
    db,
    logger,
    async close() {
      if (!options.db) await db.close();
    },
  };
}
