import { AxeBuilder } from '@axe-core/playwright';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

/**
 * The issue page in Chromium: the description's Markdown (and hostile text that stays inert), the
 * activity feed, the properties sidebar saving in place (and without JavaScript), a viewer's
 * read-only sidebar, relative times, axe, and the screenshots in docs/ (web-issue-1366.png,
 * web-issue-390.png are copied from test-output/screenshots).
 */
describe.skipIf(!chromiumAvailable)('the issue page in a real browser', () => {
  let h: Harness;
  const problems: string[] = [];
  const offOrigin: string[] = [];

  /** Records console errors (a CSP refusal is one), uncaught errors, dialogs (alert() from a description) and requests elsewhere. */
  async function guard(context: BrowserContext, page: Page) {
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === h.base) return route.continue();
      offOrigin.push(url);
      return route.abort('internetdisconnected');
    });
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(`${page.url()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`${page.url()}: uncaught ${e.message}`));
    page.on('dialog', (d) => {
      problems.push(`dialog: ${d.message()}`);
      void d.dismiss();
    });
  }

  const token = (username: string) =>
    h.seed.users.find((u) => u.username === username && u.org_id === h.seed.orgs[0]!.id)!.token;
  const patch = (key: string, username: string, body: Record<string, unknown>) =>
    fetch(`${h.base}/api/issues/${key}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${token(username)}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const statusOf = async (key: string) => {
    const [projectKey, number] = key.split('-');
    return (
      await h.app.db.prisma.issue.findFirstOrThrow({ where: { project: { key: projectKey }, number: Number(number) } })
    ).status;
  };

  beforeAll(async () => {
    h = await startHarness();
    await guard(h.page.context(), h.page);
    await h.page.goto(`${h.base}/orgs/acme/issues/WEB-2`);
    await signInOnPage(h.page, 'maya@example.com');
    await h.page.waitForURL(`${h.base}/orgs/acme/issues/WEB-2`);
  });
  afterAll(() => h?.close());

  test('the description is Markdown: bold, lists, code, links with rel="noopener nofollow ugc"', async () => {
    const { page, base } = h;
    const description = [
      'The guide is **half written**; see [the outline](https://example.com/outline) or write to docs@example.com.',
      '',
      '## Left to do',
      '',
      '1. The `install` chapter',
      '2. The *first issue* walkthrough',
      '',
      '```',
      'npm run seed',
      '```',
    ].join('\n');
    expect((await patch('WEB-2', 'maya', { description })).status).toBe(200);
    await page.goto(`${base}/orgs/acme/issues/WEB-2`);
    const md = page.locator('[data-description]');
    expect(await md.locator('strong').textContent()).toBe('half written');
    expect(await md.locator('h2').textContent()).toBe('Left to do');
    expect(await md.locator('ol > li').allTextContents()).toEqual([
      'The install chapter',
      'The first issue walkthrough',
    ]);
    expect(await md.locator('li code').textContent()).toBe('install');
    expect(await md.locator('pre code').textContent()).toBe('npm run seed\n');
    const links = await md
      .locator('a')
      .evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('rel'), a.textContent]));
    expect(links).toEqual([
      ['https://example.com/outline', 'noopener nofollow ugc', 'the outline'],
      ['mailto:docs@example.com', 'noopener nofollow ugc', 'docs@example.com'],
    ]);
  });

  test('a hostile description is inert: no script runs, no element or address of its own', async () => {
    const { page, base } = h;
    const hostile = [
      '<script>window.pwned = "script"</script>',
      '<img src="x" onerror="window.pwned = \'img\'">',
      '<svg onload="window.pwned = \'svg\'"></svg>',
      '[click me](javascript:window.pwned="link")',
      '[data](data:text/html,<script>alert(1)</script>)',
      '![x" onerror="window.pwned=\'alt\'](https://example.com/x.png)',
      '<a href="javascript:alert(1)">html link</a>',
      '<iframe src="/orgs/acme/settings/integrations"></iframe>',
      '<style>body { display: none }</style>',
    ].join('\n\n');
    expect((await patch('WEB-3', 'maya', { description: hostile })).status).toBe(200);
    await page.goto(`${base}/orgs/acme/issues/WEB-3`);
    const md = page.locator('[data-description]');
    await md.waitFor();
    // Every link there is still clickable: click them all (the page's own handlers would run on the way).
    const found = await md.evaluate((root) => ({
      tags: [...root.querySelectorAll('*')].map((e) => e.tagName.toLowerCase()).filter((t) => t !== 'p'),
      hrefs: [...root.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      handlers: [...root.querySelectorAll('*')]
        .flatMap((e) => [...e.attributes].map((a) => a.name))
        .filter((n) => n.startsWith('on') || n === 'style' || n === 'src'),
      text: root.textContent,
    }));
    expect(found.tags).toEqual(['a']);
    expect(found.hrefs).toEqual(['https://example.com/x.png']);
    expect(found.handlers).toEqual([]);
    expect(found.text).toContain('<script>window.pwned = "script"</script>');
    expect(found.text).toContain('[click me](javascript:window.pwned="link")');
    expect(await page.evaluate(() => (window as unknown as { pwned?: string }).pwned)).toBeUndefined();
    expect(await page.locator('body').isVisible()).toBe(true);
    expect(problems).toEqual([]);
  });

  test('a change made through the API is in the activity feed: who, what, through what, when', async () => {
    const { page, base } = h;
    expect((await patch('WEB-1', 'mark', { status: 'In Review', priority: 'urgent' })).status).toBe(200);
    await page.goto(`${base}/orgs/acme/issues/WEB-1`);
    const first = page.locator('#activity li').first();
    await expect
      .poll(() => first.textContent().then((t) => t!.replace(/\s+/g, ' ').trim()))
      .toMatch(
        /^Mark Member changed the status from Done to In Review and the priority from high to urgent with an API key · /,
      );
    // The time: relative text, the exact local time on hover.
    const time = first.locator('time');
    expect(await time.textContent()).toMatch(/^(now|\d+ (sec|min)\. ago)$/);
    const [datetime, title] = await Promise.all([time.getAttribute('datetime'), time.getAttribute('title')]);
    expect(new Date(datetime!).getTime()).toBeGreaterThan(Date.now() - 3_600_000);
    // Not the server's "2026-11-27 03:51 UTC" any more: the script's local time (its time zone: the viewer's test).
    expect(title).not.toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
    expect(title).toContain(String(new Date(datetime!).getFullYear()));
  });

  test('relative times: "3 hr. ago", "yesterday", "last wk.", each with the exact time as its title', async () => {
    const issue = await h.app.db.prisma.issue.findFirstOrThrow({ where: { project: { key: 'MOB' }, number: 3 } });
    const opened = issue.createdAt.getTime();
    const HOUR = 3_600_000;
    for (const [later, text] of [
      [3 * HOUR + 60_000, '3 hr. ago'],
      [30 * HOUR, 'yesterday'],
      [9 * 24 * HOUR, 'last wk.'],
    ] as const) {
      // The page's clock set later than the issue's creation: what a reader then sees.
      const page = await h.page.context().newPage();
      await page.clock.setFixedTime(new Date(opened + later));
      await page.goto(`${h.base}/orgs/acme/issues/MOB-3`);
      const time = page.locator('#issue-meta time').first();
      expect(await time.getAttribute('datetime')).toBe(issue.createdAt.toISOString());
      expect(await time.textContent()).toBe(text);
      expect(await time.getAttribute('title')).toContain(String(issue.createdAt.getUTCFullYear()));
      await page.close();
    }
  });

  test('changing the status in the sidebar saves in place, and the page after a reload shows it', async () => {
    const { page, base } = h;
    await page.goto(`${base}/orgs/acme/issues/WEB-4`);
    // A mark on this document: it is still there after the save, so the page did not reload.
    await page.evaluate(() => ((window as unknown as { unchanged: boolean }).unchanged = true));
    expect(await page.getByRole('button', { name: 'Set status' }).isVisible()).toBe(false);
    await page.getByLabel('Status').selectOption('In Progress');
    await page.getByRole('status').filter({ hasText: 'Status saved.' }).waitFor();
    expect(await statusOf('WEB-4')).toBe('In Progress');
    expect(await page.evaluate(() => (window as unknown as { unchanged?: boolean }).unchanged)).toBe(true);
    expect(await page.locator('#activity li').first().textContent()).toContain(
      'changed the status from Backlog to In Progress',
    );
    // The select keeps the keyboard's place.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('p-status');
    await page.reload();
    expect(await page.getByLabel('Status').inputValue()).toBe('In Progress');
    expect(problems).toEqual([]);
  });

  test('without JavaScript the sidebar is a form with a button; the page after it shows the change', async () => {
    const context = await h.browser.newContext({ javaScriptEnabled: false, viewport: { width: 1100, height: 800 } });
    const page = await context.newPage();
    await guard(context, page);
    await page.goto(`${h.base}/orgs/acme/issues/MOB-2`);
    await signInOnPage(page, 'mark@example.com');
    await page.waitForURL(`${h.base}/orgs/acme/issues/MOB-2`);
    await page.getByLabel('Priority').selectOption('urgent');
    await page.getByRole('button', { name: 'Set priority' }).click();
    await page.getByText('Saved the priority of MOB-2.').waitFor();
    expect(await page.getByLabel('Priority').inputValue()).toBe('urgent');
    await context.close();
  });

  test("a viewer sees the properties and cannot change them; times are in the reader's time zone", async () => {
    const context = await h.browser.newContext({
      viewport: { width: 1100, height: 800 },
      locale: 'en-US',
      timezoneId: 'Asia/Kolkata',
    });
    const page = await context.newPage();
    await guard(context, page);
    await page.goto(`${h.base}/orgs/acme/issues/WEB-4`);
    await signInOnPage(page, 'victor@example.com');
    await page.waitForURL(`${h.base}/orgs/acme/issues/WEB-4`);
    const side = page.getByRole('complementary', { name: 'Properties' });
    expect(await side.locator('dt').allTextContents()).toEqual(['Status', 'Priority', 'Assignee', 'Project']);
    expect(await side.locator('dd').first().textContent()).toBe('In Progress');
    expect(await page.locator('select, textarea, input:not([type=search])').count()).toBe(0);
    expect(await page.getByText('Edit title and description').count()).toBe(0);
    await page.getByText('Viewers can read issues; members and above change them.').waitFor();
    // The exact time on hover is the reader's local time (UTC+5:30 here), as Intl formats it.
    const time = page.locator('#issue-meta time').last();
    const [datetime, title] = await Promise.all([time.getAttribute('datetime'), time.getAttribute('title')]);
    const local = new Intl.DateTimeFormat('en-US', {
      dateStyle: 'full',
      timeStyle: 'long',
      timeZone: 'Asia/Kolkata',
    }).format(new Date(datetime!));
    const spaces = (text: string) => text.replace(/\s/g, ' ');
    expect(spaces(title!)).toBe(spaces(local));
    expect(title).toContain('GMT+5:30');
    await context.close();
  });

  test('axe finds nothing serious on the issue page; it fits 390 px; the screenshots', async () => {
    const { page, base } = h;
    // A lived-in issue: a description, and a few changes by different people and means.
    await patch('WEB-2', 'mark', { status: 'In Review' });
    await patch('WEB-2', 'olivia', {
      priority: 'high',
      assignee_id: h.seed.users.find((u) => u.username === 'mark')!.id,
    });
    await page.goto(`${base}/orgs/acme/issues/WEB-2`);
    await page.getByLabel('Status').selectOption('In Progress');
    await page.getByRole('status').filter({ hasText: 'Status saved.' }).waitFor();
    await page.reload();
    await page.setViewportSize({ width: 1366, height: 900 });
    const { violations } = await new AxeBuilder({ page }).analyze();
    expect(
      violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical')
        .map((v) => `${v.id}: ${v.nodes.map((n) => n.html).join(' | ')}`),
    ).toEqual([]);
    await page.screenshot({ path: `${SHOTS}/web-issue-1366.png`, fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth),
    ).toBeLessThanOrEqual(0);
    const narrow = await new AxeBuilder({ page }).analyze();
    expect(narrow.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual(
      [],
    );
    await page.screenshot({ path: `${SHOTS}/web-issue-390.png`, fullPage: true });
    expect(offOrigin).toEqual([]);
    expect(problems).toEqual([]);
  });
});
