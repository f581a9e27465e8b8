/**
 * The names under which the API description (OpenAPI, src/rest/openapi-protocol.ts) declares each
 * kind of credential; the API docs page names the bearer one to let a reader paste a key.
 */
export const SCHEMES = {
  bearer: 'bearerToken',
  header: 'authTokenHeader',
  oauth2: 'oauth2',
  session: 'sessionCookie',
} as const;
