import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, signInOnPage, startHarness, type Harness } from './harness.js';

/**
 * The issue page's comments in Chromium: a member writes one through the form, a hostile one stays
 * inert (no script runs, no element or address of its own), and the author edits and deletes
 * their own through the page's forms.
 */
describe.skipIf(!chromiumAvailable)('comments on the issue page in a real browser', () => {
  let h: Harness;
  const problems: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    h.page.on('pageerror', (e) => problems.push(`uncaught ${e.message}`));
    h.page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
    await h.page.goto(`${h.base}/orgs/acme/issues/WEB-2`);
    await signInOnPage(h.page, 'mark@example.com');
    await h.page.waitForURL(`${h.base}/orgs/acme/issues/WEB-2`);
  });
  afterAll(() => h?.close());

  test('a hostile comment written through the form is inert; the author edits and deletes it', async () => {
    const { page } = h;
    const hostile = [
      '<script>window.pwned = "script"</script>',
      '<img src="x" onerror="window.pwned = \'img\'">',
      '[click me](javascript:window.pwned="link")',
      '**bold** and https://example.com/ok',
    ].join('\n\n');
    await page.fill('#new-comment', hostile);
    await page.click('form.new-comment button[type=submit]');
    await page.waitForURL(/\/orgs\/acme\/issues\/WEB-2#comments$/);
    const body = page.locator('[data-comment-body]').last();
    const found = await body.evaluate((root) => ({
      tags: [...root.querySelectorAll('*')].map((e) => e.tagName.toLowerCase()).filter((t) => t !== 'p'),
      hrefs: [...root.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      attributes: [...root.querySelectorAll('*')]
        .flatMap((e) => [...e.attributes].map((a) => a.name))
        .filter((n) => n.startsWith('on') || n === 'style' || n === 'src'),
      text: root.textContent,
    }));
    expect(found.tags.sort()).toEqual(['a', 'strong']);
    expect(found.hrefs).toEqual(['https://example.com/ok']);
    expect(found.attributes).toEqual([]);
    expect(found.text).toContain('<script>window.pwned = "script"</script>');
    expect(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned)).toBeUndefined();

    const mine = page.locator('[data-comment]').last();
    await mine.locator('summary').click();
    await mine.locator('textarea').fill('Rewritten');
    await mine.getByRole('button', { name: 'Save comment' }).click();
    await page.waitForURL(/#comments$/);
    await expect.poll(() => page.locator('[data-comment-body]').last().textContent()).toContain('Rewritten');
    await page.locator('[data-comment]').last().locator('summary').click();
    await page.locator('[data-comment]').last().getByRole('button', { name: 'Delete comment' }).click();
    await page.waitForURL(/#comments$/);
    await expect.poll(() => page.locator('#comments').textContent()).toContain('No comments yet');
    expect(problems).toEqual([]);
  });
});
