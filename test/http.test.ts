import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

describe('routing', () => {
  test('an unknown route is a 404 problem', async () => {
    for (const path of ['/api/nothing', '/api/issues/extra/path', '/elsewhere']) {
      const response = await t.call('GET', path, { token: t.user('mark').token });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ status: 404, code: 'not_found' });
    }
  });

  test('a trailing slash names no resource: 404, whatever the method, never the route without it', async () => {
    const token = t.user('mark').token;
    const project = t.org('acme').projects[0]!;
    const paths = [
      '/api/projects/',
      '/api/issues/',
      '/api/me/',
      '/api/me/orgs/',
      `/api/projects/${project.id}/`,
      '/api/projects//',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const response = await t.call(method, path, {
          token,
          ...(method === 'POST' ? { body: { name: 'Slash', key: 'SLASH' } } : {}),
        });
        expect({ path, method, status: response.status }).toEqual({ path, method, status: 404 });
        expect(await response.json()).toMatchObject({ status: 404, code: 'not_found' });
      }
    }
    expect((await t.call('GET', '/api/projects', { token })).status).toBe(200);
  });

  test('a known path with the wrong method is a 405 with Allow', async () => {
    const response = await t.call('DELETE', '/api/issues', { token: t.user('mark').token });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, POST');
    expect((await t.call('PUT', '/api/me', { token: t.user('mark').token })).headers.get('allow')).toBe('GET');
  });

  test('API responses are not cached and not sniffed', async () => {
    const response = await t.call('GET', '/api/me', { token: t.user('mark').token });
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
  });
});

describe('HTTPS policy', () => {
  let app: App;
  let proxied: App;
  beforeAll(async () => {
    app = await createApp(testConfig({ baseUrl: 'https://work.example.com' }), { db: t.app.db });
    proxied = await createApp(testConfig({ baseUrl: 'https://work.example.com', trustProxy: true }), { db: t.app.db });
  });

  test('plain HTTP is redirected with 308 to the same path and query on BASE_URL', async () => {
    const response = await app.fetch(
      new Request('http://evil.example.net/api/issues?limit=5', {
        method: 'POST',
        headers: { host: 'evil.example.net' },
      }),
    );
    expect(response.status).toBe(308);
    expect(response.headers.get('location')).toBe('https://work.example.com/api/issues?limit=5');
  });

  test('HTTPS requests are served', async () => {
    const response = await app.fetch(
      new Request('https://work.example.com/api/me', { headers: { authorization: `Bearer ${t.user('mark').token}` } }),
    );
    expect(response.status).toBe(200);
  });

  test('X-Forwarded-Proto is believed only with TRUST_PROXY', async () => {
    const request = () =>
      new Request('http://internal:4000/api/me', {
        headers: { 'x-forwarded-proto': 'https', authorization: `Bearer ${t.user('mark').token}` },
      });
    expect((await app.fetch(request())).status).toBe(308);
    expect((await proxied.fetch(request())).status).toBe(200);
    const plain = new Request('http://internal:4000/api/me', { headers: { 'x-forwarded-proto': 'http' } });
    expect((await proxied.fetch(plain)).status).toBe(308);
  });

  test('an http BASE_URL never redirects', async () => {
    expect((await t.call('GET', '/api/me', { token: t.user('mark').token })).status).toBe(200);
  });
});
