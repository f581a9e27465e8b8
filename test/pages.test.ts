import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const get = (path: string, cookie?: string) =>
  t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: cookie ? { cookie } : {} }));
const integrations = '/orgs/acme/settings/integrations';

describe('pages', () => {
  test('signed out, a page sends you to sign in and back', async () => {
    const response = await get(integrations);
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe(`/login?next=${encodeURIComponent(integrations)}`);
    expect((await get('/')).headers.get('location')).toBe('/login');
  });

  test('one organization: home goes straight to its dashboard; several: the org switcher lists them', async () => {
    expect((await get('/', await t.signIn('olivia@example.com'))).headers.get('location')).toBe('/orgs/acme');
    const mark = await t.signIn('mark@example.com');
    const html = await (await get('/', mark)).text();
    expect(html).toContain('href="/orgs/acme"');
    expect(html).toContain('href="/orgs/globex"');
  });

  test('create a key: the token is shown once, with a warning and a copy button, and never again', async () => {
    const cookie = await t.signIn('maya@example.com');
    const created = await t.app.fetch(
      formPost(`${integrations}/keys`, { name: 'Nightly export', expires_on: '' }, { cookie }),
    );
    // Post/redirect/get: the token comes back in a flash cookie the next page shows once.
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe(integrations);
    const flash = created.headers.get('set-cookie')!.split(';')[0]!;
    expect(created.headers.get('set-cookie')).toMatch(/HttpOnly; SameSite=Strict/i);
    const shown = await get(integrations, `${cookie}; ${flash}`);
    expect(shown.headers.get('set-cookie')).toMatch(/^wm_flash=; Max-Age=0/);
    const html = await shown.text();
    const token = /value="(tok_live_[0-9A-Za-z]{32})"/.exec(html)?.[1];
    expect(token).toBeDefined();
    expect(html).toContain('It is shown only once');
    expect(html).toContain('data-copy="#new-secret"');
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    const later = await (await get(integrations, cookie)).text();
    expect(later).toContain('Nightly export');
    expect(later).not.toContain(token!);
    expect(later).toContain(`tok_live_…${token!.slice(-4)}`);
  });

  test('form errors are shown next to their field, the form keeps what was typed', async () => {
    const cookie = await t.signIn('maya@example.com');
    const response = await t.app.fetch(
      formPost(`${integrations}/keys`, { name: '', expires_on: '2001-01-01' }, { cookie }),
    );
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toMatch(/id="key-name"[^>]*aria-invalid="true" aria-describedby="key-name-error"/s);
    expect(html).toContain('<p class="field-error" id="key-name-error">must not be empty</p>');
    expect(html).toContain('<p class="field-error" id="key-expiry-error">must be in the future</p>');
    expect(html).toContain('value="2001-01-01"');
  });

  test('everything shown is escaped', async () => {
    const cookie = await t.signIn('maya@example.com');
    const evil = '<script>alert("x")</script>';
    await t.app.fetch(formPost(`${integrations}/keys`, { name: evil }, { cookie }));
    const html = await (await get(integrations, cookie)).text();
    expect(html).not.toContain(evil);
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  });

  test('revoking asks for confirmation first, then the key stops working', async () => {
    const cookie = await t.signIn('maya@example.com');
    const flash = (await t.app.fetch(formPost(`${integrations}/keys`, { name: 'Doomed' }, { cookie }))).headers
      .get('set-cookie')!
      .split(';')[0]!;
    const created = await (await get(integrations, `${cookie}; ${flash}`)).text();
    const token = /value="(tok_live_[0-9A-Za-z]{32})"/.exec(created)![1]!;
    const key = await t.app.db.prisma.apiKey.findFirstOrThrow({ where: { name: 'Doomed' } });
    const confirm = await get(`${integrations}/keys/${key.id}/revoke`, cookie);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('Revoke “Doomed”?');
    expect((await t.call('GET', '/api/me', { token })).status).toBe(200);
    const done = await t.app.fetch(formPost(`${integrations}/keys/${key.id}/revoke`, {}, { cookie }));
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(integrations);
    expect((await t.call('GET', '/api/me', { token })).status).toBe(401);
    const notice = done.headers.get('set-cookie')!.split(';')[0]!;
    expect(await (await get(integrations, `${cookie}; ${notice}`)).text()).toContain(
      'The key “Doomed” has been revoked.',
    );
  });

  test('viewers see their keys but no create form; another organization is not found', async () => {
    const victor = await t.signIn('victor@example.com');
    const html = await (await get(integrations, victor)).text();
    expect(html).not.toContain('Create a key');
    expect(html).toContain(
      'Only owners, admins and managers can create keys: to get one, ask the owner: Olivia Owner.',
    );
    expect((await get('/orgs/globex/settings/integrations', victor)).status).toBe(404);
  });

  test('a form posted from another site is refused', async () => {
    const cookie = await t.signIn('maya@example.com');
    const response = await t.app.fetch(
      formPost(`${integrations}/keys`, { name: 'csrf' }, { cookie, origin: 'https://evil.example' }),
    );
    expect(response.status).toBe(403);
    expect(await t.app.db.prisma.apiKey.count({ where: { name: 'csrf' } })).toBe(0);
  });

  test('assets are served; unknown pages are 404', async () => {
    expect((await get('/assets/app.css')).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await get('/assets/nope.css')).status).toBe(404);
  });
});
