import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

describe.skipIf(!chromiumAvailable)('OAuth sign-in and consent in a real browser', () => {
  let h: Harness;
  let clientServer: Server;
  beforeAll(async () => {
    h = await startHarness();
    clientServer = createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Issue Sync is connected</h1>'),
    );
    await new Promise<void>((resolve) => clientServer.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => clientServer?.close(resolve));
    await h?.close();
  });

  test('a client sends the person to consent; they sign in, pick an organization, and the client gets a working token', async () => {
    const { page, base } = h;
    // The client application: a loopback web server that receives the redirect.
    const redirectUri = `http://127.0.0.1:${(clientServer.address() as AddressInfo).port}/callback`;
    const registered = await (
      await fetch(`${base}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Issue Sync',
          redirect_uris: [redirectUri],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        }),
      })
    ).json();
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: registered.client_id,
      redirect_uri: redirectUri,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      resource: `${base}/api`,
      scope: 'read write',
      state: 'state-123',
    }))
      authorize.searchParams.set(k, v);

    await page.goto(authorize.href);
    await expect.poll(() => page.url()).toContain('/login?next=');
    await page.screenshot({ path: `${SHOTS}/oauth-1-sign-in.png`, fullPage: true });
    await signInOnPage(page, 'mark@example.com');
    await page.getByRole('heading', { name: 'Authorize Issue Sync' }).waitFor();
    await page.getByLabel('Globex').check();
    await page.screenshot({ path: `${SHOTS}/oauth-2-consent.png`, fullPage: true });

    await page.getByRole('button', { name: 'Allow' }).click();
    await page.getByRole('heading', { name: 'Issue Sync is connected' }).waitFor();
    const callback = new URL(page.url());
    expect(callback.href.startsWith(redirectUri)).toBe(true);
    await page.screenshot({ path: `${SHOTS}/oauth-3-back-at-client.png`, fullPage: true });
    expect(callback.searchParams.get('state')).toBe('state-123');
    expect(callback.searchParams.get('iss')).toBe(base);

    const tokens = await (
      await fetch(`${base}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          redirect_uri: redirectUri,
          code_verifier: verifier,
          client_id: registered.client_id,
          resource: `${base}/api`,
        }),
      })
    ).json();
    const orgs = await (
      await fetch(`${base}/api/me/orgs`, { headers: { authorization: `Bearer ${tokens.access_token}` } })
    ).json();
    expect(orgs.orgs.map((o: { org_slug: string }) => o.org_slug)).toEqual(['globex']);
  });
});
