import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defaultExtractPersistedOperationId, usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.js';
import type { Context } from '../context.js';

/**
 * Trusted documents (persisted operations): operators register the documents their dashboards
 * send in a JSON file, {"<sha256 hex of the document>": "<document>"}, named by
 * GRAPHQL_TRUSTED_DOCUMENTS. A client sends the hash instead of the document, as Apollo's
 * persisted queries do: `{"extensions": {"persistedQuery": {"version": 1, "sha256Hash": "..."}}}`.
 * GRAPHQL_TRUSTED_ONLY names the credential kinds (pat, oauth, session) that may send nothing
 * else: a leaked dashboard key then cannot run queries of its holder's choosing.
 */
export function loadTrustedDocuments(path: string | undefined): Map<string, string> {
  if (!path) return new Map();
  let entries: [string, unknown][];
  try {
    entries = Object.entries(JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>);
  } catch (error) {
    throw new Error(
      `GRAPHQL_TRUSTED_DOCUMENTS: cannot read ${path} as a JSON object of documents by hash (${(error as Error).message})`,
    );
  }
  const documents = new Map<string, string>();
  const wrong: string[] = [];
  for (const [hash, document] of entries) {
    // The hash must be the document's own: a registered hash then names exactly one text.
    if (typeof document !== 'string' || createHash('sha256').update(document).digest('hex') !== hash.toLowerCase())
      wrong.push(hash);
    else documents.set(hash.toLowerCase(), document);
  }
  if (wrong.length)
    throw new Error(
      `GRAPHQL_TRUSTED_DOCUMENTS: these keys are not the SHA-256 (hex) of their document: ${wrong.join(', ')}`,
    );
  return documents;
}

export function useTrustedDocuments(
  config: Pick<Config, 'graphqlTrustedDocuments' | 'graphqlTrustedOnly'>,
): Plugin<Context>[] {
  const documents = loadTrustedDocuments(config.graphqlTrustedDocuments);
  const restricted = new Set(config.graphqlTrustedOnly);
  const refuseArbitrary: Plugin<Context> = {
    // Before the persisted-operations plugin, which replaces a hash by its document.
    onParams({ params, context }) {
      const principal = (context as unknown as Context).principal;
      if (principal.kind !== 'user' || !restricted.has(principal.credential.kind)) return;
      // The hash alone: with a document beside it, the persisted-operations plugin runs the
      // document (it lets other credentials send any), so a registered hash would admit any text.
      if (!params.query && defaultExtractPersistedOperationId(params, undefined as never, context) !== null) return;
      throw new GraphQLError(
        `A ${principal.credential.kind} credential may send registered documents only: send the document's SHA-256 in extensions.persistedQuery, without a query.`,
        {
          extensions: { code: 'PERSISTED_QUERY_ONLY', http: { status: 400 } },
        },
      );
    },
  };
  return [
    refuseArbitrary,
    usePersistedOperations<Context>({
      allowArbitraryOperations: true,
      getPersistedOperation: (hash) => documents.get(hash.toLowerCase()) ?? null,
      customErrors: {
        notFound: {
          message: 'No registered document has this hash.',
          extensions: { code: 'PERSISTED_QUERY_NOT_FOUND', http: { status: 400 } },
        },
      },
    }),
  ];
}
