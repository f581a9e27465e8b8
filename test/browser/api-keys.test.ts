import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

describe.skipIf(!chromiumAvailable)('Settings > Integrations in a real browser', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  const api = (token: string) => fetch(`${h.base}/api/me`, { headers: { authorization: `Bearer ${token}` } });

  test('sign in, create a key, read it once, use it, revoke it, and see the next call fail', async () => {
    const { page, base } = h;
    await page.goto(`${base}/orgs/acme/settings/integrations`);
    await expect.poll(() => page.url()).toContain('/login?next=');
    await page.screenshot({ path: `${SHOTS}/1-sign-in.png`, fullPage: true });
    await signInOnPage(page, 'maya@example.com');
    await page.waitForURL(`${base}/orgs/acme/settings/integrations`);
    await page.screenshot({ path: `${SHOTS}/2-integrations.png`, fullPage: true });

    await page.getByLabel('Name').fill('Browser test key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const tokenField = page.getByLabel('Token');
    await tokenField.waitFor();
    const token = await tokenField.inputValue();
    expect(token).toMatch(/^tok_live_[0-9A-Za-z]{32}$/);
    await expect.poll(() => page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);
    await page.screenshot({ path: `${SHOTS}/3-token-shown-once.png`, fullPage: true });

    const me = await api(token);
    expect(me.status).toBe(200);
    expect((await me.json()).username).toBe('maya');

    await page.goto(`${base}/orgs/acme/settings/integrations`);
    expect(await page.content()).not.toContain(token);
    await page.getByRole('link', { name: 'Revoke Browser test key' }).click();
    await page.getByRole('heading', { name: 'Revoke “Browser test key”?' }).waitFor();
    await page.screenshot({ path: `${SHOTS}/4-confirm-revoke.png`, fullPage: true });
    await page.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('has been revoked').waitFor();
    await page.screenshot({ path: `${SHOTS}/5-revoked.png`, fullPage: true });

    const after = await api(token);
    expect(after.status).toBe(401);
    expect((await after.json()).code).toBe('token_revoked');
  });
});
