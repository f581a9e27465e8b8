import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createUser } from '../../src/cli/operations.js';
import { chromiumAvailable, PASSWORD, SHOTS, startHarness, type Harness } from './harness.js';

/**
 * The web app end to end in Chromium, from an empty database: first-run setup, dashboard, a
 * project, issues, the list's filters, the board, an edit, an invitation, and the invitee who
 * joins and sees the issue. Every page is screenshotted (wide and 390 px), checked by axe (no
 * serious or critical violation), for horizontal scrolling at 390 px, and for its skip link;
 * no request may leave the service's origin.
 */
const TOUR = ['05-issues-filtered', '06-board', '12-dashboard'];

describe.skipIf(!chromiumAvailable)('the web app in a real browser', () => {
  let h: Harness;
  const offOrigin: string[] = [];
  const problems: string[] = [];
  const axeFindings: Record<string, string[]> = {};
  const checked: string[] = [];

  /** Fails every request to another origin (as on a machine without internet) and records it; records console errors (CSP). */
  async function guard(context: BrowserContext) {
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === h.base || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
      offOrigin.push(url);
      return route.abort('internetdisconnected');
    });
    context.on('page', (p) => watch(p));
  }
  function watch(page: Page) {
    page.on('console', (m) => {
      // The 404 page visited on purpose is reported by Chromium as a failed load: not a problem.
      if (m.type() === 'error' && !(page.url().includes('/orgs/nowhere/') && m.text().includes('status of 404')))
        problems.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${page.url()}: uncaught ${e.message}`));
  }

  /** The checks every page gets, and its screenshots. */
  async function check(page: Page, name: string) {
    await page.waitForLoadState('load');
    await page.screenshot({ path: `${SHOTS}/web-${name}.png`, fullPage: true });
    // The tour in docs/pages.md (docs/*.png) is copied from these: a small window, the top of the page.
    if (TOUR.includes(name)) {
      const size = page.viewportSize()!;
      await page.setViewportSize({ width: 960, height: 600 });
      await page.screenshot({ path: `${SHOTS}/tour-${name}.png` });
      await page.setViewportSize(size);
    }
    const { violations } = await new AxeBuilder({ page }).analyze();
    axeFindings[name] = violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.impact} ${v.id}: ${v.nodes.map((n) => n.html.slice(0, 80)).join(' | ')}`);
    // The skip link is the first stop of the keyboard, visibly focused, and leads to the content.
    // From the top of the page, as after loading it (the sequential focus starting point is reset).
    await page.evaluate(() => {
      window.scrollTo(0, 0);
      document.body.tabIndex = -1;
      document.body.focus();
      document.body.removeAttribute('tabindex');
    });
    await page.keyboard.press('Tab');
    const focus = await page.evaluate(() => {
      const el = document.activeElement as HTMLElement;
      const style = getComputedStyle(el);
      return { text: el.textContent, outline: style.outlineStyle, left: el.getBoundingClientRect().left };
    });
    expect(focus.text, name).toBe('Skip to content');
    expect(focus.outline, name).not.toBe('none');
    expect(focus.left, name).toBeGreaterThanOrEqual(0);
    // 390 px wide: nothing scrolls sideways but boxes meant to (the board, wide tables).
    const size = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    // On failure, the widest elements that stick out say what to fix.
    const culprits =
      overflow > 0
        ? await page.evaluate(() =>
            [...document.querySelectorAll('body *')]
              .filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
              .filter((e) => !e.parentElement?.closest('.board, .table-box'))
              .slice(0, 5)
              .map((e) => `${e.tagName}.${e.className}#${e.id}`),
          )
        : [];
    await page.screenshot({ path: `${SHOTS}/web-${name}-390.png`, fullPage: true });
    expect(overflow, `${name} at 390 px: ${culprits.join(', ')}`).toBeLessThanOrEqual(0);
    await page.screenshot({ path: `${SHOTS}/web-${name}-390.png`, fullPage: true });
    await page.setViewportSize(size);
    checked.push(name);
  }

  beforeAll(async () => {
    h = await startHarness({ seed: false });
    await guard(h.page.context());
    watch(h.page);
  });
  afterAll(() => h?.close());

  test('first run -> dashboard -> project -> issues -> filter -> board -> edit -> invite -> the member joins and sees the issue', async () => {
    const { page, base } = h;
    // First run: the printed link.
    expect(h.app.setupUrl).toBeTruthy();
    await page.goto(h.app.setupUrl!);
    await check(page, '01-setup');
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Username').fill('ada');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('The same password again').fill(PASSWORD);
    await page.getByLabel('Organization name').fill('Analytical Engines');
    await page.getByLabel('Address (slug)').fill('analytical');
    await page.getByLabel('Project name').fill('Mill');
    await page.getByLabel('Project key').fill('MILL');
    await page.getByRole('button', { name: 'Create and sign in' }).click();
    await page.waitForURL(`${base}/orgs/analytical`);
    await page.getByRole('heading', { name: 'Analytical Engines' }).waitFor();
    await check(page, '02-dashboard-empty');
    // The link is spent.
    expect((await page.request.get(h.app.setupUrl!)).status()).toBe(404);

    // A project.
    await page.getByRole('navigation', { name: 'Analytical Engines' }).getByRole('link', { name: 'Projects' }).click();
    await check(page, '03-projects');
    await page.getByLabel('Name').fill('Store');
    await page.getByLabel('Key').fill('STORE');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.waitForURL(`${base}/orgs/analytical/projects/STORE`);
    await page.getByText('Created the project Store.').waitFor();

    // Issues, created from the project page.
    for (const [title, priority] of [
      ['Punch cards jam', 'high'],
      ['Oil the gears', 'low'],
      ['Print the tables', 'medium'],
    ] as const) {
      await page.locator('details.create summary').click();
      await page.getByLabel('Title').fill(title);
      await page.getByLabel('Priority').selectOption(priority);
      await page.getByRole('button', { name: 'Create issue' }).click();
      await page.getByText(`: ${title}`).waitFor();
    }
    await check(page, '04-project');
    // Reloading the page after a create creates nothing (post/redirect/get).
    await page.reload();
    expect(await h.app.db.prisma.issue.count()).toBe(3);

    // The list, filtered; the filters are in the URL.
    await page.goto(`${base}/orgs/analytical/issues`);
    await page.getByRole('checkbox', { name: 'high' }).check();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/priority=high/);
    await expect.poll(() => page.locator('table tbody tr').count()).toBe(1);
    await page.getByRole('link', { name: 'Punch cards jam' }).waitFor();
    await check(page, '05-issues-filtered');

    // The board: the card's "Move to…" menu moves an issue; drag and drop moves another.
    await page.goto(`${base}/orgs/analytical/board`);
    const card = (key: string) => page.locator(`.issue-card[data-key="${key}"]`);
    await card('STORE-1').getByText('Move to…').click();
    await card('STORE-1').getByRole('button', { name: 'Todo (move STORE-1)' }).click();
    await page.getByText('Moved STORE-1 to Todo.').waitFor();
    expect(await page.locator('section[data-status="Todo"] .issue-card').count()).toBe(1);
    await card('STORE-2').dragTo(page.locator('section[data-status="Todo"]'));
    await page.locator('section[data-status="Todo"] .issue-card[data-key="STORE-2"]').waitFor();
    await check(page, '06-board');

    // Edit the issue: the title in the edit form; status and assignee in the sidebar, saved as they change.
    await page.goto(`${base}/orgs/analytical/issues/STORE-1`);
    await page.getByText('Edit title and description').click();
    await page.getByLabel('Title').fill('Punch cards jam in the reader');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved STORE-1.').waitFor();
    await page.getByRole('heading', { name: 'STORE-1 Punch cards jam in the reader' }).waitFor();
    await page.getByLabel('Status').selectOption('In Progress');
    await page.getByRole('status').filter({ hasText: 'Status saved.' }).waitFor();
    await page.getByLabel('Assignee').selectOption({ label: 'Ada Lovelace' });
    await page.getByRole('status').filter({ hasText: 'Assignee saved.' }).waitFor();
    await check(page, '07-issue');

    // The palette: Ctrl+K, type, Enter.
    await page.goto(`${base}/orgs/analytical/issues`);
    await page.keyboard.press('Control+K');
    await page.getByRole('dialog').getByRole('combobox').fill('gears');
    await page.getByRole('option', { name: /STORE-2 Oil the gears/ }).waitFor();
    await page.screenshot({ path: `${SHOTS}/web-08-palette.png` });
    await page.keyboard.press('Enter');
    await page.waitForURL(`${base}/orgs/analytical/issues/STORE-2`);

    // Invite a member: the link is shown once.
    await page.goto(`${base}/orgs/analytical/team`);
    await page.getByLabel('Role', { exact: true }).selectOption('member');
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const link = await page.locator('#new-secret').inputValue();
    expect(link).toMatch(/\/invite\/inv_[\w-]{24}$/);
    await check(page, '09-team-invite');
    await page.reload();
    expect(await page.locator('#new-secret').count()).toBe(0);

    // The account page and the dashboard with data.
    await page.goto(`${base}/account`);
    await check(page, '10-account');
    await page.goto(`${base}/orgs/analytical/settings/integrations`);
    await check(page, '11-api-keys');
    await page.goto(`${base}/orgs/analytical`);
    await page.locator('#chart-by-status:not([hidden])').waitFor();
    await check(page, '12-dashboard');

    // The member: an account made by the operator, signs in, pastes the link at /join, sees the issue.
    await createUser(h.app.db.prisma, {
      email: 'charles@example.com',
      name: 'Charles Babbage',
      username: 'charles',
      password: PASSWORD,
    });
    const context = await h.browser.newContext({ viewport: { width: 1100, height: 800 } });
    await guard(context);
    const member = await context.newPage();
    watch(member);
    await member.goto(`${base}/join`);
    await check(member, '13-sign-in');
    await member.getByLabel('Email').fill('charles@example.com');
    await member.getByLabel('Password').fill(PASSWORD);
    await member.getByRole('button', { name: 'Sign in' }).click();
    await member.waitForURL(`${base}/join`);
    await check(member, '14-join');
    await member.getByLabel('Invitation link or code').fill(link);
    await member.getByRole('button', { name: 'Join' }).click();
    await member.waitForURL(`${base}/orgs/analytical`);
    await member.getByText('you joined as member').waitFor();
    await member.getByRole('navigation', { name: 'Analytical Engines' }).getByRole('link', { name: 'Issues' }).click();
    await member.getByRole('link', { name: 'Punch cards jam in the reader' }).click();
    await member.getByRole('heading', { name: 'STORE-1 Punch cards jam in the reader' }).waitFor();
    await check(member, '15-member-sees-issue');
    // Another organization's page, and an unknown one, are the 404 page.
    const missing = await member.goto(`${base}/orgs/nowhere/issues`);
    expect(missing?.status()).toBe(404);
    await check(member, '16-not-found');
    await context.close();

    expect(offOrigin).toEqual([]);
    expect(problems).toEqual([]);
    expect(axeFindings).toEqual(Object.fromEntries(checked.map((name) => [name, []])));
  }, 600_000);
});
