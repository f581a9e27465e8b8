import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

/** axe's serious and critical findings on the page as it stands (moderate and minor are left out). */
async function seriousViolations(page: Page): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help}, in ${v.nodes.map((n) => n.html.slice(0, 100)).join(' | ')}`);
}

describe.skipIf(!chromiumAvailable)('the API reference at /api/docs in a real browser', () => {
  let h: Harness;
  /** Every request the page tried to send to another origin (each one is aborted). */
  const offOrigin: string[] = [];
  /** Console errors and uncaught exceptions: CSP violations are reported there. */
  const problems: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    // As on a machine without internet access: anything not addressed to the service fails.
    await h.page.context().route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === h.base) return route.continue();
      offOrigin.push(url);
      return route.abort('internetdisconnected');
    });
    h.page.on('console', (message) => {
      // The sign-in page has no icon, so Chromium asks for /favicon.ico (404): not this page's doing.
      if (message.type() === 'error' && !message.location().url.endsWith('/favicon.ico')) problems.push(message.text());
    });
    h.page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  });
  afterAll(() => h?.close());

  test('renders every operation offline, under its CSP, with no serious accessibility violation', async () => {
    const { page, base } = h;
    const response = await page.goto(`${base}/api/docs`);
    expect(response?.status()).toBe(200);
    const list = page.locator('#operations-Issues-listIssues');
    const create = page.locator('#operations-Issues-createIssue');
    await list.waitFor();
    await expect.poll(() => list.locator('.opblock-summary-path').textContent()).toBe('/issues');
    expect(await list.locator('.opblock-summary-method').textContent()).toBe('GET');
    expect(await create.locator('.opblock-summary-method').textContent()).toBe('POST');
    // Every operation of the document is on the page.
    const document = (await (await fetch(`${base}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const methods = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
    const operations = Object.values(document.paths).reduce(
      (n, item) => n + Object.keys(item).filter((k) => methods.includes(k)).length,
      0,
    );
    expect(await page.locator('.opblock').count()).toBe(operations);
    await page.getByRole('link', { name: 'GraphQL (GraphiQL)' }).waitFor();
    await page.screenshot({ path: `${SHOTS}/api-docs-1-reference.png` });
    expect(problems).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);

    // An operation opened shows its parameters, body, examples and answers.
    await list.locator('.opblock-summary-control').click();
    await create.locator('.opblock-summary-control').click();
    await list.locator('tr[data-param-name="status"]').waitFor();
    await create.locator('.opblock-section-request-body').waitFor();
    await page.screenshot({ path: `${SHOTS}/api-docs-2-operations.png`, fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(offOrigin).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);

  test('"try it" sends the pasted token and shows the answer with its rate-limit headers', async () => {
    const { page, base } = h;
    const token = h.seed.users.find((u) => u.username === 'mark' && u.org_id === h.seed.orgs[0]!.id)!.token;
    const sent: { url: string; authorization?: string; cookie?: string }[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${base}/api/issues`)) {
        const headers = request.headers();
        sent.push({ url: request.url(), authorization: headers.authorization, cookie: headers.cookie });
      }
    });

    // Signed in to the pages too: the session cookie must not ride along with the calls.
    await page.goto(`${base}/login`);
    await signInOnPage(page, 'maya@example.com');
    await page.waitForURL(`${base}/orgs/acme`);
    expect((await page.context().cookies()).map((c) => c.name)).toContain('wm_session');
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${base}/api/docs`);
    await page.locator('.auth-wrapper').getByRole('button', { name: 'Authorize' }).click();
    const dialog = page.getByRole('dialog').or(page.locator('.modal-ux'));
    await dialog.getByLabel('Bearer token').fill(token);
    await dialog.getByRole('button', { name: 'Authorize', exact: true }).first().click();
    await dialog.getByRole('button', { name: 'Logout' }).first().waitFor();
    await page.screenshot({ path: `${SHOTS}/api-docs-3-authorize.png` });
    expect(await seriousViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Close' }).first().click();

    const list = page.locator('#operations-Issues-listIssues');
    await list.locator('.opblock-summary-control').click();
    await list.getByRole('button', { name: 'Try it out' }).click();
    await list.getByRole('button', { name: 'Execute' }).click();
    const live = list.locator('.live-responses-table');
    await live.locator('.response-col_status').first().waitFor();
    expect((await live.locator('.response .response-col_status').first().textContent())?.trim()).toBe('200');
    const headers = (await live.locator('h5:text-is("Response headers") + pre').textContent()) ?? '';
    expect(headers).toMatch(/x-ratelimit-limit:\s*600/);
    expect(headers).toMatch(/x-ratelimit-remaining:\s*\d+/);
    expect(headers).toMatch(/x-ratelimit-reset:\s*\d+/);
    expect(headers).toMatch(/ratelimit-policy:\s*"global";q=600;w=60/);
    const body = JSON.parse(
      (await live.locator('h5:text-is("Response body") + .highlight-code pre').textContent()) ?? 'null',
    ) as { key: string }[];
    expect(body.length).toBeGreaterThan(0);
    expect(body[0]!.key).toMatch(/^(WEB|MOB)-\d+$/);
    await live.scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/api-docs-4-try-it.png` });
    expect(await seriousViolations(page)).toEqual([]);

    // The call went out with the pasted token, and only with it.
    expect(sent).toHaveLength(1);
    expect(sent[0]!.authorization).toBe(`Bearer ${token}`);
    expect(sent[0]!.cookie).toBeUndefined();
    expect(offOrigin).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);
});
