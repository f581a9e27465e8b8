import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { changeIssueLabels, ISSUE_LABELS_MAX } from '../src/schema/labels/issue-labels.js';
import { KeptOrgLabels } from '../src/schema/labels/org-labels.js';
import { startTestApp, type TestApp } from './support/app.js';
import { dbKind } from './support/database.js';
import { expectProblem, fieldErrors } from './support/problem.js';

/**
 * Labels through the real stack: the organization's labels (managers and above write them), an
 * issue's labels (added, replaced, taken off; at most 20), the issue JSON and history that show
 * them, the list filter `label=` on REST and GraphQL and the aggregates, and the change of many
 * issues in one transaction that bulk changes call.
 */

let t: TestApp;
let manager: string;
let member: string;
let viewer: string;
beforeAll(async () => {
  t = await startTestApp();
  manager = t.user('maya').token;
  member = t.user('mark').token;
  viewer = t.user('victor').token;
});
afterAll(() => t.close());

let seq = 0;
const unique = (base: string) => `${base}-${++seq}`;

async function newLabel(name = unique('label'), color = '#AABBCC', token = manager) {
  const response = await t.call('POST', '/api/labels', { token, body: { name, color } });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; name: string; color: string };
}

async function newIssue(title = unique('issue')) {
  const projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
  const response = await t.call('POST', '/api/issues', { token: member, body: { project_id: projectId, title } });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string; labels: unknown[] };
}

const labelsOf = async (issue: string) =>
  ((await (await t.call('GET', `/api/issues/${issue}`, { token: viewer })).json()) as { labels: { name: string }[] })
    .labels;

describe('the labels of an organization', () => {
  test('a manager creates one (color stored lowercase); its Location, GET by id and by name in any case', async () => {
    const name = unique('Bug');
    const response = await t.call('POST', '/api/labels', {
      token: manager,
      body: { name, color: '#D73A4A', description: 'Broken' },
    });
    expect(response.status).toBe(201);
    const label = await response.json();
    expect(label).toEqual({
      id: expect.any(String),
      name,
      color: '#d73a4a',
      description: 'Broken',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(response.headers.get('location')).toMatch(new RegExp(`/api/labels/${label.id}$`));
    for (const ref of [label.id, name.toUpperCase()]) {
      const got = await t.call('GET', `/api/labels/${encodeURIComponent(ref)}`, { token: viewer });
      expect(got.status).toBe(200);
      expect(await got.json()).toEqual(label);
    }
  });

  test('names are unique whatever their case: a second one is a 409, on create and on rename', async () => {
    const name = unique('Duplicate');
    await newLabel(name);
    await expectProblem(
      await t.call('POST', '/api/labels', { token: manager, body: { name: name.toLowerCase(), color: '#000000' } }),
      409,
      'conflict',
    );
    const other = await newLabel();
    await expectProblem(
      await t.call('PATCH', `/api/labels/${other.id}`, { token: manager, body: { name: name.toUpperCase() } }),
      409,
      'conflict',
    );
  });

  test('every mistake of the input at once', async () => {
    const errors = await fieldErrors(
      await t.call('POST', '/api/labels', {
        token: manager,
        body: { name: 'a,b', color: 'red', description: 'x'.repeat(201), extra: 1 },
      }),
    );
    expect(errors).toEqual(
      expect.arrayContaining([
        { field: 'name', message: 'must not contain a comma' },
        { field: 'color', message: 'must be a color written #rrggbb' },
        { field: 'description', message: 'must be at most 200 characters' },
        { field: 'extra', message: 'is not a known field' },
      ]),
    );
  });

  test('members and viewers read them but do not write them; another organization does not see them', async () => {
    const label = await newLabel();
    await expectProblem(
      await t.call('POST', '/api/labels', { token: member, body: { name: unique('x'), color: '#000000' } }),
      403,
      'forbidden',
    );
    await expectProblem(
      await t.call('PATCH', `/api/labels/${label.id}`, { token: viewer, body: { color: '#000000' } }),
      403,
      'forbidden',
    );
    const list = await (await t.call('GET', '/api/labels', { token: viewer })).json();
    expect(list.map((l: { id: string }) => l.id)).toContain(label.id);
    const names = list.map((l: { name: string }) => l.name.toLowerCase());
    expect(names).toEqual([...names].sort());
    const stranger = t.user('bella', 'globex').token;
    expect(await (await t.call('GET', '/api/labels', { token: stranger })).json()).toEqual([]);
    await expectProblem(await t.call('GET', `/api/labels/${label.id}`, { token: stranger }), 404, 'not_found');
    await expectProblem(await t.call('DELETE', `/api/labels/${label.id}`, { token: stranger }), 404, 'not_found');
  });

  test('a rename and a deletion show on the issues that carry the label', async () => {
    const label = await newLabel();
    const issue = await newIssue();
    expect(
      (await t.call('POST', `/api/issues/${issue.id}/labels`, { token: member, body: { labels: [label.id] } })).status,
    ).toBe(200);
    const renamed = unique('renamed');
    expect((await t.call('PATCH', `/api/labels/${label.id}`, { token: manager, body: { name: renamed } })).status).toBe(
      200,
    );
    expect((await labelsOf(issue.id)).map((l) => l.name)).toEqual([renamed]);
    expect((await t.call('DELETE', `/api/labels/${label.id}`, { token: manager })).status).toBe(204);
    expect(await labelsOf(issue.id)).toEqual([]);
  });
});

describe('the labels of an issue', () => {
  test('POST adds (by id or name, any case), PUT replaces, DELETE takes one off; each answers the labels now', async () => {
    const [a, b, c] = [await newLabel(unique('a')), await newLabel(unique('b')), await newLabel(unique('c'))];
    const issue = await newIssue();
    expect(issue.labels).toEqual([]);
    const summary = (l: typeof a) => ({ id: l.id, name: l.name, color: l.color });

    let response = await t.call('POST', `/api/issues/${issue.key}/labels`, {
      token: member,
      body: { labels: [b.name.toUpperCase(), a.id, a.name] },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([summary(a), summary(b)]);
    expect(await labelsOf(issue.id)).toEqual([summary(a), summary(b)]);

    response = await t.call('PUT', `/api/issues/${issue.id}/labels`, { token: member, body: { labels: [c.name] } });
    expect(await response.json()).toEqual([summary(c)]);

    response = await t.call('DELETE', `/api/issues/${issue.id}/labels/${encodeURIComponent(c.name)}`, {
      token: member,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual([]);

    const history = await (await t.call('GET', `/api/issues/${issue.id}/history`, { token: viewer })).json();
    expect(history.slice(0, 3).map((e: { changes: unknown[] }) => e.changes)).toEqual([
      [{ field: 'labels', old: c.name, new: null }],
      [{ field: 'labels', old: `${a.name}, ${b.name}`, new: c.name }],
      [{ field: 'labels', old: null, new: `${a.name}, ${b.name}` }],
    ]);
  });

  test('labels no label of the organization names are each a field error; a viewer may not change them', async () => {
    const issue = await newIssue();
    const theirs = await (
      await t.call('POST', '/api/labels', {
        token: t.user('bella', 'globex').token,
        body: { name: unique('globex'), color: '#123456' },
      })
    ).json();
    const errors = await fieldErrors(
      await t.call('POST', `/api/issues/${issue.id}/labels`, {
        token: member,
        body: { labels: ['no-such-label', theirs.id, theirs.name] },
      }),
    );
    expect(errors!.map((e) => e.field)).toEqual(['labels.0', 'labels.1', 'labels.2']);
    await expectProblem(
      await t.call('PUT', `/api/issues/${issue.id}/labels`, { token: viewer, body: { labels: [] } }),
      403,
      'forbidden',
    );
  });

  test(`an issue carries at most ${ISSUE_LABELS_MAX} labels: the change that would pass it is refused whole`, async () => {
    const labels: { id: string; name: string; color: string }[] = [];
    for (let i = 0; i < ISSUE_LABELS_MAX + 1; i++) labels.push(await newLabel());
    const issue = await newIssue();
    const first = labels.slice(0, ISSUE_LABELS_MAX).map((l) => l.id);
    expect(
      (await t.call('PUT', `/api/issues/${issue.id}/labels`, { token: member, body: { labels: first } })).status,
    ).toBe(200);
    const refused = await expectProblem(
      await t.call('POST', `/api/issues/${issue.id}/labels`, {
        token: member,
        body: { labels: [labels[ISSUE_LABELS_MAX]!.id] },
      }),
      409,
      'conflict',
    );
    expect(refused.detail).toContain(`at most ${ISSUE_LABELS_MAX}`);
    expect(await labelsOf(issue.id)).toHaveLength(ISSUE_LABELS_MAX);
    const tooMany = await fieldErrors(
      await t.call('PUT', `/api/issues/${issue.id}/labels`, {
        token: member,
        body: { labels: labels.map((l) => l.id) },
      }),
    );
    expect(tooMany).toEqual([{ field: 'labels', message: `must name at most ${ISSUE_LABELS_MAX} labels` }]);
  });

  test('changeIssueLabels changes many issues in the caller transaction, and rolls back whole past the bound', async () => {
    const [x, y] = [await newLabel(), await newLabel()];
    const one = await newIssue();
    const two = await newIssue();
    const orgId = t.org('acme').id;
    const { prisma } = t.app.db;
    const changed = await prisma.$transaction((tx) =>
      changeIssueLabels(tx, orgId, [one.id, two.id], { add: [x.id, y.id] }),
    );
    expect([...changed.changed].sort()).toEqual([one.id, two.id].sort());
    expect(
      changed.labels
        .get(one.id)!
        .map((entry) => entry.label.id)
        .sort(),
    ).toEqual([x.id, y.id].sort());
    await prisma.$transaction((tx) => changeIssueLabels(tx, orgId, [one.id, two.id], { remove: [x.id] }));
    expect((await labelsOf(two.id)).map((l) => l.name)).toEqual([y.name]);

    const many: string[] = [];
    for (let i = 0; i < ISSUE_LABELS_MAX; i++) many.push((await newLabel()).id);
    await expect(
      prisma.$transaction((tx) => changeIssueLabels(tx, orgId, [one.id, two.id], { add: many })),
    ).rejects.toMatchObject({ code: 'CONFLICT', extensions: { limit: ISSUE_LABELS_MAX } });
    expect((await labelsOf(one.id)).map((l) => l.name)).toEqual([y.name]);
    // Another organization's issue is not found, and nothing changes.
    const globexOrg = t.org('globex').id;
    await expect(
      prisma.$transaction((tx) => changeIssueLabels(tx, globexOrg, [one.id], { add: [] })),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe("issues.label_ids, the copy of an issue's labels a page of issues reads", () => {
  /** Each issue of acme whose copy differs from its issue_labels rows, with both. */
  async function copiesOutOfStep() {
    const prisma = t.app.db.prisma;
    const issues = await prisma.issue.findMany({
      where: { orgId: t.org('acme').id },
      select: { id: true, labelIds: true, labels: { select: { labelId: true } } },
    });
    return issues
      .map((issue) => ({
        id: issue.id,
        copy: [...(issue.labelIds ?? [])].sort(),
        rows: issue.labels.map((row) => row.labelId).sort(),
      }))
      .filter((issue) => JSON.stringify(issue.copy) !== JSON.stringify(issue.rows));
  }

  test('follows every write of issue_labels: add, replace, take off, bulk, a label deleted, rows written directly', async () => {
    const [a, b, c] = [await newLabel(), await newLabel(), await newLabel()];
    const [one, two] = [await newIssue(), await newIssue()];
    const steps: [string, () => Promise<unknown>][] = [
      ['add', () => t.call('POST', `/api/issues/${one.id}/labels`, { token: member, body: { labels: [a.id, b.id] } })],
      [
        'replace',
        () => t.call('PUT', `/api/issues/${two.id}/labels`, { token: member, body: { labels: [c.id, a.id] } }),
      ],
      ['take off', () => t.call('DELETE', `/api/issues/${one.id}/labels/${a.id}`, { token: member })],
      [
        'bulk',
        () =>
          t.call('POST', '/api/issues/bulk', {
            token: member,
            body: { ids: [one.id, two.id], change: { labels: { add: [c.id], remove: [b.id] } } },
          }),
      ],
      ['label deleted', () => t.call('DELETE', `/api/labels/${c.id}`, { token: manager })],
      [
        'rows written directly',
        () =>
          t.app.db.prisma.issueLabel.createMany({
            data: [one.id, two.id].map((issueId) => ({ orgId: t.org('acme').id, issueId, labelId: b.id })),
          }),
      ],
      ['rows deleted directly', () => t.app.db.prisma.issueLabel.deleteMany({ where: { issueId: two.id } })],
    ];
    for (const [step, write] of steps) {
      const answer = await write();
      if (answer instanceof Response) expect(answer.status, step).toBeLessThan(300);
      expect(await copiesOutOfStep(), step).toEqual([]);
    }
    const listed = (await (await t.call('GET', '/api/issues?limit=100', { token: viewer })).json()) as {
      id: string;
      labels: { id: string }[];
    }[];
    expect(listed.find((issue) => issue.id === one.id)!.labels.map((label) => label.id)).toEqual([b.id]);
    expect(listed.find((issue) => issue.id === two.id)!.labels).toEqual([]);
  });
});

describe('the label filter', () => {
  test('label=a,b lists the issues carrying any of them (any case), on REST, GraphQL and the aggregates', async () => {
    const [red, blue, green] = [await newLabel(unique('red')), await newLabel(unique('blue')), await newLabel()];
    const both = await newIssue();
    const onlyBlue = await newIssue();
    const onlyGreen = await newIssue();
    await t.call('PUT', `/api/issues/${both.id}/labels`, { token: member, body: { labels: [red.id, blue.id] } });
    await t.call('PUT', `/api/issues/${onlyBlue.id}/labels`, { token: member, body: { labels: [blue.id] } });
    await t.call('PUT', `/api/issues/${onlyGreen.id}/labels`, { token: member, body: { labels: [green.id] } });

    const before = t.app.db.queries.count;
    const rest = await t.call('GET', `/api/issues?label=${red.name.toUpperCase()},${blue.name}`, { token: viewer });
    expect(rest.status).toBe(200);
    // The page, then the labels its issues carry: two statements whatever its size, none per issue.
    expect(t.app.db.queries.count - before).toBe(2);
    const listed = (await rest.json()) as { id: string; labels: { name: string }[] }[];
    expect(listed.map((i) => i.id).sort()).toEqual([both.id, onlyBlue.id].sort());
    expect(listed.find((i) => i.id === both.id)!.labels.map((l) => l.name)).toEqual([blue.name, red.name]);

    const graphql = await t.call('POST', '/api/graphql', {
      token: viewer,
      body: {
        query: `query($names: [String!]) {
          issues(filter: { label: $names }) { edges { node { id labels { name color } } } }
          issueAggregates(filter: { label: $names }) { total }
          project(id: "WEB") { issues(first: 100) { edges { node { id labels { name } } } } }
        }`,
        variables: { names: [red.name] },
      },
    });
    const { data, errors } = await graphql.json();
    expect(errors).toBeUndefined();
    expect(data.issues.edges).toEqual([
      {
        node: {
          id: both.id,
          labels: [
            { name: blue.name, color: '#aabbcc' },
            { name: red.name, color: '#aabbcc' },
          ],
        },
      },
    ]);
    expect(data.issueAggregates.total).toBe(1);
    // A project's issues (their own statement) load the labels too.
    const nodes = data.project.issues.edges.map((e: { node: { id: string; labels: { name: string }[] } }) => e.node);
    expect(nodes.find((n: { id: string }) => n.id === both.id).labels).toEqual([
      { name: blue.name },
      { name: red.name },
    ]);
  });
});

describe('the labels a page of issues shows: kept in memory only while they are current', () => {
  const acmeId = () => t.org('acme').id;
  const version = async () =>
    (await t.app.db.prisma.organization.findUniqueOrThrow({ where: { id: acmeId() } })).labelsVersion;
  /** The labels the list shows on `issue`, read through REST and through GraphQL. */
  async function shown(issue: string) {
    const projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
    const rest = (await (
      await t.call('GET', `/api/issues?project_id=${projectId}&limit=100`, { token: viewer })
    ).json()) as { id: string; labels: unknown[] }[];
    const graphql = await (
      await t.call('POST', '/api/graphql', {
        token: viewer,
        body: { query: '{ issues(first: 100) { edges { node { id labels { id name color } } } } }' },
      })
    ).json();
    const node = graphql.data.issues.edges.find((e: { node: { id: string } }) => e.node.id === issue)?.node;
    const fromRest = rest.find((row) => row.id === issue)?.labels;
    expect(node?.labels, 'GraphQL and REST show the same labels').toEqual(fromRest);
    return fromRest;
  }

  test('writes by another instance (straight to the database) show on the next page: rename, recolor, new, deleted', async () => {
    const issue = await newIssue();
    const label = await newLabel(unique('kept'));
    await t.call('POST', `/api/issues/${issue.id}/labels`, { token: member, body: { labels: [label.id] } });
    expect(await shown(issue.id)).toEqual([{ id: label.id, name: label.name, color: '#aabbcc' }]);
    // Read again: the kept labels answer, and they are the same.
    expect(await shown(issue.id)).toEqual([{ id: label.id, name: label.name, color: '#aabbcc' }]);

    const db = t.app.db.prisma;
    const renamed = unique('Renamed');
    let before = await version();
    await db.$executeRaw`UPDATE labels SET name = ${renamed}, name_key = lower(${renamed}), color = '#010203' WHERE id = ${label.id}::uuid`;
    expect(await version()).toBeGreaterThan(before);
    expect(await shown(issue.id)).toEqual([{ id: label.id, name: renamed, color: '#010203' }]);

    // A label created and attached by someone else, sorted by name before the first.
    before = await version();
    const added = await db.label.create({
      data: { orgId: acmeId(), name: 'A-first', nameKey: unique('a-first'), color: '#0000ff' },
    });
    await db.issueLabel.create({ data: { orgId: acmeId(), issueId: issue.id, labelId: added.id } });
    expect(await version()).toBeGreaterThan(before);
    expect(await shown(issue.id)).toEqual([
      { id: added.id, name: 'A-first', color: '#0000ff' },
      { id: label.id, name: renamed, color: '#010203' },
    ]);

    before = await version();
    await db.$executeRaw`DELETE FROM labels WHERE id = ${added.id}::uuid`;
    expect(await version()).toBeGreaterThan(before);
    expect(await shown(issue.id)).toEqual([{ id: label.id, name: renamed, color: '#010203' }]);

    // Through the API too.
    await t.call('PATCH', `/api/labels/${label.id}`, { token: manager, body: { color: '#445566' } });
    expect(await shown(issue.id)).toEqual([{ id: label.id, name: renamed, color: '#445566' }]);
  });

  test('a page reads the labels once per change of them, and not at all when its issues carry none', async () => {
    const issue = await newIssue();
    const label = await newLabel(unique('counted'));
    await t.call('POST', `/api/issues/${issue.id}/labels`, { token: member, body: { labels: [label.id] } });
    const projectId = t.org('acme').projects.find((p) => p.key === 'WEB')!.id;
    const statements = async (path: string) => {
      const before = t.app.db.queries.count;
      expect((await t.call('GET', path, { token: viewer })).status).toBe(200);
      return t.app.db.queries.count - before;
    };
    const page = `/api/issues?project_id=${projectId}&limit=100`;
    await statements(page);
    const warm = await statements(page);
    await t.app.db.prisma.$executeRaw`UPDATE labels SET color = '#0a0b0c' WHERE id = ${label.id}::uuid`;
    expect(await statements(page)).toBe(warm + 1);
    expect(await statements(page)).toBe(warm);
    // A project whose one issue carries no label: its page needs no label statement, even after a change.
    const created = await t.call('POST', '/api/projects', { token: manager, body: { name: 'Bare', key: 'BARE' } });
    expect(created.status).toBe(201);
    const bare = (await created.json()) as { id: string };
    const issueCreated = await t.call('POST', '/api/issues', {
      token: member,
      body: { project_id: bare.id, title: 'no labels' },
    });
    expect(issueCreated.status).toBe(201);
    await t.app.db.prisma.$executeRaw`UPDATE labels SET color = '#0d0e0f' WHERE id = ${label.id}::uuid`;
    expect(await statements(`/api/issues?project_id=${bare.id}&limit=100`)).toBe(warm);
  });

  test("an organization's labels do not stop its deletion (the version's trigger finds the row gone)", async () => {
    const db = t.app.db.prisma;
    const org = await db.organization.create({ data: { name: 'Brief', slug: unique('brief') } });
    await db.label.createMany({
      data: [1, 2].map((n) => ({ orgId: org.id, name: `l${n}`, nameKey: `l${n}`, color: '#000000' })),
    });
    expect((await db.organization.findUniqueOrThrow({ where: { id: org.id } })).labelsVersion).toBe(1);
    await db.organization.delete({ where: { id: org.id } });
    expect(await db.label.count({ where: { orgId: org.id } })).toBe(0);
  });

  test('what is kept is bounded by labels over all organizations; the one read longest ago goes first', () => {
    const labels = (n: number, version = 1) => {
      const entries = Array.from({ length: n }, (_, i) => ({
        label: { id: `l${i}`, name: `l${i}`, color: '#000000' },
      }));
      return { version, entries, places: new Map(entries.map((e, i) => [e.label.id, i])) };
    };
    const kept = new KeptOrgLabels(10);
    kept.set('a', labels(4));
    kept.set('b', labels(4));
    expect(kept.get('a', 1)).toBeDefined(); // a is now the most recent
    expect(kept.get('a', 2)).toBeUndefined(); // another version: not an answer
    kept.set('c', labels(4)); // 12 > 10: b goes
    expect(kept.get('b', 1)).toBeUndefined();
    expect(kept.size).toEqual({ organizations: 2, labels: 8 });
    kept.set('c', labels(2, 2)); // replaced, not added
    expect(kept.size).toEqual({ organizations: 2, labels: 6 });
    kept.set('d', labels(30)); // larger than the bound: kept alone
    expect(kept.size).toEqual({ organizations: 1, labels: 30 });
  });
});

describe.runIf(dbKind === 'postgres')('a label deleted while it is being added', () => {
  test('the addition waits for the delete and answers 404, not a foreign-key 500', async () => {
    const label = await newLabel(unique('doomed'));
    const issue = await newIssue();
    const db = t.app.db.prisma;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let deleted!: () => void;
    const isDeleted = new Promise<void>((resolve) => (deleted = resolve));
    // Another transaction deletes the label and has not committed yet.
    const deleting = db.$transaction(
      async (tx) => {
        await tx.$executeRaw`DELETE FROM labels WHERE id = ${label.id}::uuid`;
        deleted();
        await released;
      },
      { timeout: 30_000 },
    );
    await isDeleted;
    const adding = t.call('POST', `/api/issues/${issue.id}/labels`, { token: member, body: { labels: [label.id] } });
    // The addition reached the deleted row and waits for its lock.
    for (;;) {
      const [row] = await db.$queryRaw<{ waiting: number }[]>`
        SELECT count(*)::int AS waiting FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (row!.waiting > 0) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    release();
    await deleting;
    await expectProblem(await adding, 404, 'not_found');
    expect(await labelsOf(issue.id)).toEqual([]);
  });
});
