import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sessionCookieName } from '../src/auth/session.js';
import { PATHS, surfaceOf, type SurfaceName } from '../src/http/surfaces.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

// The surface table (src/http/surfaces.ts) decides, per path, what the pipeline's steps do. Each
// row below is a path of one surface; the test checks through the whole stack that the CORS and
// CSRF steps do what the surface's rules say, so a rule changed in the table is seen in answers.

const SAMPLES: [path: string, surface: SurfaceName][] = [
  [PATHS.healthz, 'operations'],
  [PATHS.apiDocs, 'public-documents'],
  ['/assets/graphiql/x/graphiql.css', 'public-documents'],
  ['/assets/charts/x/dashboard.js', 'public-documents'],
  ['/', 'pages'],
  ['/login', 'pages'],
  ['/orgs/acme/issues/WEB-1', 'pages'],
  ['/assets/app.css', 'pages'],
  [PATHS.authorize, 'oauth-pages'],
  ['/oauth/token', 'oauth'],
  ['/.well-known/oauth-authorization-server', 'oauth'],
  [PATHS.graphql, 'graphql'],
  [PATHS.mcp, 'mcp'],
  ['/api/issues', 'rest'],
  [PATHS.api, 'rest'],
  ['/apix', 'none'],
  ['/nowhere', 'none'],
];

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('the surface table', () => {
  test.each(SAMPLES)('%s belongs to %s', (path, name) => {
    expect(surfaceOf(path).name).toBe(name);
  });

  test.each(SAMPLES)('%s: a CORS preflight is answered exactly where the surface allows CORS', async (path) => {
    const response = await t.app.fetch(
      new Request(`${ORIGIN}${path}`, { method: 'OPTIONS', headers: { origin: 'https://spa.example.test', 'access-control-request-method': 'POST' } }),
    );
    const answered = response.status === 204 && response.headers.get('access-control-allow-origin') === '*';
    expect(answered).toBe(surfaceOf(path).cors);
  });

  test.each(SAMPLES)('%s: a cross-site write with the session cookie is refused exactly where the surface checks CSRF', async (path) => {
    const response = await t.app.fetch(
      new Request(`${ORIGIN}${path}`, {
        method: 'POST',
        headers: { origin: 'https://evil.example.test', cookie: `${sessionCookieName(t.app.config)}=not-a-session` },
      }),
    );
    const refused = response.status === 403 && ((await response.json().catch(() => null)) as { code?: string } | null)?.code === 'csrf_rejected';
    expect(refused).toBe(surfaceOf(path).csrf !== 'never');
  });
});
