import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { pkce } from '../support/oauth.js';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

/** axe's serious and critical findings on the page as it stands. */
async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

describe.skipIf(!chromiumAvailable)('Authorized applications in a real browser', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h?.close());

  test('the grant is listed with its organization, scopes and last use; Revoke ends its tokens at once', async () => {
    const { page, base, app } = h;
    // An application authorized by Olivia in Acme (through the OAuth endpoints, in process).
    const orgId = h.seed.orgs.find((o) => o.slug === 'acme')!.id;
    const accessToken = await authorizeInProcess(h, 'olivia@example.com', orgId);
    const call = () =>
      app.fetch(new Request(`${base}/api/me`, { headers: { authorization: `Bearer ${accessToken}` } }));
    expect((await call()).status).toBe(200);

    await page.goto(`${base}/settings/applications`);
    await expect.poll(() => page.url()).toContain('/login?next=');
    await signInOnPage(page, 'olivia@example.com');
    await page.waitForURL(`${base}/settings/applications`);
    const row = page.getByRole('row', { name: /Test Client/ });
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain('Acme Corp');
    expect(text).toContain('read');
    expect(text).not.toContain('never'); // used once above
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/applications-1-listed.png`, fullPage: true });

    await page.getByRole('button', { name: 'Revoke Test Client in Acme Corp' }).click();
    await page.getByText('“Test Client” can no longer act for you.').waitFor();
    await page.screenshot({ path: `${SHOTS}/applications-2-revoked.png`, fullPage: true });
    expect((await call()).status).toBe(401);
  });
});

/** Registration, consent and the code exchange against the harness's base URL: an access token of a read grant. */
async function authorizeInProcess(h: Harness, email: string, orgId: string): Promise<string> {
  const send = (path: string, init: RequestInit) =>
    h.app.fetch(new Request(`${h.base}${path}`, init), { remoteAddress: '203.0.113.9' });
  const form = { origin: h.base, 'content-type': 'application/x-www-form-urlencoded' };
  const login = await send('/login', {
    method: 'POST',
    headers: form,
    body: new URLSearchParams({ email, password: 'correct horse battery staple', next: '/' }),
  });
  const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
  const redirectUri = 'http://127.0.0.1:9999/cb';
  const registered = await send('/oauth/register', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Test Client',
      redirect_uris: [redirectUri],
      token_endpoint_auth_method: 'none',
    }),
  });
  const { client_id } = (await registered.json()) as { client_id: string };
  const { verifier, challenge } = pkce();
  const params = {
    response_type: 'code',
    client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${h.base}/api`,
    scope: 'read',
  };
  const decided = await send('/oauth/authorize', {
    method: 'POST',
    headers: { ...form, cookie },
    body: new URLSearchParams({ ...params, org_id: orgId, decision: 'allow' }),
  });
  const code = new URL(decided.headers.get('location')!).searchParams.get('code')!;
  const token = await send('/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id,
      resource: `${h.base}/api`,
    }),
  });
  return ((await token.json()) as { access_token: string }).access_token;
}
