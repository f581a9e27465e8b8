import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

describe.skipIf(!chromiumAvailable)('GraphiQL at /api/graphql, offline', () => {
  let h: Harness;
  const offOrigin: string[] = [];
  const problems: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    // As on a machine without internet access: anything not addressed to the service fails.
    await h.page.context().route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === h.base || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      offOrigin.push(url);
      return route.abort('internetdisconnected');
    });
    h.page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    h.page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
  });
  afterAll(() => h?.close());

  test("renders from the service's own files under its CSP, loads the schema and runs a query", async () => {
    const { page, base } = h;
    await page.goto(`${base}/login?next=/api/graphql`);
    await signInOnPage(page, 'maya@example.com');
    await page.waitForURL(`${base}/api/graphql`);
    const response = await page.reload();
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.locator('.graphiql-container').first().waitFor({ timeout: 60_000 });
    await page.screenshot({ path: `${SHOTS}/graphiql-loaded.png` });
    // The schema arrived (introspection over the session): the documentation explorer lists Query.
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    await page.getByText('Query', { exact: true }).first().waitFor({ timeout: 30_000 });
    // Type a query (insertText: no auto-closed brackets) and run it with the execute button.
    await page.locator('.graphiql-query-editor .monaco-editor').first().click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{ me { name } }');
    const answer = page.waitForResponse(
      (r) =>
        r.url() === `${base}/api/graphql` &&
        r.request().method() === 'POST' &&
        (r.request().postData() ?? '').includes('me'),
    );
    await page.getByRole('button', { name: /Execute query/i }).click();
    expect((await answer).status()).toBe(200);
    await page.getByText('"name": "Maya', { exact: false }).waitFor();
    await page.screenshot({ path: `${SHOTS}/graphiql-offline.png` });
    expect(offOrigin).toEqual([]);
    expect(problems).toEqual([]);
  }, 180_000);
});
