import { timingSafeEqual } from 'node:crypto';
import type { Db } from '../../db/client.js';
import type { OAuthClient } from '../../generated/prisma/client.js';
import { hashToken } from '../pat-token.js';
import { OAuthError } from './errors.js';
import type { singleValued } from './params.js';
import { isStorableText } from '../../schema/core/text.js';

// A 401 must carry a challenge (RFC 9110 §15.5.2); Basic is the header scheme we accept.
function invalidClient(description: string): OAuthError {
  return new OAuthError('invalid_client', description);
}

/**
 * Authenticates the client of a back-channel request by the one method it registered:
 * `client_secret_basic` (HTTP Basic), `client_secret_post` (body), or `none` (public client,
 * `client_id` in the body). Any other method, or two at once, is refused.
 */
export async function authenticateClient(
  db: Db,
  request: Request,
  params: ReturnType<typeof singleValued>,
): Promise<OAuthClient> {
  const authorization = request.headers.get('authorization');
  const bodySecret = params.get('client_secret');
  let clientId = params.get('client_id');
  let secret: string | undefined;
  let method: 'client_secret_basic' | 'client_secret_post' | 'none';

  if (authorization) {
    const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(authorization);
    // Stryker disable next-line StringLiteral: any text without a colon is refused the same way
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon < 0) throw invalidClient('Malformed HTTP Basic client credentials.');
    if (bodySecret) throw new OAuthError('invalid_request', 'Use one client authentication method, not two.');
    // RFC 6749 §2.3.1: both parts are form-urlencoded before Basic encoding.
    const basicId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' '));
    if (clientId && clientId !== basicId)
      throw new OAuthError('invalid_request', 'client_id differs from the authenticated client.');
    clientId = basicId;
    secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' '));
    method = 'client_secret_basic';
  } else if (bodySecret) {
    secret = bodySecret;
    method = 'client_secret_post';
  } else {
    method = 'none';
  }
  if (!clientId) throw invalidClient('Client authentication failed: no client_id.');
  const client = isStorableText(clientId) ? await db.oAuthClient.findUnique({ where: { id: clientId } }) : null;
  if (!client) throw invalidClient('Client authentication failed: unknown client.');
  if (client.tokenEndpointAuthMethod !== method) {
    throw invalidClient(`This client authenticates with ${client.tokenEndpointAuthMethod}, not ${method}.`);
  }
  if (method !== 'none') {
    const expected = client.secretHash ? Buffer.from(client.secretHash) : Buffer.alloc(32);
    // Stryker disable next-line StringLiteral: every method but none has set the secret
    if (!timingSafeEqual(Buffer.from(hashToken(secret ?? '')), expected) || !client.secretHash) {
      throw invalidClient('Client authentication failed: wrong secret.');
    }
  }
  return client;
}
