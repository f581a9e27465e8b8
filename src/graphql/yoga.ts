import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import { BODY_LIMITS } from '../http/body-limit.js';
import { QUERY_LIMITS } from '../limits/graphql-query.js';
import type { Logger } from '../logger.js';
import { clientError } from '../schema/core/client-errors.js';
import { schema } from '../schema/index.js';
import { renderGraphiQL, useGraphiQLHeaders } from './graphiql.js';
import { useCompiledExecution } from './compiled-execution.js';
import { yogaLogger } from './logging.js';
import { useQueryBounds } from './query-bounds.js';
import { useNotAcceptableProblem } from './not-acceptable.js';
import { useTrustedDocuments } from './trusted-documents.js';
import { PATHS } from '../http/surfaces.js';
import { useUnsupportedMediaTypeProblem } from './unsupported-media-type.js';

export type Yoga = YogaServerInstance<Context, Record<string, never>>;

/** GraphQL over HTTP at /api/graphql. The caller is already authenticated by the app. */
export function createGraphQLServer(config: Config, logger: Logger): Yoga {
  return createYoga<Context, Record<string, never>>({
    schema,
    graphqlEndpoint: PATHS.graphql,
    landingPage: false,
    // The app's one CORS step decides (src/pipeline/cors.ts). Yoga's own would echo any Origin with
    // Access-Control-Allow-Credentials: true, letting another site read GraphQL answers made with the session cookie.
    cors: false,
    graphiql: config.graphqlIntrospection,
    // Served with its files from here (src/graphql/graphiql.ts): nothing from a CDN.
    renderGraphiQL,
    // The app reads every body within this limit before yoga sees it (src/http/body-limit.ts);
    // yoga's own check (25 MB by default) is kept at the same number for a caller that skips the app.
    maxRequestBodySize: BODY_LIMITS.api,
    plugins: [
      ...useTrustedDocuments(config),
      useCompiledExecution({ compileAfter: config.graphqlCompileAfter }),
      EnvelopArmorPlugin({
        maxDepth: { n: QUERY_LIMITS.maxDepth },
        maxAliases: { n: QUERY_LIMITS.maxAliases },
        maxTokens: { n: QUERY_LIMITS.maxTokens },
        maxDirectives: { n: QUERY_LIMITS.maxDirectives },
        // Off: useQueryBounds' cost is the one cost limit, as it counts lists by their size.
        costLimit: { enabled: false },
        // "Did you mean ...?" hints reveal the schema; off wherever introspection is.
        blockFieldSuggestion: { enabled: !config.graphqlIntrospection },
      }),
      useQueryBounds({
        ...QUERY_LIMITS,
        timeoutMs: config.graphqlTimeoutMs,
        maxResponseBytes: config.graphqlMaxResponseBytes,
        logger,
      }),
      ...(config.graphqlIntrospection ? [] : [useDisableIntrospection()]),
      useUnsupportedMediaTypeProblem(),
      useGraphiQLHeaders(),
      useNotAcceptableProblem(),
    ],
    logging: yogaLogger(logger),
    maskedErrors: {
      maskError(error, message) {
        if (error instanceof GraphQLError) {
          const exposed = clientError(error);
          if (exposed)
            return exposed === error.originalError
              ? error
              : new GraphQLError(exposed.message, { ...error, extensions: exposed.extensions });
          // graphql-js's own errors (syntax, validation, variable coercion, possibly wrapping
          // one another) are about the request, not about us.
          if (!error.originalError || error.originalError instanceof GraphQLError) {
            return error.extensions.code
              ? error
              : new GraphQLError(error.message, {
                  ...error,
                  extensions: { ...error.extensions, code: 'BAD_USER_INPUT' },
                });
          }
        }
        logger.error(
          { err: error instanceof GraphQLError ? (error.originalError ?? error) : error },
          'unexpected GraphQL error',
        );
        return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      },
    },
  });
}
