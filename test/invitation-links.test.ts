import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { INVITATION_MAIL_POLICY } from '../src/schema/organizations/invitation.js';
import { INVITE_PROBE_POLICY, SIGN_UP_POLICY } from '../src/web/invite-throttle.js';
import { startMailSink, type MailSink } from './support/smtp-server.js';
import { createUser } from '../src/cli/operations.js';
import { formPost, ORIGIN, PASSWORD, startTestApp, type TestApp } from './support/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

// Each test comes from an address of its own, so the throttles' buckets of one do not fill another's.
let nextAddress = 1;
const address = () => `10.9.0.${nextAddress++}`;

const page = (path: string, ip: string, cookie?: string) =>
  t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } }), {
    remoteAddress: ip,
  });
const post = (path: string, fields: Record<string, string>, ip: string, cookie?: string) =>
  t.app.fetch(formPost(path, fields, cookie ? { cookie } : {}), { remoteAddress: ip });
const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .map((c) => c.split(';')[0]!)
    .find((c) => c.startsWith(`${name}=`)) ?? '';

/** A new invitation to acme through the REST API; its code and link. */
async function invite(
  role = 'member',
  token = t.user('olivia').token,
): Promise<{ id: string; code: string; url: string }> {
  const response = await t.call('POST', '/api/invitations', { token, body: { role } });
  expect(response.status).toBe(201);
  const body = await response.json();
  return { id: body.id, code: body.invite_code, url: body.invite_url };
}

const pathOf = (url: string) => new URL(url).pathname;
const GOOD = {
  name: 'Nora New',
  email: 'nora@example.com',
  username: 'nora',
  password: 'a long enough passphrase',
  confirmation: 'a long enough passphrase',
};

describe('invitation links', () => {
  test('the link carries the code; a person without an account creates one and lands in the organization', async () => {
    const ip = address();
    const { code, url } = await invite('member');
    expect(url).toBe(`${t.app.config.baseUrl}/invite/${code}`);

    const shown = await page(pathOf(url), ip);
    expect(shown.status).toBe(200);
    // The code is in the address: no Referer carries it past our origin.
    expect(shown.headers.get('referrer-policy')).toBe('strict-origin');
    const html = await shown.text();
    expect(html).toContain('Olivia Owner invited you');
    expect(html).toContain('<strong>Acme Corp</strong> as <strong>member</strong>');
    expect(html).toContain(`href="/login?next=${encodeURIComponent(`/invite/${code}`)}"`);

    const created = await post(pathOf(url), { ...GOOD, email: ' Nora@Example.com ' }, ip);
    expect(created.status).toBe(303);
    expect(created.headers.get('location')).toBe('/orgs/acme');
    const session = cookieOf(created, 'wm_session');
    expect(session).not.toBe('');
    const dashboard = await page('/orgs/acme', ip, `${session}; ${cookieOf(created, 'wm_flash')}`);
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain('Welcome to Acme Corp: you joined as member.');

    const user = await t.app.db.prisma.user.findUniqueOrThrow({
      where: { email: 'nora@example.com' },
      include: { memberships: true },
    });
    expect(user.memberships.map((m) => [m.orgId, m.role])).toEqual([[t.org('acme').id, 'member']]);
    expect(await t.app.db.prisma.invitation.findFirstOrThrow({ where: { usedBy: user.id } })).toMatchObject({
      orgId: t.org('acme').id,
    });
    // The new person signs in with the password they chose.
    expect(await t.signIn('nora@example.com', GOOD.password)).toMatch(/^wm_session=/);
  });

  test('every mistake of the form is shown at once, and nothing is created', async () => {
    const ip = address();
    const { id, code } = await invite();
    const bad = await post(
      `/invite/${code}`,
      { name: '', email: 'not-an-email', username: '-', password: 'short', confirmation: 'short' },
      ip,
    );
    expect(bad.status).toBe(400);
    const html = await bad.text();
    expect(html).toContain('id="name-error"');
    expect(html).toContain('id="email-error"');
    expect(html).toContain('id="username-error"');
    expect(html).toContain('id="password-error"');
    expect(html).toContain('The password must have at least 12 characters.');
    // What was typed stays (but never a password).
    expect(html).toContain('value="not-an-email"');
    expect(html).not.toContain('value="short"');

    // An email and a username that exist: both said at once, the email with the way to accept instead.
    const taken = await post(
      `/invite/${code}`,
      { ...GOOD, email: 'maya@example.com', username: 'maya', confirmation: 'something else entirely' },
      ip,
    );
    expect(taken.status).toBe(400);
    const takenHtml = await taken.text();
    expect(takenHtml).toContain('already has an account: sign in to accept the invitation');
    expect(takenHtml).toContain('is taken: choose another');
    expect(takenHtml).toContain('The two passwords differ.');
    expect((await t.app.db.prisma.invitation.findUniqueOrThrow({ where: { id } })).usedAt).toBeNull();
    expect(await t.app.db.prisma.user.count({ where: { email: 'not-an-email' } })).toBe(0);
  });

  test('used, expired, revoked, unknown and malformed links each get a page that says why and whom to ask', async () => {
    const ip = address();
    const used = await invite();
    const usedBy = await post(`/invite/${used.code}`, { ...GOOD, email: 'u1@example.com', username: 'u1' }, ip);
    expect(usedBy.status).toBe(303);
    const again = await page(`/invite/${used.code}`, ip);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain(
      'This invitation to Acme Corp was already used. If you used it, sign in. If not, ask Olivia Owner, who invited you, for a new one.',
    );
    // A second sign-up through a used link creates nobody.
    const second = await post(`/invite/${used.code}`, { ...GOOD, email: 'u2@example.com', username: 'u2' }, ip);
    expect(second.status).toBe(410);
    expect(await t.app.db.prisma.user.count({ where: { email: 'u2@example.com' } })).toBe(0);

    const expired = await invite();
    await t.app.db.prisma.invitation.update({
      where: { id: expired.id },
      data: { expiresAt: new Date('2026-01-02T03:04:00Z') },
    });
    const expiredPage = await page(`/invite/${expired.code}`, ip);
    expect(expiredPage.status).toBe(410);
    expect(await expiredPage.text()).toContain(
      'This invitation to Acme Corp expired on 2026-01-02 03:04 UTC. Ask Olivia Owner, who invited you, for a new one.',
    );
    expect(
      (await post(`/invite/${expired.code}`, { ...GOOD, email: 'u3@example.com', username: 'u3' }, ip)).status,
    ).toBe(410);

    const revoked = await invite();
    const owner = await t.signIn('olivia@example.com');
    expect((await post(`/orgs/acme/team/invitations/${revoked.id}/revoke`, {}, ip, owner)).status).toBe(303);
    const revokedPage = await page(`/invite/${revoked.code}`, ip);
    expect(revokedPage.status).toBe(410);
    expect(await revokedPage.text()).toContain(
      'This invitation to Acme Corp was revoked. Ask Olivia Owner, who invited you, for a new one.',
    );
    // The code of a revoked invitation does not work at /join either.
    const bella = await t.signIn('bella@example.com');
    expect((await post('/join', { code: revoked.code }, ip, bella)).status).toBe(404);

    for (const path of ['/invite/inv_AAAAAAAAAAAAAAAAAAAAAAAA', '/invite/nonsense', `/invite/${'x'.repeat(5000)}`]) {
      const response = await page(path, ip);
      expect(response.status, path.slice(0, 40)).toBe(404);
      const html = await response.text();
      expect(html).toContain('This invitation link does not work');
      expect(html).not.toMatch(/Error:|at [\w.]+ \(/);
    }
  });

  test('someone with an account signs in from the link and comes back to it, then joins with one click', async () => {
    const ip = address();
    const { code } = await invite('viewer');
    await createUser(t.app.db.prisma, {
      email: 'gina@example.com',
      name: 'Gina Guest',
      username: 'gina',
      password: PASSWORD,
    });
    const signIn = await post('/login', { email: 'gina@example.com', password: PASSWORD, next: `/invite/${code}` }, ip);
    expect(signIn.headers.get('location')).toBe(`/invite/${code}`);
    const gina = cookieOf(signIn, 'wm_session');
    const offer = await page(`/invite/${code}`, ip, gina);
    expect(offer.status).toBe(200);
    const html = await offer.text();
    expect(html).toContain(`action="/invite/${code}/accept"`);
    expect(html).toContain('Join Acme Corp</button>');
    const accepted = await post(`/invite/${code}/accept`, {}, ip, gina);
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get('location')).toBe('/orgs/acme');
    expect((await page('/orgs/acme', ip, gina)).status).toBe(200);
    // Signed in, the sign-up form is not offered: a POST to it goes back to the link.
    expect((await post(`/invite/${(await invite()).code}`, GOOD, ip, gina)).status).toBe(303);
  });

  test('a member of the organization is told so, and the invitation stays unused for someone else', async () => {
    const ip = address();
    const { id, code } = await invite();
    const maya = await t.signIn('maya@example.com');
    const html = await (await page(`/invite/${code}`, ip, maya)).text();
    expect(html).toContain('You are already a member of Acme Corp.');
    const accepted = await post(`/invite/${code}/accept`, {}, ip, maya);
    expect(accepted.status).toBe(409);
    expect(await accepted.text()).toContain('You are already a member of this organization.');
    expect((await t.app.db.prisma.invitation.findUniqueOrThrow({ where: { id } })).usedAt).toBeNull();
  });

  test("another organization's admin can neither list nor revoke acme's invitations", async () => {
    const ip = address();
    const { id, code } = await invite();
    const cookie = await t.signIn('bella@example.com');
    expect((await post(`/orgs/globex/team/invitations/${id}/revoke`, {}, ip, cookie)).status).toBe(404);
    expect(await (await page('/orgs/globex/team', ip, cookie)).text()).not.toContain(id);
    expect((await page(`/invite/${code}`, ip)).status).toBe(200);
  });

  test('the team page lists invitations with who made them, role, expiry and state; members see whom to ask', async () => {
    const ip = address();
    const owner = await t.signIn('olivia@example.com');
    const made = await post(
      '/orgs/acme/team/invitations',
      { role: 'viewer', expires_in_days: '2', email: 'Vic@Example.com' },
      ip,
      owner,
    );
    expect(made.status).toBe(303);
    const shown = await (await page('/orgs/acme/team', ip, `${owner}; ${cookieOf(made, 'wm_flash')}`)).text();
    expect(shown).toMatch(/value="http:\/\/localhost:4000\/invite\/inv_[\w-]{24}"/);
    expect(shown).toContain('<td data-label="For">vic@example.com</td>');
    expect(shown).toMatch(
      /<td data-label="Made by">Olivia Owner, <time datetime="[^"]+" title="[\d-]+ [\d:]+ UTC" data-relative>[\d-]+ [\d:]+ UTC<\/time><\/td>/,
    );
    expect(shown).toContain('<td data-label="State">pending</td>');
    // The link's sign-up form starts with the email it was made for.
    const link = /value="http:\/\/localhost:4000(\/invite\/inv_[\w-]{24})"/.exec(shown)![1]!;
    expect(await (await page(link, ip)).text()).toContain('value="vic@example.com"');
    // An admin refused for want of a higher role is told whom to ask.
    const adam = await t.signIn('adam@example.com');
    const refused = await post(`/orgs/acme/team/members/${t.user('olivia').id}/role`, { role: 'member' }, ip, adam);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('To have it done, ask the owner: Olivia Owner.');
    const maya = await t.signIn('maya@example.com');
    const memberView = await (await page('/orgs/acme/team', ip, maya)).text();
    expect(memberView).toContain('Owners and admins change roles and invite people: ask Olivia Owner (owner).');
    expect(memberView).not.toContain('/team/invitations');
  });

  test('the API and GraphQL give the link with the code', async () => {
    const response = await t.call('POST', '/api/graphql', {
      token: t.user('olivia').token,
      body: {
        query:
          'mutation { createInvitation(role: member) { ... on MutationCreateInvitationSuccess { data { code url mailed invitation { email } } } } }',
      },
    });
    const { data } = await response.json();
    const created = data.createInvitation.data;
    expect(created.url).toBe(`${t.app.config.baseUrl}/invite/${created.code}`);
    expect(created).toMatchObject({ mailed: false, invitation: { email: null } });
  });

  test('a form from another site is refused (CSRF)', async () => {
    const { code } = await invite();
    const forged = await t.app.fetch(formPost(`/invite/${code}`, GOOD, { origin: 'https://evil.example' }), {
      remoteAddress: address(),
    });
    expect(forged.status).toBe(403);
    expect(await t.app.db.prisma.user.count({ where: { email: GOOD.email.replace('nora', 'nora-forged') } })).toBe(0);
  });

  test('probing links and signing up in a loop from one address are throttled', async () => {
    const prober = address();
    const real = await invite();
    // Opening a real link does not count against the address.
    for (let i = 0; i < INVITE_PROBE_POLICY.limit + 2; i++)
      expect((await page(`/invite/${real.code}`, prober)).status).toBe(200);
    for (let i = 0; i < INVITE_PROBE_POLICY.limit; i++)
      expect((await page(`/invite/inv_${String(i).padStart(24, 'A')}`, prober)).status).toBe(404);
    const refused = await page(`/invite/inv_${'B'.repeat(24)}`, prober);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await refused.text()).toContain('Too many attempts from your network.');
    // Another address is not affected.
    expect((await page(`/invite/inv_${'B'.repeat(24)}`, address())).status).toBe(404);

    const looper = address();
    for (let i = 0; i < SIGN_UP_POLICY.limit; i++) {
      const attempt = await post(
        `/invite/${(await invite()).code}`,
        { ...GOOD, password: 'short', confirmation: 'short' },
        looper,
      );
      expect(attempt.status).toBe(400);
    }
    const stopped = await post(
      `/invite/${(await invite()).code}`,
      { ...GOOD, email: 'loop@example.com', username: 'looper' },
      looper,
    );
    expect(stopped.status).toBe(429);
    expect(stopped.headers.get('retry-after')).not.toBeNull();
    expect(await t.app.db.prisma.user.count({ where: { email: 'loop@example.com' } })).toBe(0);
  });
});

describe('no dead ends', () => {
  const sections = (html: string) =>
    [...html.matchAll(/<nav class="sections"[\s\S]*?<\/nav>/g)].map((m) => m[0]).join('');

  test('a signed-in person in no organization is shown how to join', async () => {
    const ip = address();
    await createUser(t.app.db.prisma, {
      email: 'lone@example.com',
      name: 'Lone Person',
      username: 'lone',
      password: PASSWORD,
    });
    const lone = await t.signIn('lone@example.com');
    const home = await page('/', ip, lone);
    expect(home.status).toBe(200);
    const html = await home.text();
    expect(html).toContain('<a href="/join">Join an organization</a>');
    expect(html).toContain('ask one of its owners or admins for an invitation link');
    expect(await (await page('/join', ip, lone)).text()).toContain('Invitation link or code');
  });

  test('members are offered only the sections they can use; the others name whom to ask', async () => {
    const ip = address();
    const byRole = async (email: string) =>
      sections(await (await page('/orgs/acme', ip, await t.signIn(email))).text());
    const member = await byRole('mark@example.com');
    expect(member).toContain('>Team</a>');
    expect(member).not.toContain('API keys');
    expect(member).not.toContain('Webhooks');
    const manager = await byRole('maya@example.com');
    expect(manager).toContain('API keys');
    expect(manager).not.toContain('Webhooks');
    expect(await byRole('adam@example.com')).toContain('Webhooks');

    // Typed by hand, the pages still answer, and say whom to ask.
    const mark = await t.signIn('mark@example.com');
    expect(await (await page('/orgs/acme/settings/webhooks', ip, mark)).text()).toContain(
      'Only owners and admins manage webhooks: for one, ask the owner: Olivia Owner.',
    );
    expect(await (await page('/orgs/acme/settings/integrations', ip, mark)).text()).toContain(
      'Only owners, admins and managers can create keys: to get one, ask the owner: Olivia Owner.',
    );
  });
});

describe('invitation mails', () => {
  let mailing: TestApp;
  let sink: MailSink;
  beforeAll(async () => {
    sink = await startMailSink();
    mailing = await startTestApp({ mail: { smtpUrl: sink.url, from: 'workmgmt <no-reply@localhost>' } });
  });
  afterAll(async () => {
    await mailing?.close();
    await sink?.close();
  });

  test('an invitation with an email is mailed its link; an organization mails at most its hourly budget, then links are only shown', async () => {
    const create = (n: number) =>
      mailing.call('POST', '/api/invitations', {
        token: mailing.user('olivia').token,
        body: { role: 'member', email: `person${n}@example.com` },
      });
    const first = await (await create(0)).json();
    expect(first).toMatchObject({ email: 'person0@example.com', mailed: true });
    const mail = await sink.next();
    expect(mail.to).toEqual(['person0@example.com']);
    expect(mail.text).toContain(first.invite_url);
    // Revoking frees a pending place: without a budget, create-and-revoke would mail anyone in a loop.
    for (let n = 1; n < INVITATION_MAIL_POLICY.limit; n++) {
      const created = await (await create(n)).json();
      expect(created.mailed).toBe(true);
    }
    const over = await create(INVITATION_MAIL_POLICY.limit);
    expect(over.status).toBe(201);
    expect(await over.json()).toMatchObject({ mailed: false, invite_url: expect.stringMatching(/\/invite\/inv_/) });
    expect(sink.received).toHaveLength(INVITATION_MAIL_POLICY.limit);
    // Without an email nothing is mailed, and nothing is drawn.
    expect(
      await (
        await mailing.call('POST', '/api/invitations', {
          token: mailing.user('olivia').token,
          body: { role: 'viewer' },
        })
      ).json(),
    ).toMatchObject({ email: null, mailed: false });
  });
});
