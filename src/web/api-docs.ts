import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.js';
import { SCHEMES } from '../auth/security-schemes.js';
import { problemResponse, problems } from '../http/problem.js';
import { page } from '../views/render.js';
import { assetSet, CSS, JS } from '../views/static-assets.js';
import { Response } from '../http/fetch-api.js';
import { PATHS } from '../http/surfaces.js';

/**
 * GET /api/docs: the API reference, Swagger UI rendering /api/openapi.json, with every file it
 * needs served from here (the swagger-ui-dist package and two files of ours), so it works on a
 * machine without internet access and sends nothing to another origin.
 *
 * Swagger UI rather than Scalar or Redoc: Redoc has no "try it"; Scalar's standalone bundle is
 * 4.3 MB (Swagger UI's 1.7 MB) with 27 runtime dependencies, injects its stylesheet as a <style>
 * element (a nonce per response, or `style-src 'unsafe-inline'`) and loads fonts from
 * fonts.scalar.com unless told not to. swagger-ui-dist is one standalone bundle, needs neither
 * eval nor inline styles (React sets styles through the CSSOM, which CSP does not govern), and
 * its "try it" shows every response header, so the reader sees the rate-limit headers.
 */

/** The API reference page (a page: no CORS, src/http/surfaces.ts). */
const PAGE_PATH = PATHS.apiDocs;
const ASSET_PREFIX = PATHS.apiDocsAssets;

const swaggerDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const ourDir = fileURLToPath(new URL('./api-docs/', import.meta.url));

/** The only files served under ASSET_PREFIX: looked up by exact URL, so no path can reach another file. */
const SOURCES = [
  { name: 'swagger-ui.css', file: join(swaggerDir, 'swagger-ui.css'), type: CSS },
  { name: 'api-docs.css', file: join(ourDir, 'api-docs.css'), type: CSS },
  { name: 'swagger-ui-bundle.js', file: join(swaggerDir, 'swagger-ui-bundle.js'), type: JS },
  { name: 'api-docs.js', file: join(ourDir, 'api-docs.js'), type: JS },
] as const;

const assets = assetSet(ASSET_PREFIX, SOURCES);
const assetUrls = assets.urls;

/**
 * The page's Content-Security-Policy: that of the other pages (render.ts) but for two sources.
 * - script-src 'self' (as there): Swagger UI's bundle and our start-up script are files served
 *   from here; no inline script, no eval (the bundle's one `new Function("return this")` is
 *   never reached: webpack returns globalThis first). The browser test fails on any violation.
 * - style-src 'self' (as there): swagger-ui.css and ours; no inline <style>.
 * - img-src 'self' data: (theirs: 'self'): swagger-ui.css draws its icons as data: SVG images, and
 *   a data: image cannot send anything anywhere.
 * - connect-src 'self' (as there): the OpenAPI document and the "try it" calls, to this origin only
 *   (the document's server is BASE_URL, where this page is served).
 * - form-action 'none' (theirs: 'self'): Swagger UI handles its forms in script, never submits them.
 */
const apiDocsContentSecurityPolicy =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

function methodNotAllowed(method: string): Response | null {
  return method === 'GET' || method === 'HEAD' ? null : problemResponse(problems.methodNotAllowed(['GET', 'HEAD']));
}

function docsPage(config: Config): Response {
  return page(
    'api-docs',
    {
      title: 'API reference',
      assets: assetUrls,
      baseUrl: config.baseUrl,
      graphiql: config.graphqlIntrospection,
      bearerScheme: SCHEMES.bearer,
    },
    {
      headers: {
        'content-security-policy': apiDocsContentSecurityPolicy,
        // The page names its assets by hash: a short cache lets an upgrade show within minutes.
        'cache-control': 'public, max-age=300',
      },
    },
  );
}

/**
 * The reference page and its assets, or null for any other path. Public: answered before any
 * credential is looked at (like /api/openapi.json), since it holds nothing but the public document.
 */
export function serveApiDocs(request: Request, path: string, config: Config): Response | null {
  let response: Response;
  if (path === PAGE_PATH) response = methodNotAllowed(request.method) ?? docsPage(config);
  else return assets.serve(request, path);
  return request.method === 'HEAD'
    ? new Response(null, { status: response.status, headers: response.headers })
    : response;
}
