import type { Config } from '../../config.js';
import { SCOPE_NAMES } from './scopes.js';

/** RFC 8414 authorization server metadata. */
export function authorizationServerMetadata(config: Config) {
  const base = config.baseUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    introspection_endpoint: `${base}/oauth/introspect`,
    jwks_uri: `${base}/oauth/jwks`,
    scopes_supported: SCOPE_NAMES,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    authorization_response_iss_parameter_supported: true,
    // An https client_id is the URL of the client's metadata document (src/auth/oauth/client-metadata.ts).
    client_id_metadata_document_supported: true,
  };
}

/** RFC 9728 protected resource metadata for the API. */
export function protectedResourceMetadata(config: Config) {
  return {
    resource: `${config.baseUrl}/api`,
    authorization_servers: [config.baseUrl],
    scopes_supported: SCOPE_NAMES,
    bearer_methods_supported: ['header'],
    resource_name: 'workmgmt API',
  };
}

export const resourceMetadataUrl = (config: Config) => `${config.baseUrl}/.well-known/oauth-protected-resource/api`;
