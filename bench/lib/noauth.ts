// The app's REST and GraphQL surfaces around a fixed principal: no credential parsing, no PAT
// lookup, no rate limiting. Built only from src/ exports (src/ is not changed for it).
import { localEpoch } from '../../src/auth/credential-epoch.js';
import type { Principal } from '../../src/auth/principal.js';
import type { Config } from '../../src/config.js';
import type { Context } from '../../src/context.js';
import type { Database } from '../../src/db/client.js';
import { createGraphQLServer } from '../../src/graphql/yoga.js';
import { RateLimiter } from '../../src/limits/limiter.js';
import { MemoryStore } from '../../src/limits/memory-store.js';
import type { Logger } from '../../src/logger.js';
import { createRestRouter } from '../../src/rest/router.js';

export interface NoAuthApp {
  fetch(request: Request): Promise<Response>;
  close(): Promise<void>;
}

/** A principal acting as `userId` through one of their keys in `orgId` (what a PAT resolves to). */
export async function fixedPrincipal(db: Database, userId: string, orgId: string): Promise<Principal> {
  const key = await db.prisma.apiKey.findFirst({
    where: { userId, orgId, revokedAt: null },
    select: { id: true, membership: { select: { role: true } } },
  });
  if (!key) throw new Error(`no API key for user ${userId} in org ${orgId}`);
  return {
    kind: 'user',
    userId,
    credential: { kind: 'pat', id: key.id },
    org: { id: orgId, role: key.membership.role },
    orgBound: true,
  };
}

export function createNoAuthApp(config: Config, db: Database, logger: Logger, principal: Principal): NoAuthApp {
  const rest = createRestRouter(logger);
  const graphql = createGraphQLServer(config, logger);
  // Resolvers with an operation bucket of their own need a limiter in the context; the global
  // per-request admission that src/app.ts does is what this variant leaves out.
  const limiter = new RateLimiter(new MemoryStore());
  return {
    async fetch(request) {
      const ctx: Context = {
        principal,
        prisma: db.prisma,
        config,
        clientIp: '127.0.0.1',
        limiter,
        rateLimits: [],
        credentialEpoch: localEpoch,
      };
      const path = new URL(request.url).pathname;
      const response =
        path === '/api/graphql'
          ? await graphql.handleRequest(request, ctx)
          : ((await rest.fetch(request, ctx)) as Response);
      // The same finishing touches as src/app.ts, minus the rate-limit headers.
      response.headers.set('x-content-type-options', 'nosniff');
      if (!response.headers.has('cache-control')) response.headers.set('cache-control', 'no-store');
      return response;
    },
    close: () => limiter.close(),
  };
}
