import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { seedDemo } from '../../src/cli/demo-data.js';
import { testConfig } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { openTestDatabase } from '../support/database.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = 'test-output/screenshots';
// CI installs Chromium (.ci/run); elsewhere the suite says why it did not run rather than pass silently.
const available = existsSync(CHROMIUM);
if (!available && process.env.CI) throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs it (apt-get install chromium).`);

describe.skipIf(!available)('Settings > Integrations in a real browser', () => {
  let db: Database;
  let app: App;
  let server: Server;
  let base: string;
  let browser: Browser;
  let page: Page;
  const password = 'correct horse battery staple';

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    db = await openTestDatabase();
    await seedDemo(db.prisma, { password });
    let handler: (request: Request, ctx: { req: IncomingMessage }) => Promise<Response> = async () => new Response(null, { status: 503 });
    server = createServer(createServerAdapter<{ req: IncomingMessage }>((request, ctx) => handler(request, ctx)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    app = await createApp(testConfig({ baseUrl: base }), { db });
    handler = (request, { req }) => app.fetch(request, { remoteAddress: req.socket.remoteAddress });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await app?.close();
    await db?.close();
  });

  const api = (token: string) => fetch(`${base}/api/me`, { headers: { authorization: `Bearer ${token}` } });

  test('sign in, create a key, read it once, use it, revoke it, and see the next call fail', async () => {
    await page.goto(`${base}/orgs/acme/settings/integrations`);
    await expect.poll(() => page.url()).toContain('/login?next=');
    await page.screenshot({ path: `${SHOTS}/1-sign-in.png`, fullPage: true });
    await page.getByLabel('Email').fill('maya@example.com');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
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
