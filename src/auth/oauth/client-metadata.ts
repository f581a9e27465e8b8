import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import { safeFetch, SafeFetchError } from '../../http/safe-fetch.js';
import { OAuthError } from './errors.js';
import { redirectUriProblem } from './redirect-uri.js';

/**
 * OAuth Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, the MCP
 * authorization spec's preferred way, 2025-11-25): a client's `client_id` is an https URL whose
 * document describes it. We fetch it safely (src/http/safe-fetch.ts), check it, keep it as long
 * as its HTTP cache headers say, and mirror it into `oauth_clients` (id = the URL) so grants,
 * codes and the token endpoint treat it as any other public client.
 */

/** The draft's advice: small documents, answered fast. */
const MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 5_000;
/** Without cache headers, a document is kept this long; however long they say, at most a day. */
const DEFAULT_TTL_SECONDS = 300;
const MAX_TTL_SECONDS = 24 * 3600;
const MAX_ENTRIES = 1_000;

const Document = z.object({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(100).optional(),
  client_uri: z.string().optional(),
  redirect_uris: z.array(z.string().max(2000)).min(1).max(10),
  grant_types: z.array(z.string()).optional(),
  response_types: z.array(z.string()).optional(),
  // Public clients only: a document is public, so it cannot carry a shared secret (the draft forbids client_secret_*).
  token_endpoint_auth_method: z.literal('none').optional(),
});

const SUPPORTED_GRANTS = ['authorization_code', 'refresh_token'];

/** Seconds a response may be reused, from Cache-Control (max-age, no-store, no-cache) or Expires. */
export function freshFor(headers: Headers, now = Date.now()): number {
  const cacheControl = headers.get('cache-control')?.toLowerCase() ?? '';
  if (/(^|,)\s*(no-store|no-cache|private)\b/.test(cacheControl)) return 0;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/.exec(cacheControl);
  if (maxAge) return Math.min(Number(maxAge[2]), MAX_TTL_SECONDS);
  const expires = headers.get('expires');
  if (expires) {
    const at = Date.parse(expires);
    return Number.isNaN(at) ? 0 : Math.max(0, Math.min(Math.floor((at - now) / 1000), MAX_TTL_SECONDS));
  }
  return DEFAULT_TTL_SECONDS;
}

interface Entry {
  client: OAuthClient;
  until: number;
}

/** Fetches, checks and caches client metadata documents for one app. */
export class ClientMetadataResolver {
  private readonly cache = new Map<string, Entry>();

  constructor(private readonly config: Config) {}

  /** The client the document at `clientId` describes, mirrored into the database; throws an OAuthError (invalid_client) saying what is wrong. */
  async resolve(db: Db, clientId: string): Promise<OAuthClient> {
    const cached = this.cache.get(clientId);
    if (cached && cached.until > Date.now()) return cached.client;
    const url = new URL(clientId);
    let response: Awaited<ReturnType<typeof safeFetch>>;
    try {
      response = await safeFetch(url, {
        timeoutMs: TIMEOUT_MS,
        maxBytes: MAX_BYTES,
        allowedHosts: this.config.clientMetadata.allowedHosts,
        caPem: this.config.clientMetadata.caPem,
        headers: { accept: 'application/json' },
      });
    } catch (error) {
      if (error instanceof SafeFetchError)
        throw new OAuthError(
          'invalid_client',
          `The application's metadata document (${url.host}) could not be fetched: ${error.message}`,
        );
      throw error;
    }
    if (response.status !== 200)
      throw new OAuthError(
        'invalid_client',
        `The application's metadata document (${url.host}) answered ${response.status}.`,
      );
    let json: unknown;
    try {
      json = JSON.parse(response.body.toString('utf8'));
    } catch {
      throw new OAuthError('invalid_client', `The application's metadata document (${url.host}) is not JSON.`);
    }
    const parsed = Document.safeParse(json);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new OAuthError(
        'invalid_client',
        `The application's metadata document (${url.host}) is not valid: ${issue.path.join('.') || 'document'}: ${issue.message}.`,
      );
    }
    const document = parsed.data;
    if (document.client_id !== clientId)
      throw new OAuthError(
        'invalid_client',
        `The application's metadata document names another client_id (${document.client_id}), not its own URL.`,
      );
    for (const uri of document.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem)
        throw new OAuthError(
          'invalid_client',
          `The application's metadata document has a redirect URI we cannot use: ${problem}.`,
        );
    }
    const grantTypes = SUPPORTED_GRANTS.filter((grant) =>
      (document.grant_types ?? ['authorization_code']).includes(grant),
    );
    if (!grantTypes.includes('authorization_code'))
      throw new OAuthError(
        'invalid_client',
        "The application's metadata document does not ask for the authorization_code grant.",
      );
    const data = {
      name: document.client_name ?? url.host,
      redirectUris: document.redirect_uris,
      grantTypes,
      tokenEndpointAuthMethod: 'none',
      applicationType: 'web',
      secretHash: null,
    };
    const client = await db.oAuthClient.upsert({
      where: { id: clientId },
      create: { id: clientId, ...data },
      update: data,
    });
    const ttl = freshFor(response.headers);
    if (ttl > 0) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
      this.cache.set(clientId, { client, until: Date.now() + ttl * 1000 });
    }
    return client;
  }
}
