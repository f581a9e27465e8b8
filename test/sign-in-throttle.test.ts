import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createApp, type App } from '../src/app.js';
import { testConfig } from '../src/config.js';
import { formPost, PASSWORD, startTestApp, type TestApp } from './support/app.js';

// Sign-in is bounded per address across accounts and per account across addresses, on top of
// the 10 attempts per address and account (test/sessions.test.ts). Every failure costs a scrypt
// (about 0.1 s), and a busy machine runs several suites at once: hence the longer timeouts.

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

/** Addresses no other test of this file uses. */
let net = 0;
const freshNet = () => `10.77.${++net}`;

const attempt = (
  app: App,
  email: string,
  password: string,
  remoteAddress: string,
  headers: Record<string, string> = {},
) => app.fetch(formPost('/login', { email, password }, headers), { remoteAddress });

const statuses = (responses: Response[]) => responses.map((r) => r.status).sort();

describe('one address trying many accounts', { timeout: 120_000 }, () => {
  test('40 accounts from one address: 20 failures, then 429 for every account, even with the right password', async () => {
    const address = `${freshNet()}.1`;
    const tries = await Promise.all(
      Array.from({ length: 40 }, (_, i) => attempt(t.app, `stuffed${i}@example.com`, 'guess', address)),
    );
    expect(statuses(tries)).toEqual([...Array(20).fill(401), ...Array(20).fill(429)]);
    const refused = tries.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many sign-in attempts.');

    expect((await attempt(t.app, 'olivia@example.com', PASSWORD, address)).status).toBe(429);
    expect((await attempt(t.app, 'olivia@example.com', PASSWORD, `${freshNet()}.1`)).status).toBe(303);
  });

  test('successful sign-ins from a shared address are not counted against it', async () => {
    const address = `${freshNet()}.1`;
    await Promise.all(Array.from({ length: 19 }, (_, i) => attempt(t.app, `office${i}@example.com`, 'guess', address)));
    for (const email of ['olivia@example.com', 'bella@example.com', 'mark@example.com']) {
      expect((await attempt(t.app, email, PASSWORD, address)).status).toBe(303);
    }
    expect((await attempt(t.app, 'office19@example.com', 'guess', address)).status).toBe(401);
    expect((await attempt(t.app, 'office20@example.com', 'guess', address)).status).toBe(429);
  });
});

describe('one account tried from many addresses', { timeout: 120_000 }, () => {
  let proxied: App;
  beforeAll(async () => {
    proxied = await createApp(testConfig({ trustProxy: true }), { db: t.app.db });
  });
  afterAll(() => proxied.close());

  test('behind a trusted proxy, 30 failures from 30 addresses, then 429 from any address', async () => {
    const net = freshNet();
    const from = (i: number) => ({ 'x-forwarded-for': `${net}.${i}` });
    const email = 'bella@example.com';
    const tries = await Promise.all(
      Array.from({ length: 30 }, (_, i) => attempt(proxied, email, 'guess', '127.0.0.1', from(i))),
    );
    expect(statuses(tries)).toEqual(Array(30).fill(401));
    const locked = await attempt(proxied, email, PASSWORD, '127.0.0.1', from(200));
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Other accounts are not affected.
    expect((await attempt(proxied, 'olivia@example.com', PASSWORD, '127.0.0.1', from(201))).status).toBe(303);
  });
});
