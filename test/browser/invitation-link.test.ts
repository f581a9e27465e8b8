import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startMailSink, type MailSink } from '../support/smtp-server.js';
import { chromiumAvailable, SHOTS, signInOnPage, startHarness, type Harness } from './harness.js';

/** axe's serious and critical findings on the page as it stands. */
async function seriousViolations(page: Page) {
  const { violations } = await new AxeBuilder({ page }).analyze();
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`);
}

/** The owner, on the team page, makes an invitation; returns what the page shows once. */
async function inviteOnTeamPage(page: Page, base: string, fields: { role: string; email?: string }): Promise<string> {
  await page.goto(`${base}/orgs/acme/team`);
  if (new URL(page.url()).pathname === '/login') await signInOnPage(page, 'olivia@example.com');
  await page.waitForURL(`${base}/orgs/acme/team`);
  await page.getByLabel('Role', { exact: true }).selectOption(fields.role);
  if (fields.email) await page.getByLabel('Email (optional)').fill(fields.email);
  await page.getByRole('button', { name: 'Create invitation link' }).click();
  return page.getByLabel('Invitation link', { exact: true }).inputValue();
}

/** A person with no account, in a browser of their own, follows the link and signs up. */
async function signUpFromLink(
  h: Harness,
  link: string,
  person: { name: string; email: string; username: string },
  shot: string,
) {
  const context = await h.browser.newContext({ viewport: { width: 1100, height: 800 } });
  const page = await context.newPage();
  await page.goto(link);
  await expect.poll(() => page.getByRole('heading', { name: 'Join Acme Corp' }).isVisible()).toBe(true);
  expect(await seriousViolations(page)).toEqual([]);
  // A first try with every mistake: all are shown at once (the email too, unless the invitation named it).
  const emailGiven = (await page.getByLabel('Email').inputValue()) !== '';
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await page.getByText('Please correct the fields marked below.').waitFor();
  expect(await page.locator('.field-error').count()).toBe(emailGiven ? 3 : 4);
  expect(await seriousViolations(page)).toEqual([]);
  await page.screenshot({ path: `${SHOTS}/${shot}-mistakes.png`, fullPage: true });
  await page.getByLabel('Your name').fill(person.name);
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Username').fill(person.username);
  await page.getByLabel('Password', { exact: true }).fill('a long enough passphrase');
  await page.getByLabel('The same password again').fill('a long enough passphrase');
  await page.getByRole('button', { name: 'Create account and join' }).click();
  await page.waitForURL(`${h.base}/orgs/acme`);
  await page.getByText('Welcome to Acme Corp').waitFor();
  await page.screenshot({ path: `${SHOTS}/${shot}-joined.png`, fullPage: true });
  return { context, page };
}

describe.skipIf(!chromiumAvailable)('an invitation link in a real browser', () => {
  let h: Harness;
  let mail: MailSink;
  beforeAll(async () => {
    mail = await startMailSink();
    h = await startHarness({ config: { mail: { smtpUrl: mail.url, from: 'workmgmt <no-reply@127.0.0.1>' } } });
  });
  afterAll(async () => {
    await h?.close();
    await mail?.close();
  });

  test('an owner makes a link on the team page; a new person opens it, creates an account and lands in the organization', async () => {
    const link = await inviteOnTeamPage(h.page, h.base, { role: 'member' });
    expect(link).toMatch(new RegExp(`^${h.base}/invite/inv_[\\w-]{24}$`));
    const { context, page } = await signUpFromLink(
      h,
      link,
      { name: 'Nina New', email: 'nina@example.com', username: 'nina' },
      'invite-link',
    );
    // A member: the team page names whom to ask, and the admin tabs are not offered.
    await page.goto(`${h.base}/orgs/acme/team`);
    await page.getByText('ask Olivia Owner (owner)').waitFor();
    expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);
    // The owner sees it used, by whom.
    await h.page.goto(`${h.base}/orgs/acme/team`);
    await h.page.getByText('used by Nina New').waitFor();
    await h.page.screenshot({ path: `${SHOTS}/invite-team-page.png`, fullPage: true });
    // The link is spent: opening it again says so.
    await page.context().clearCookies();
    await page.goto(link);
    await page.getByRole('heading', { name: 'This invitation link no longer works' }).waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await context.close();
  });

  test('with SMTP_URL, the link is mailed; the mail is received, and its link followed to a new account', async () => {
    const shown = await inviteOnTeamPage(h.page, h.base, { role: 'viewer', email: 'Mila@Example.com' });
    await h.page.getByText('It was mailed to Mila@Example.com').waitFor();
    const received = await mail.next();
    expect(received.to).toEqual(['mila@example.com']);
    expect(received.text).toContain('Subject: Olivia Owner invited you to Acme Corp');
    const link = /http:\/\/127\.0\.0\.1:\d+\/invite\/inv_[\w-]{24}/.exec(received.text)?.[0];
    expect(link).toBe(shown);
    const { context } = await signUpFromLink(
      h,
      link!,
      { name: 'Mila Mail', email: 'mila@example.com', username: 'mila' },
      'invite-mail',
    );
    const mila = await h.app.db.prisma.user.findUniqueOrThrow({
      where: { email: 'mila@example.com' },
      select: { memberships: { select: { role: true } } },
    });
    expect(mila.memberships).toEqual([{ role: 'viewer' }]);
    await context.close();
  });
});
