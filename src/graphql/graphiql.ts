import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'graphql-yoga';
import { PATHS } from '../http/surfaces.js';
import { assetSet, CSS, JS } from '../views/static-assets.js';

/**
 * GraphiQL at /api/graphql (for a browser), working offline: graphql-yoga's stock page loads
 * its bundle, stylesheet and editor workers from unpkg.com, so on a machine without internet it
 * stayed blank. The same files come from @graphql-yoga/render-graphiql here (yoga's GraphiQL
 * built into strings, with no dependencies: @graphql-yoga/graphiql would install the editor's
 * sources, over 150 MB, to ship the same build), served by the service under
 * /assets/graphiql/, and the page loads nothing from any other origin.
 */

const ASSET_PREFIX = PATHS.graphiqlAssets;
type Bundle = typeof import('@graphql-yoga/render-graphiql/graphiql');
let bundle: Bundle | undefined;
/** Loaded on first use: its strings are about 9 MB. */
const built = () => (bundle ??= createRequire(import.meta.url)('@graphql-yoga/render-graphiql/graphiql') as Bundle);

const assets = assetSet(ASSET_PREFIX, [
  { name: 'graphiql.css', read: () => built().css, type: CSS },
  { name: 'yoga-graphiql.umd.js', read: () => built().js, type: JS },
  { name: 'editor.worker.js', read: () => built().editorWorkerService, type: JS },
  { name: 'json.worker.js', read: () => built().jsonWorker, type: JS },
  { name: 'graphql.worker.js', read: () => built().graphqlWorker, type: JS },
  {
    name: 'graphiql-start.js',
    file: fileURLToPath(new URL('./graphiql/graphiql-start.js', import.meta.url)),
    type: JS,
  },
] as const);

/** GraphiQL's files, or null for a path outside /assets/graphiql/. Public, like the API reference's. */
export const serveGraphiQLAsset = (request: Request, path: string) => assets.serve(request, path);

/**
 * The page's CSP. Scripts and workers only from here, no eval. Styles: the editor (Monaco)
 * inserts <style> elements at run time, so 'unsafe-inline' for styles only (a style cannot run
 * code); its fonts and icons are data: URLs inside graphiql.css. Requests: this origin only.
 */
const graphiqlContentSecurityPolicy =
  "default-src 'none'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; font-src data:; img-src 'self' data:; connect-src 'self'; form-action 'none'; frame-ancestors 'none'; base-uri 'none'";

const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** For createYoga's `renderGraphiQL`: the page, with yoga's options as JSON data (never as script). */
export function renderGraphiQL(options: Record<string, unknown> = {}): string {
  const u = assets.urls;
  const workers = {
    editorWorkerService: u['editor.worker.js'],
    json: u['json.worker.js'],
    graphql: u['graphql.worker.js'],
  };
  // In a <script type="application/json">, only "</" could end the element early.
  const json = JSON.stringify({ title: 'workmgmt GraphQL', ...options }).replace(/</g, '\\u003c');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL · workmgmt</title><link rel="icon" href="/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="${u['graphiql.css']}"></head>
<body id="graphiql-page" data-workers="${escapeHtml(JSON.stringify(workers))}"><noscript>GraphiQL needs JavaScript. The API itself works without it: POST queries to ${PATHS.graphql}.</noscript>
<main id="root">Loading GraphiQL…</main>
<script type="application/json" id="graphiql-options">${json}</script>
<script src="${u['yoga-graphiql.umd.js']}"></script><script src="${u['graphiql-start.js']}"></script></body></html>`;
}

/** Gives the GraphiQL page (yoga's HTML answer) its CSP and the pages' other safety headers. */
export function useGraphiQLHeaders(): Plugin {
  return {
    onResponse({ response }) {
      if (!response.headers.get('content-type')?.startsWith('text/html')) return;
      response.headers.set('content-security-policy', graphiqlContentSecurityPolicy);
      response.headers.set('x-frame-options', 'DENY');
      response.headers.set('referrer-policy', 'same-origin');
    },
  };
}
