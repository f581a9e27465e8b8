import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPasswordLink, PASSWORD_LINK_TTL_MS } from '../src/auth/password-setup.js';
import { createUser } from '../src/cli/operations.js';
import { formPost, ORIGIN, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const NEW_PASSWORD = 'a long enough passphrase';
const tokenOf = (url: string) => new URL(url).searchParams.get('token')!;
const show = (token: string) => t.app.fetch(new Request(`${ORIGIN}/set-password?token=${encodeURIComponent(token)}`));
const submit = (token: string, password: string, confirmation = password, headers: Record<string, string> = {}) =>
  t.app.fetch(formPost('/set-password', { token, password, confirmation }, headers));
const signIn = (email: string, password: string) => t.app.fetch(formPost('/login', { email, password, next: '/' }));

async function newUser(name: string) {
  return createUser(t.app.db.prisma, { email: `${name}@example.com`, name, username: name });
}

describe('one-time password links', () => {
  test('the link shows a form; a good password is set once, the account can sign in, the link is spent', async () => {
    const user = await newUser('newcomer');
    expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(401);
    const link = await createPasswordLink(t.app.db.prisma, user.id, ORIGIN);
    expect(link.url).toMatch(/^http:\/\/localhost:4000\/set-password\?token=[A-Za-z0-9_-]{43}$/);
    expect(link.expiresAt.getTime() - Date.now()).toBeGreaterThan(PASSWORD_LINK_TTL_MS - 60_000);

    const form = await show(tokenOf(link.url));
    expect(form.status).toBe(200);
    expect(form.headers.get('referrer-policy')).toBe('strict-origin');
    const html = await form.text();
    expect(html).toContain('newcomer@example.com');
    expect(html).toContain('autocomplete="new-password"');

    expect((await submit(tokenOf(link.url), 'too short', 'too short')).status).toBe(400);
    const differ = await submit(tokenOf(link.url), NEW_PASSWORD, `${NEW_PASSWORD}!`);
    expect(differ.status).toBe(400);
    expect(await differ.text()).toContain('The two passwords differ.');

    const done = await submit(tokenOf(link.url), NEW_PASSWORD);
    // Post/redirect/get: to the sign-in page, which says so once.
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/login');
    const flash = done.headers.get('set-cookie')!.split(';')[0]!;
    const signInPage = await t.app.fetch(new Request(`${ORIGIN}/login`, { headers: { cookie: flash } }));
    expect(await signInPage.text()).toContain('Your password is set');
    expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(303);

    expect((await show(tokenOf(link.url))).status).toBe(404);
    expect((await submit(tokenOf(link.url), 'another long passphrase')).status).toBe(404);
    expect((await signIn(user.email, 'another long passphrase')).status).toBe(401);
  });

  test('only the hash is stored; an unknown, replaced or expired link does nothing', async () => {
    const user = await newUser('later');
    const first = await createPasswordLink(t.app.db.prisma, user.id, ORIGIN);
    const second = await createPasswordLink(t.app.db.prisma, user.id, ORIGIN);
    const rows = await t.app.db.prisma.passwordSetupToken.findMany({ where: { userId: user.id } });
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.tokenHash).toString('base64url')).not.toBe(tokenOf(second.url));
    expect((await show(tokenOf(first.url))).status).toBe(404);
    expect((await show('made-up')).status).toBe(404);
    expect((await t.app.fetch(new Request(`${ORIGIN}/set-password`))).status).toBe(404);

    await t.app.db.prisma.passwordSetupToken.update({
      where: { userId: user.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await show(tokenOf(second.url))).status).toBe(404);
    expect((await submit(tokenOf(second.url), NEW_PASSWORD)).status).toBe(404);
    expect((await signIn(user.email, NEW_PASSWORD)).status).toBe(401);
  });

  test('setting the password ends the sessions the account had; two submissions of one link: one wins', async () => {
    const user = await newUser('twice');
    const first = await createPasswordLink(t.app.db.prisma, user.id, ORIGIN);
    await submit(tokenOf(first.url), NEW_PASSWORD);
    const cookie = (await signIn(user.email, NEW_PASSWORD)).headers.get('set-cookie')!.split(';')[0]!;
    const link = await createPasswordLink(t.app.db.prisma, user.id, ORIGIN);
    const answers = await Promise.all([
      submit(tokenOf(link.url), 'first new passphrase'),
      submit(tokenOf(link.url), 'second new passphrase'),
    ]);
    expect(answers.map((a) => a.status).sort()).toEqual([303, 404]);
    expect((await t.app.fetch(new Request(`${ORIGIN}/api/me`, { headers: { cookie } }))).status).toBe(401);
  });

  test('the form is a page form: a cross-site post is refused', async () => {
    const user = await newUser('csrf');
    const link = await createPasswordLink(t.app.db.prisma, user.id, ORIGIN);
    const response = await submit(tokenOf(link.url), NEW_PASSWORD, NEW_PASSWORD, { origin: 'https://evil.example' });
    expect(response.status).toBe(403);
    expect((await show(tokenOf(link.url))).status).toBe(200);
  });
});
