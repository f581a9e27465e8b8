import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sessionCookieName } from '../src/auth/session.js';
import { PATHS, surfaceOf, type SurfaceName } from '../src/http/surfaces.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

// The surface table (src/http/surfaces.ts) decides, per path, what the pipeline's steps do. Each
// row below is a path of one surface with the CORS and CSRF behaviour it must have; the test
// checks the table says so and, through the whole stack, that the steps do what the table says.

const SAMPLES: [path: string, surface: SurfaceName, cors: boolean, csrf: boolean][] = [
  [PATHS.healthz, 'operations', false, false],
  [PATHS.apiDocs, 'public-documents', false, true],
  ['/assets/graphiql/x/graphiql.css', 'public-documents', false, false],
  ['/assets/charts/x/dashboard.js', 'public-documents', false, false],
  ['/', 'pages', false, true],
  ['/login', 'pages', false, true],
  ['/orgs/acme/issues/WEB-1', 'pages', false, true],
  ['/assets/app.css', 'pages', false, true],
  [PATHS.authorize, 'oauth-pages', false, true],
  ['/oauth/token', 'oauth', true, false],
  ['/.well-known/oauth-authorization-server', 'oauth', true, false],
  [PATHS.graphql, 'graphql', true, true],
  [PATHS.mcp, 'mcp', true, true],
  ['/api/issues', 'rest', true, true],
  [PATHS.api, 'rest', true, true],
  ['/apix', 'none', false, false],
  ['/nowhere', 'none', false, false],
];

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.close());

describe('the surface table', () => {
  test.each(SAMPLES)('%s belongs to %s', (path, name, cors, csrf) => {
    const surface = surfaceOf(path);
    expect(surface.name).toBe(name);
    expect(surface.cors).toBe(cors);
    expect(surface.csrf !== 'never').toBe(csrf);
  });

  test.each(SAMPLES)(
    '%s: a CORS preflight is answered exactly where the surface allows CORS',
    async (path, _name, cors) => {
      const response = await t.app.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: 'OPTIONS',
          headers: { origin: 'https://spa.example.test', 'access-control-request-method': 'POST' },
        }),
      );
      const answered = response.status === 204 && response.headers.get('access-control-allow-origin') === '*';
      expect(answered).toBe(cors);
    },
  );

  test.each(SAMPLES)(
    '%s: a cross-site write with the session cookie is refused exactly where the surface checks CSRF',
    async (path, _name, _cors, csrf) => {
      const response = await t.app.fetch(
        new Request(`${ORIGIN}${path}`, {
          method: 'POST',
          headers: { origin: 'https://evil.example.test', cookie: `${sessionCookieName(t.app.config)}=not-a-session` },
        }),
      );
      const refused =
        response.status === 403 &&
        ((await response.json().catch(() => null)) as { code?: string } | null)?.code === 'csrf_rejected';
      expect(refused).toBe(csrf);
    },
  );
});
