import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import type { Config } from '../config.js';
import type { Context } from '../context.js';
import type { Logger } from '../logger.js';
import { clientError } from '../schema/client-errors.js';
import { schema } from '../schema/index.js';

export type Yoga = YogaServerInstance<Context, Record<string, never>>;

/** GraphQL over HTTP at /api/graphql. The caller is already authenticated by the app. */
export function createGraphQLServer(config: Config, logger: Logger): Yoga {
  return createYoga<Context, Record<string, never>>({
    schema,
    graphqlEndpoint: '/api/graphql',
    landingPage: false,
    graphiql: !config.production,
    logging: logger.child({ component: 'graphql' }),
    maskedErrors: {
      maskError(error, message) {
        if (error instanceof GraphQLError) {
          const exposed = clientError(error);
          if (exposed) return exposed === error.originalError ? error : new GraphQLError(exposed.message, { ...error, extensions: exposed.extensions });
          if (!error.originalError) return error; // parse / validation errors are the client's
        }
        logger.error({ err: error instanceof GraphQLError ? (error.originalError ?? error) : error }, 'unexpected GraphQL error');
        return new GraphQLError(message, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
      },
    },
  });
}
