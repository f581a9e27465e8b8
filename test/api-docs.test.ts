import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (path: string, headers: Record<string, string> = {}) =>
  t.app.fetch(new Request(`${ORIGIN}${path}`, { headers }));
const swaggerFile = (name: string) => readFileSync(createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`));

/** The page, and the asset URLs it names in <link href> and <script src>. */
async function docsPage(): Promise<{ response: Response; html: string; assets: string[] }> {
  const response = await get('/api/docs');
  const html = await response.text();
  const assets = [...html.matchAll(/<(?:link rel="stylesheet" href|script src)="([^"]+)"/g)].map((m) => m[1]!);
  return { response, html, assets };
}

describe('GET /api/docs', () => {
  test('is a public HTML page under a strict CSP, with no inline script or style', async () => {
    const { response, html, assets } = await docsPage();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = Object.fromEntries(
      response.headers
        .get('content-security-policy')!
        .split(';')
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values.join(' ')]),
    );
    expect(csp).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'style-src': "'self'",
      'img-src': "'self' data:",
      'connect-src': "'self'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
      'base-uri': "'none'",
    });
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/<style|\sstyle=|\son[a-z]+=/i);
    expect(assets).toHaveLength(4);
    for (const url of assets) expect(url).toMatch(/^\/assets\/api-docs\/[\w-]{16}\/[\w.-]+$/);
    expect(html).toContain('data-openapi="/api/openapi.json"');
    expect(html).toContain('href="/api/graphql"');
    expect(html).toContain(`${ORIGIN}/api/mcp`);
    expect(html).toContain('Connect an AI agent');
    expect(html).toContain('docs/agents.md');
    // Where keys are made, named as the navigation names it.
    expect(html).toContain('the <strong>API keys</strong> page');
    expect(html).not.toContain('Integrations');
  });

  test('is answered before any credential is looked at: a bad token does not stop it', async () => {
    const response = await get('/api/docs', { authorization: 'Bearer tok_live_notarealtokennotarealtoken000000' });
    expect(response.status).toBe(200);
    expect(response.headers.get('www-authenticate')).toBeNull();
  });

  test('does not link to GraphiQL where GraphiQL is off', async () => {
    const app = await createApp(testConfig({ graphqlIntrospection: false }), { db: t.app.db });
    try {
      const html = await (await app.fetch(new Request(`${ORIGIN}/api/docs`))).text();
      expect(html).not.toContain('href="/api/graphql"');
      expect(html).toContain('href="/api/openapi.json"');
    } finally {
      await app.close();
    }
  });

  test('answers GET and HEAD only', async () => {
    const post = await t.app.fetch(new Request(`${ORIGIN}/api/docs`, { method: 'POST', headers: { origin: ORIGIN } }));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(post.headers.get('content-type')).toBe('application/problem+json');
    const head = await t.app.fetch(new Request(`${ORIGIN}/api/docs`, { method: 'HEAD' }));
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });

  test('the root pages link to it', async () => {
    expect(await (await get('/login')).text()).toContain('href="/api/docs"');
    const html = await (await get('/', { cookie: await t.signIn('mark@example.com') })).text();
    expect(html).toContain('Your organizations');
    expect(html).toContain('href="/api/docs"');
  });
});

describe('the reference page assets', () => {
  test('are the package files, with their content types, cached for good', async () => {
    const { assets } = await docsPage();
    const byName = Object.fromEntries(assets.map((url) => [url.split('/').pop()!, url]));
    expect(Object.keys(byName).sort()).toEqual([
      'api-docs.css',
      'api-docs.js',
      'swagger-ui-bundle.js',
      'swagger-ui.css',
    ]);
    for (const [name, type] of [
      ['swagger-ui-bundle.js', 'text/javascript; charset=utf-8'],
      ['swagger-ui.css', 'text/css; charset=utf-8'],
      ['api-docs.js', 'text/javascript; charset=utf-8'],
      ['api-docs.css', 'text/css; charset=utf-8'],
    ] as const) {
      const response = await get(byName[name]!);
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type'), name).toBe(type);
      expect(response.headers.get('cache-control'), name).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('x-content-type-options'), name).toBe('nosniff');
      expect(response.headers.get('content-encoding'), name).toBeNull();
      const body = Buffer.from(await response.arrayBuffer());
      expect(Number(response.headers.get('content-length')), name).toBe(body.length);
      if (name.startsWith('swagger-ui')) expect(body.equals(swaggerFile(name)), name).toBe(true);
    }
  });

  test('are sent gzipped to a client that accepts it', async () => {
    const { assets } = await docsPage();
    const bundle = assets.find((url) => url.endsWith('/swagger-ui-bundle.js'))!;
    const response = await get(bundle, { 'accept-encoding': 'br, gzip, deflate' });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    expect(response.headers.get('vary')).toBe('accept-encoding');
    const body = Buffer.from(await response.arrayBuffer());
    expect(body.length).toBeLessThan(swaggerFile('swagger-ui-bundle.js').length / 2);
    expect(gunzipSync(body).equals(swaggerFile('swagger-ui-bundle.js'))).toBe(true);
  });

  test('nothing else is served under their path: 404 for other package files, other hashes and traversal', async () => {
    const { assets } = await docsPage();
    const css = assets.find((url) => url.endsWith('/swagger-ui.css'))!;
    const dir = css.slice(0, css.lastIndexOf('/'));
    const hash = dir.split('/').pop()!;
    const otherHash = `${hash.slice(0, -1)}${hash.endsWith('A') ? 'B' : 'A'}`;
    for (const path of [
      `${dir}/index.html`,
      `${dir}/swagger-ui.js`,
      `${dir}/swagger-ui-bundle.js.map`,
      `${dir}/package.json`,
      `${dir}/`,
      `/assets/api-docs/${otherHash}/swagger-ui.css`,
      '/assets/api-docs/swagger-ui.css',
      '/assets/api-docs/',
      `${dir}/..%2f..%2f..%2fpackage.json`,
      `${dir}/swagger-ui.css%00.js`,
      `${dir}/SWAGGER-UI.CSS`,
    ]) {
      const response = await get(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toBe('application/problem+json');
    }
    // Dot-dot segments (also %2e%2e) are resolved by the URL parser: they land outside the prefix, on the pages' own 404.
    for (const path of [`${dir}/../../../package.json`, `${dir}/%2e%2e/%2e%2e/swagger-ui-dist/package.json`]) {
      expect((await get(path)).status, path).toBe(404);
    }
    const post = await t.app.fetch(new Request(`${ORIGIN}${css}`, { method: 'POST', headers: { origin: ORIGIN } }));
    expect(post.status).toBe(405);
  });
});
