import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServerAdapter } from '@whatwg-node/server';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createApp, type App } from '../../src/app.js';
import { seedDemo, type DemoSeed } from '../../src/cli/demo-data.js';
import { testConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/client.js';
import { openTestDatabase } from '../support/database.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = 'test-output/screenshots';
export const PASSWORD = 'correct horse battery staple';

// CI installs Chromium (.ci/run); elsewhere the suites say why they did not run rather than pass silently.
export const chromiumAvailable = existsSync(CHROMIUM);
if (!chromiumAvailable && process.env.CI)
  throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs it (apt-get install chromium).`);

export interface Harness {
  base: string;
  app: App;
  seed: DemoSeed;
  page: Page;
  browser: Browser;
  close(): Promise<void>;
}

/** The service on a real socket over a seeded database (or an empty one: `seed: false`), and a headless Chromium page. */
export async function startHarness(options: { seed?: boolean; config?: Partial<Config> } = {}): Promise<Harness> {
  mkdirSync(SHOTS, { recursive: true });
  const db: Database = await openTestDatabase();
  const seed =
    options.seed === false
      ? { password: PASSWORD, orgs: [], users: [] }
      : await seedDemo(db.prisma, { password: PASSWORD });
  let handler: (request: Request, ctx: { req: IncomingMessage }) => Promise<Response> = async () =>
    new Response(null, { status: 503 });
  const server: Server = createServer(
    createServerAdapter<{ req: IncomingMessage }>((request, ctx) => handler(request, ctx)),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = await createApp(testConfig({ ...options.config, baseUrl: base }), { db });
  handler = (request, { req }) => app.fetch(request, { remoteAddress: req.socket.remoteAddress });
  const browser: Browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = await (await browser.newContext({ viewport: { width: 1100, height: 800 } })).newPage();
  return {
    base,
    app,
    seed,
    page,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
      await app.close();
      await db.close();
    },
  };
}

/** Signs in through the sign-in page the browser was sent to. */
export async function signInOnPage(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
