import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

// The open redirect of issue 21: `next=/%09/<host>/x` became `Location: /\t/<host>/x`, which
// Chromium resolves to `//<host>/x` and follows off-site. The "attacker" here is a second
// server on loopback that counts the visits it gets.
describe.skipIf(!chromiumAvailable)('sign-in never sends the browser to another site', () => {
  let h: Harness;
  let attacker: Server;
  let attackerHost: string;
  const visits: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    attacker = createServer((req, res) => {
      visits.push(req.url ?? '');
      res.end('attacker page');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerHost = `127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await h?.close();
    await new Promise((resolve) => attacker?.close(resolve));
  });

  const hostile = () => [
    `/%09/${attackerHost}/x`,
    `/%0a/${attackerHost}/x`,
    `/%5C/${attackerHost}/x`,
    `/%E3%80%80/${attackerHost}/x`,
  ];

  test('signed out: sign in with a hostile next and stay on our origin', async () => {
    const { page, base } = h;
    await page.context().clearCookies();
    await page.goto(`${base}/login?next=/%09/${attackerHost}/x`);
    await signInOnPage(page, 'maya@example.com');
    // Wherever the sign-in sends it, on our origin or another one.
    await page.waitForURL((url) => url.pathname !== '/login', { timeout: 10_000 });
    await page.screenshot({ path: `${SHOTS}/sign-in-hostile-next.png`, fullPage: true });
    expect(new URL(page.url()).origin).toBe(base);
    expect(visits).toEqual([]);
  });

  test('signed in: /login?next=<hostile> lands on our origin', async () => {
    const { page, base } = h;
    for (const next of hostile()) {
      const response = await page.goto(`${base}/login?next=${next}`);
      expect(new URL(page.url()).origin, next).toBe(base);
      expect(response?.status(), next).toBeLessThan(500);
    }
    expect(visits).toEqual([]);
  });
});
