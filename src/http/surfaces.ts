/**
 * Which surface serves a path, and what the pipeline's steps do for it: the one place where a
 * path is looked at. The steps (src/pipeline) read the rules of the request's surface and never
 * test paths of their own.
 *
 * The table is ordered: the first entry whose path matches is the request's surface. A path no
 * entry claims belongs to `none` (a 404 in the shape the client asked for). The entries' paths
 * do not overlap except where the order says so (the API reference, GraphQL and MCP before the
 * rest of /api).
 */

/** The paths other modules name (the GraphQL endpoint's option, links in documents and pages). */
export const PATHS = {
  api: '/api',
  graphql: '/api/graphql',
  mcp: '/api/mcp',
  apiDocs: '/api/docs',
  /** Where the hashed files of the API reference, GraphiQL and the dashboard's charts are served (src/views/static-assets.ts). */
  apiDocsAssets: '/assets/api-docs/',
  graphiqlAssets: '/assets/graphiql/',
  chartAssets: '/assets/charts/',
  authorize: '/oauth/authorize',
  healthz: '/healthz',
  readyz: '/readyz',
  metrics: '/metrics',
} as const;

export type SurfaceName =
  | 'operations'
  | 'public-documents'
  | 'pages'
  | 'oauth-pages'
  | 'oauth'
  | 'graphql'
  | 'mcp'
  | 'rest'
  | 'none';

/**
 * Which credential a surface authenticates: `none` (public, or the surface authenticates its own
 * clients, as the OAuth token endpoint does), `session` (pages: the session cookie only, a
 * bearer token is not a browser's), `any` (the API: a bearer token, X-Auth-Token or the cookie).
 */
type CredentialRule = 'none' | 'session' | 'any';

/**
 * When an unsafe method (POST, PUT...) without a bearer token must come from this service's own
 * pages (Origin, else Referer): `always` (page forms), `with-session` (the API, when the cookie
 * is what authenticates), `never` (back-channel endpoints that authenticate clients, not cookies).
 */
type CsrfRule = 'always' | 'with-session' | 'never';

/** Who reads a request body, and so its limit (src/http/body-limit.ts); `none`: the surface never reads one. */
export type BodyRule = 'api' | 'oauth' | 'page' | 'none';

/** The shape of a refusal made before the surface runs (a body too large): one renderer each (src/pipeline/refusals.ts). */
export type RefusalShape = 'problem' | 'oauth' | 'page';

export interface Surface {
  name: SurfaceName;
  credentials: CredentialRule;
  csrf: CsrfRule;
  /** Whether browser apps on other origins may call it (src/pipeline/cors.ts). */
  cors: boolean;
  body: BodyRule;
  refusal: RefusalShape;
  /** Whether a POST with an Idempotency-Key runs once (src/idempotency). */
  idempotent: boolean;
  /**
   * Whether the request must name this service as its Host, and as its Origin when a browser
   * sends one that CORS does not allow (src/pipeline/host-check.ts): DNS rebinding protection,
   * which MCP's Streamable HTTP transport requires of servers.
   */
  hostBound: boolean;
}

interface Entry extends Surface {
  matches(path: string): boolean;
}

const exact =
  (...paths: string[]) =>
  (path: string) =>
    paths.includes(path);
const under =
  (...prefixes: string[]) =>
  (path: string) =>
    prefixes.some((prefix) => path.startsWith(prefix));

/** The people's pages (src/web): every path their router answers, its own 404 included. */
const PAGE_PATHS = [
  /^\/$/,
  /^\/(login|logout|set-password|setup|join)$/,
  /^\/invite\/[^/]+(\/accept)?$/,
  /^\/settings\/applications(\/[^/]+\/revoke)?$/,
  /^\/account(\/[^/]+)?$/,
  /^\/orgs\/[^/]+(\/.*)?$/,
  /^\/assets\/[^/]+$/,
];

const PUBLIC = {
  credentials: 'none',
  csrf: 'never',
  cors: false,
  body: 'none',
  refusal: 'problem',
  idempotent: false,
  hostBound: false,
} as const;

/** What a person's browser reaches: a session's cookie, CSRF-checked forms, refusals as pages. */
const BROWSER = {
  credentials: 'session',
  csrf: 'always',
  cors: false,
  body: 'page',
  refusal: 'page',
  idempotent: false,
  hostBound: false,
} as const;

const SURFACES: readonly Entry[] = [
  // Answered by the operations layer (src/ops/observe.ts) on GET and HEAD, before the pipeline.
  { name: 'operations', matches: exact(PATHS.healthz, PATHS.readyz, PATHS.metrics), ...PUBLIC },
  // The API reference and the files of the API reference, GraphiQL and the dashboard's charts:
  // public, answered before any credential is looked at. The reference page is under /api, so a
  // cookie-carrying write to it is checked like the API's.
  { name: 'public-documents', matches: exact(PATHS.apiDocs), ...PUBLIC, csrf: 'with-session' },
  { name: 'public-documents', matches: under(PATHS.apiDocsAssets, PATHS.graphiqlAssets, PATHS.chartAssets), ...PUBLIC },
  // The consent screen is a page a browser posts to.
  { name: 'oauth-pages', matches: exact(PATHS.authorize), ...BROWSER },
  // The authorization server's back channel (token, registration, revocation...) and its metadata.
  {
    name: 'oauth',
    matches: under('/oauth/', '/.well-known/'),
    credentials: 'none',
    csrf: 'never',
    cors: true,
    body: 'oauth',
    refusal: 'oauth',
    hostBound: false,
    idempotent: false,
  },
  {
    name: 'graphql',
    matches: exact(PATHS.graphql),
    credentials: 'any',
    csrf: 'with-session',
    cors: true,
    body: 'api',
    refusal: 'problem',
    hostBound: false,
    idempotent: true,
  },
  // A stream of messages, each its own request: no answer to keep for a retry.
  {
    name: 'mcp',
    matches: exact(PATHS.mcp),
    credentials: 'any',
    csrf: 'with-session',
    cors: true,
    body: 'api',
    refusal: 'problem',
    hostBound: true,
    idempotent: false,
  },
  {
    name: 'rest',
    matches: (path) => path === PATHS.api || path.startsWith(`${PATHS.api}/`),
    credentials: 'any',
    csrf: 'with-session',
    cors: true,
    body: 'api',
    refusal: 'problem',
    hostBound: false,
    idempotent: true,
  },
  // Last: the API above is most of the traffic, and its paths never match a page's pattern.
  { name: 'pages', matches: (path) => PAGE_PATHS.some((pattern) => pattern.test(path)), ...BROWSER },
];

const NONE: Surface = { name: 'none', ...PUBLIC };

/** The surface that serves `path` (a URL's pathname). */
export function surfaceOf(path: string): Surface {
  return SURFACES.find((entry) => entry.matches(path)) ?? NONE;
}

/**
 * A route its surface answers to anyone (REST's own OpenAPI document, a route declared without
 * an operation): no credential, no body read, nothing kept for a retry.
 */
export function asPublic(surface: Surface): Surface {
  return { ...surface, credentials: 'none', body: 'none', idempotent: false };
}
