import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

/**
 * Labels in Chromium: a manager adds one on Settings > Labels, a member's form on the issue page
 * puts it on an issue, and the chip shows there and on the filtered list; no console error (a
 * CSP refusal of the chip's color would be one), and axe finds nothing serious on the page.
 */
describe.skipIf(!chromiumAvailable)('labels in a real browser', () => {
  let h: Harness;
  const problems: string[] = [];

  beforeAll(async () => {
    h = await startHarness();
    h.page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${h.page.url()}: ${m.text()}`);
    });
    h.page.on('pageerror', (e) => problems.push(`uncaught ${e.message}`));
    await h.page.goto(`${h.base}/orgs/acme/settings/labels`);
    await signInOnPage(h.page, 'maya@example.com');
    await h.page.waitForURL(`${h.base}/orgs/acme/settings/labels`);
  });
  afterAll(() => h?.close());

  test('add a label, put it on an issue, see its chip and filter by it', async () => {
    const { page, base } = h;
    await page.getByLabel('Name', { exact: true }).first().fill('Regression');
    await page.getByRole('button', { name: 'Add label' }).click();
    await page.waitForURL(`${base}/orgs/acme/settings/labels`);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('Label Regression added.');
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);

    await page.goto(`${base}/orgs/acme/issues/WEB-2`);
    await page.getByText('Change labels').click();
    await page.getByRole('checkbox', { name: 'Regression' }).check();
    await page.getByRole('button', { name: 'Save labels' }).click();
    await page.waitForURL(`${base}/orgs/acme/issues/WEB-2`);
    await expect.poll(() => page.locator('#issue-labels .label-chip').allTextContents()).toEqual(['Regression']);

    await page.goto(`${base}/orgs/acme/issues?label=regression`);
    const keys = await page.locator('td[data-label="Key"]').allTextContents();
    expect(keys.map((k) => k.trim())).toEqual(['WEB-2']);
    expect(problems).toEqual([]);
  });

  test('the new-issue form ticks labels the issue carries from the start', async () => {
    const { page, base } = h;
    await page.goto(`${base}/orgs/acme/issues`);
    await page.locator('#new-issue summary').click();
    await page.locator('#new-issue').getByLabel('Title').fill('Made with a label');
    await page.locator('#new-labels').getByRole('checkbox', { name: 'Regression' }).check();
    await page.locator('#new-issue').screenshot({ path: `${SHOTS}/new-issue-labels.png` });
    const { violations } = await new AxeBuilder({ page }).include('#new-issue').analyze();
    expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await page.getByRole('button', { name: 'Create issue' }).click();
    await page.waitForURL(`${base}/orgs/acme/issues`);
    const row = page.locator('tr', { hasText: 'Made with a label' });
    await expect.poll(() => row.locator('.label-chip').allTextContents()).toEqual(['Regression']);
    expect(problems).toEqual([]);
  });
});
