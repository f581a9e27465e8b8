import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { addMember, createOrganization, createProject } from '../src/cli/operations.js';
import { ORIGIN, startTestApp, type TestApp } from './support/app.js';

/**
 * What a team sees on its first day, as HTML: the board's one menu per card, the palette's
 * commands for each role, the first-issue prompt of an organization without issues, and the
 * webhook form's hint, which says the server's URL rule. (The browser suite, test/browser/
 * first-day.test.ts, drives the same pages in Chromium.)
 */

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
  const db = t.app.db.prisma;
  const bella = t.user('bella', 'globex');
  // One organization with a project but no issue, one with neither; Bella owns both, Mark (a member elsewhere) views the first.
  const fresh = await createOrganization(db, { name: 'Fresh Start', slug: 'fresh' });
  await createProject(db, { orgId: fresh.id, name: 'Mill', key: 'MILL' });
  await addMember(db, { orgId: fresh.id, userId: bella.id, role: 'owner' });
  await addMember(db, { orgId: fresh.id, userId: t.user('mark').id, role: 'viewer' });
  const bare = await createOrganization(db, { name: 'Bare', slug: 'bare' });
  await addMember(db, { orgId: bare.id, userId: bella.id, role: 'owner' });
});
afterAll(() => t.close());

const html = async (path: string, cookie: string) => {
  const response = await t.app.fetch(new Request(`${ORIGIN}${path}`, { headers: { accept: 'text/html', cookie } }));
  expect(response.status, path).toBe(200);
  return response.text();
};
const count = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).length;
/** The palette's commands on a page, by label. */
const commands = (page: string) =>
  [...page.matchAll(/<li role="option" class="command" data-href="([^"]*)"[^>]*>([^<]*)<\/li>/g)].map((m) => m[2]);

describe('the board', () => {
  test('one "Move to…" menu per card, listing the other statuses as buttons of a form that posts', async () => {
    const page = await html('/orgs/acme/board', await t.signIn('mark@example.com'));
    const cards = count(page, /class="card issue-card"/g);
    expect(cards).toBeGreaterThan(0);
    expect(count(page, /<details class="move-menu">/g)).toBe(cards);
    expect(count(page, /<form method="post" action="\/orgs\/acme\/issues\/[A-Z]+-\d+\/status" class="move">/g)).toBe(
      cards,
    );
    // Six statuses per menu, the card's own hidden; and six in the bar that moves the selected cards.
    expect(count(page, /name="status" value="[^"]+" class="small">[^<]+<span class="visually-hidden"> \(move /g)).toBe(
      cards * 5,
    );
    expect(count(page, /name="status" value="[^"]+" class="small">[^<]+<\/button>/g)).toBe(6);
    expect(count(page, /name="status" value="[^"]+" class="small" hidden>/g)).toBe(cards);
    expect(count(page, /<section class="column"/g)).toBe(6);
    expect(page).toContain('data-status="Canceled"');
    expect(page).toContain('<main id="main" tabindex="-1" class="wide">');
  });
});

describe('the palette’s commands follow the role', () => {
  test('viewer, member, manager, admin', async () => {
    const viewer = commands(await html('/orgs/acme', await t.signIn('victor@example.com')));
    expect(viewer).toEqual(['Go to dashboard', 'Go to issues', 'Go to board', 'Go to projects', 'Go to team']);
    const member = commands(await html('/orgs/acme', await t.signIn('mark@example.com')));
    // Mark is in two organizations: he can switch.
    expect(member).toEqual([
      'Create issue',
      'Go to dashboard',
      'Go to issues',
      'Go to board',
      'Go to projects',
      'Go to team',
      'Switch organization',
    ]);
    const manager = commands(await html('/orgs/acme', await t.signIn('maya@example.com')));
    expect(manager).toEqual(expect.arrayContaining(['Create issue', 'Create project', 'API keys']));
    expect(manager).not.toContain('Webhooks');
    const admin = commands(await html('/orgs/acme', await t.signIn('adam@example.com')));
    expect(admin).toEqual(expect.arrayContaining(['Invite people', 'API keys', 'Webhooks']));
  });
});

describe('an organization without issues', () => {
  test('the dashboard and the list offer to create the first issue; a viewer is told who creates them', async () => {
    const bella = await t.signIn('bella@example.com');
    const dashboard = await html('/orgs/fresh', bella);
    expect(dashboard).toContain('Create your first issue');
    expect(dashboard).toContain('href="/orgs/fresh/issues#new-issue">Create issue</a>');
    expect(dashboard).not.toContain('<canvas');
    const list = await html('/orgs/fresh/issues', bella);
    expect(list).toContain('Create your first issue');
    expect(list).toMatch(/<details class="card create" id="new-issue" open>/);
    expect(list).not.toContain('No issue matches');
    const viewer = await html('/orgs/fresh', await t.signIn('mark@example.com'));
    expect(viewer).toContain('Create your first issue');
    expect(viewer).not.toContain('>Create issue</a>');
    expect(viewer).toContain('Members create issues');
  });

  test('without a project, the prompt leads to the projects page first', async () => {
    const page = await html('/orgs/bare/issues', await t.signIn('bella@example.com'));
    expect(page).toContain('<a href="/orgs/bare/projects">create a project</a> first');
  });

  test('an organization with issues: a filter without match says so and offers to clear the filters', async () => {
    const page = await html('/orgs/acme/issues?q=nothing-like-this', await t.signIn('maya@example.com'));
    expect(page).not.toContain('Create your first issue');
    expect(page).toContain('No issue matches these filters. <a href="/orgs/acme/issues">Clear the filters</a>');
    const dashboard = await html('/orgs/acme', await t.signIn('maya@example.com'));
    expect(dashboard).not.toContain('Create your first issue');
    expect(dashboard).toContain('<canvas');
  });
});

describe('the webhook form’s URL hint says the server’s rule', () => {
  test('public https by default', async () => {
    const page = await html('/orgs/acme/settings/webhooks', await t.signIn('adam@example.com'));
    expect(page).toContain('<p class="hint" id="hook-url-hint">https, on a public address.</p>');
  });

  test('with WEBHOOKS_ALLOW_PRIVATE_NETWORKS, private addresses and http', async () => {
    const open = await startTestApp({
      webhooks: {
        allowPrivateNetworks: true,
        secretKey: 'test key for sealing webhook secrets, 32+ chars',
        worker: false,
        leaseSeconds: 60,
      },
    });
    try {
      const cookie = await open.signIn('adam@example.com');
      const response = await open.app.fetch(
        new Request(`${ORIGIN}/orgs/acme/settings/webhooks`, { headers: { accept: 'text/html', cookie } }),
      );
      const page = await response.text();
      expect(page).toContain(
        '<p class="hint" id="hook-url-hint">https or http; private and local addresses are allowed on this server.</p>',
      );
      expect(page).not.toContain('on a public address');
    } finally {
      await open.close();
    }
  });
});
