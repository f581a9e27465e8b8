import { randomBytes } from 'node:crypto';
import { mintApiKey } from '../auth/api-keys.js';
import type { Role } from '../auth/principal.js';
import type { Db } from '../db/client.js';
import { addMember, createOrganization, createProject, createUser } from './operations.js';
import { UsageError } from './usage-error.js';

export interface DemoSeed {
  password: string;
  orgs: { id: string; name: string; slug: string; projects: { id: string; name: string; key: string }[] }[];
  users: { id: string; email: string; username: string; role: Role; org_id: string; token: string }[];
}

const ORGS = [
  {
    name: 'Acme Corp',
    slug: 'acme',
    projects: [
      { name: 'Website', key: 'WEB' },
      { name: 'Mobile App', key: 'MOB' },
    ],
  },
  { name: 'Globex', slug: 'globex', projects: [{ name: 'Research', key: 'RES' }] },
];

// Org A (acme) has one user per role; org B (globex) has its own owner; Mark is in both.
const PEOPLE: { username: string; name: string; memberships: [slug: string, role: Role][] }[] = [
  { username: 'olivia', name: 'Olivia Owner', memberships: [['acme', 'owner']] },
  { username: 'adam', name: 'Adam Admin', memberships: [['acme', 'admin']] },
  { username: 'maya', name: 'Maya Manager', memberships: [['acme', 'manager']] },
  {
    username: 'mark',
    name: 'Mark Member',
    memberships: [
      ['acme', 'member'],
      ['globex', 'member'],
    ],
  },
  { username: 'victor', name: 'Victor Viewer', memberships: [['acme', 'viewer']] },
  { username: 'bella', name: 'Bella Boss', memberships: [['globex', 'owner']] },
];

const ISSUES: { title: string; status: string; priority: string }[] = [
  { title: 'Set up continuous integration', status: 'Done', priority: 'high' },
  { title: 'Write the onboarding guide', status: 'In Progress', priority: 'medium' },
  { title: 'Fix the login redirect loop', status: 'Todo', priority: 'urgent' },
  { title: 'Plan the next quarter', status: 'Backlog', priority: 'low' },
];

/**
 * Fills an empty database with a small, realistic demo: two organizations with projects and
 * issues, one user per role in the first, and an API key for every membership.
 */
export async function seedDemo(db: Db, options: { password?: string } = {}): Promise<DemoSeed> {
  if (await db.organization.findFirst({ where: { slug: { in: ORGS.map((o) => o.slug) } } })) {
    throw new UsageError('The database already holds the demo organizations (acme, globex); seed an empty database.');
  }
  const password = options.password ?? randomBytes(12).toString('base64url');
  const orgs: DemoSeed['orgs'] = [];
  for (const spec of ORGS) {
    const org = await createOrganization(db, { name: spec.name, slug: spec.slug, isPublic: true });
    const projects = [];
    for (const p of spec.projects) projects.push(await createProject(db, { orgId: org.id, ...p }));
    orgs.push({
      id: org.id,
      name: org.name,
      slug: org.slug,
      projects: projects.map(({ id, name, key }) => ({ id, name, key })),
    });
  }
  const orgBySlug = new Map(orgs.map((o) => [o.slug, o]));

  const users: DemoSeed['users'] = [];
  const created = await Promise.all(
    PEOPLE.map((person) =>
      createUser(db, {
        email: `${person.username}@example.com`,
        name: person.name,
        username: person.username,
        password,
      }),
    ),
  );
  for (const [i, person] of PEOPLE.entries()) {
    const user = created[i]!;
    for (const [slug, role] of person.memberships) {
      const org = orgBySlug.get(slug)!;
      await addMember(db, { orgId: org.id, userId: user.id, role });
      const { token } = await mintApiKey(db, { userId: user.id, orgId: org.id, name: 'demo key' });
      users.push({ id: user.id, email: user.email, username: user.username, role, org_id: org.id, token });
    }
  }

  for (const org of orgs) {
    const assignees = users.filter((u) => u.org_id === org.id);
    for (const project of org.projects) {
      for (const [n, issue] of ISSUES.entries()) {
        await db.issue.create({
          data: {
            orgId: org.id,
            projectId: project.id,
            number: n + 1,
            ...issue,
            description: `Demo issue ${n + 1} of ${project.name}.`,
            assigneeId: assignees[n % assignees.length]!.id,
          },
        });
      }
      await db.project.update({ where: { id: project.id }, data: { issueCount: ISSUES.length } });
    }
  }
  return { password, orgs, users };
}
