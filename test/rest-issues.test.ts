import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ISSUE_PRIORITIES, ISSUE_STATUSES } from '../src/schema/issues/workflow.js';
import { startTestApp, type TestApp } from './support/app.js';
import { expectProblem } from './support/problem.js';

let t: TestApp;
let token: string;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  token = t.user('mark').token;
  projectId = t.org('acme').projects[0]!.id;
});
afterAll(() => t.close());

const create = (body: unknown, as = token) => t.call('POST', '/api/issues', { token: as, body });

describe('POST /api/issues', () => {
  test('201 with the created issue, field names as the spec writes them', async () => {
    const response = await create({
      project_id: projectId,
      title: 'Ship it',
      status: 'In Progress',
      priority: 'high',
      description: 'Soon.',
    });
    expect(response.status).toBe(201);
    const issue = await response.json();
    expect(issue).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      key: expect.stringMatching(/^WEB-\d+$/),
      project_id: projectId,
      number: expect.any(Number),
      title: 'Ship it',
      status: 'In Progress',
      priority: 'high',
      description: 'Soon.',
      assignee_id: null,
      labels: [],
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
    });
    expect(issue.key).toBe(`WEB-${issue.number}`);
    expect(Math.abs(Date.parse(issue.created_at) - Date.now())).toBeLessThan(60_000);
    expect(response.headers.get('location')).toBe(`http://localhost:4000/api/issues/${issue.id}`);
    const listed = await (await t.call('GET', `/api/issues?project_id=${projectId}`, { token })).json();
    expect(listed[0]).toEqual(issue);
  });

  test('status and priority default to Backlog and none; every documented value is accepted', async () => {
    expect(await (await create({ project_id: projectId, title: 'Defaults' })).json()).toMatchObject({
      status: 'Backlog',
      priority: 'none',
    });
    for (const status of ISSUE_STATUSES)
      expect((await create({ project_id: projectId, title: status, status })).status).toBe(201);
    for (const priority of ISSUE_PRIORITIES)
      expect((await create({ project_id: projectId, title: priority, priority })).status).toBe(201);
  });

  test('an unknown or wrongly-cased status or priority is a 400 naming the allowed values', async () => {
    for (const [field, value] of [
      ['status', 'Blocked'],
      ['status', 'backlog'],
      ['priority', 'High'],
      ['priority', 'p1'],
    ]) {
      const body = await expectProblem(
        await create({ project_id: projectId, title: 'x', [field!]: value }),
        400,
        'validation_failed',
      );
      const allowed = field === 'status' ? ISSUE_STATUSES : ISSUE_PRIORITIES;
      expect(body.errors).toEqual([{ field, message: `must be one of: ${allowed.join(', ')}` }]);
    }
  });

  test('validation: missing, blank or overlong title, project_id not a UUID, wrong types, unknown fields', async () => {
    const cases: [unknown, { field: string; message: RegExp }[]][] = [
      [{ project_id: projectId }, [{ field: 'title', message: /required/ }]],
      [{ project_id: projectId, title: '   ' }, [{ field: 'title', message: /empty/ }]],
      [{ project_id: projectId, title: 'x'.repeat(256) }, [{ field: 'title', message: /at most 255/ }]],
      [{ project_id: 'a b', title: 'x' }, [{ field: 'project_id', message: /UUID/ }]],
      [{ project_id: projectId, title: 42 }, [{ field: 'title', message: /must be a string/ }]],
      [
        { project_id: projectId, title: 'x', org_id: t.org('globex').id },
        [{ field: 'org_id', message: /not a known field/ }],
      ],
      [
        { title: 'x', id: 'mine' },
        [
          { field: 'project_id', message: /required/ },
          { field: 'id', message: /not a known field/ },
        ],
      ],
    ];
    for (const [body, expected] of cases) {
      const problem = await expectProblem(await create(body), 400, 'validation_failed');
      expect(problem.errors).toHaveLength(expected.length);
      for (const e of expected)
        expect(problem.errors).toContainEqual({ field: e.field, message: expect.stringMatching(e.message) });
    }
  });

  test('body problems: malformed JSON 400, not an object 400, wrong Content-Type 415', async () => {
    await expectProblem(await t.call('POST', '/api/issues', { token, body: '{"title": ' }), 400, 'malformed_json');
    await expectProblem(await t.call('POST', '/api/issues', { token, body: '[1,2]' }), 400, 'malformed_json');
    const wrongType = await t.call('POST', '/api/issues', {
      token,
      body: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    await expectProblem(wrongType, 415, 'unsupported_media_type');
  });

  test("another organization's project and a missing one get the same 404", async () => {
    const foreign = await expectProblem(
      await create({ project_id: t.org('globex').projects[0]!.id, title: 'x' }),
      404,
      'not_found',
    );
    const missing = await expectProblem(
      await create({ project_id: '00000000-0000-4000-8000-000000000000', title: 'x' }),
      404,
      'not_found',
    );
    // The same answer, but for the request's own id.
    expect({ ...foreign, request_id: null }).toEqual({ ...missing, request_id: null });
    expect(await t.app.db.prisma.issue.count({ where: { title: 'x', orgId: t.org('globex').id } })).toBe(0);
  });

  test('assignee must be a member of the organization', async () => {
    const bella = t.user('bella', 'globex');
    const problem = await expectProblem(
      await create({ project_id: projectId, title: 'x', assignee_id: bella.id }),
      400,
      'validation_failed',
    );
    expect(problem.errors).toEqual([{ field: 'assignee_id', message: 'must be a member of the organization' }]);
    const ok = await create({ project_id: projectId, title: 'Assigned', assignee_id: t.user('victor').id });
    expect((await ok.json()).assignee_id).toBe(t.user('victor').id);
  });

  test('a viewer cannot create; member, manager, admin and owner can', async () => {
    await expectProblem(await create({ project_id: projectId, title: 'x' }, t.user('victor').token), 403, 'forbidden');
    for (const who of ['mark', 'maya', 'adam', 'olivia']) {
      expect((await create({ project_id: projectId, title: `by ${who}` }, t.user(who).token)).status).toBe(201);
    }
  });

  test('a refused create takes no number, and a create is one statement (the issue, its history row and its outbox rows)', async () => {
    const project = await t.app.db.prisma.project.create({
      data: { orgId: t.org('acme').id, name: 'Numbers', key: 'NUM' },
    });
    const outsider = t.user('bella', 'globex').id; // a member of the other organization only
    const refused = await create({ project_id: project.id, title: 'x', assignee_id: outsider });
    expect((await expectProblem(refused, 400, 'validation_failed')).errors).toEqual([
      { field: 'assignee_id', message: 'must be a member of the organization' },
    ]);
    // The refused create above put the key in the PAT cache: what is counted is the create alone.
    const before = t.app.db.queries.count;
    const ok = await create({ project_id: project.id, title: 'first' });
    const statements = t.app.db.queries.count - before;
    expect(ok.status).toBe(201);
    const created = await ok.json();
    expect(created.number).toBe(1);
    expect(
      await t.app.db.prisma.project.findUniqueOrThrow({ where: { id: project.id }, select: { issueCount: true } }),
    ).toEqual({ issueCount: 1 });
    expect(statements).toBe(1);
    // That statement wrote the history row too; the refused create wrote none.
    expect(
      await t.app.db.prisma.event.findMany({
        where: { projectId: project.id },
        select: { type: true, subjectId: true },
      }),
    ).toEqual([{ type: 'issue.created', subjectId: created.id }]);
  });

  test('concurrent creates in one project are numbered without gaps or duplicates', async () => {
    const project = await t.app.db.prisma.project.create({
      data: { orgId: t.org('acme').id, name: 'Race', key: 'RACE' },
    });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => create({ project_id: project.id, title: `race ${i}` })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    const numbers = (await Promise.all(responses.map((r) => r.json()))).map((i) => i.number).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });
});

describe('GET /api/issues', () => {
  let pageProject: string;
  beforeAll(async () => {
    const project = await t.app.db.prisma.project.create({
      data: { orgId: t.org('acme').id, name: 'Paging', key: 'PAGE' },
    });
    pageProject = project.id;
    const base = Date.now() - 1_000_000;
    await t.app.db.prisma.issue.createMany({
      data: Array.from({ length: 230 }, (_, i) => ({
        orgId: project.orgId,
        projectId: project.id,
        number: i + 1,
        title: `Issue ${i + 1}`,
        status: 'Todo',
        priority: 'low',
        // Pairs share a timestamp so the id tie-break is exercised.
        createdAt: new Date(base + Math.floor(i / 2) * 1000),
      })),
    });
  });

  test('a bare array of issues with id, title, status, priority, assignee_id and the other fields', async () => {
    const response = await t.call('GET', `/api/issues?project_id=${projectId}`, { token });
    expect(response.status).toBe(200);
    const issues = await response.json();
    expect(Array.isArray(issues)).toBe(true);
    expect(Object.keys(issues[0]).sort()).toEqual(
      [
        'id',
        'key',
        'project_id',
        'number',
        'title',
        'status',
        'priority',
        'description',
        'assignee_id',
        'labels',
        'created_at',
        'updated_at',
      ].sort(),
    );
  });

  test('limit defaults to 50 and goes up to 100; out of range or not a number is a 400', async () => {
    const get = (query: string) => t.call('GET', `/api/issues?project_id=${pageProject}${query}`, { token });
    expect(await (await get('')).json()).toHaveLength(50);
    expect(await (await get('&limit=100')).json()).toHaveLength(100);
    expect(await (await get('&limit=1')).json()).toHaveLength(1);
    for (const bad of ['0', '101', 'ten', '1.5']) {
      const problem = await expectProblem(await get(`&limit=${bad}`), 400, 'validation_failed');
      expect(problem.errors?.[0]?.field).toBe('limit');
    }
    // Negative page sizes too, by the same rule and with the REST name (not GraphQL's `first`).
    const negative = await expectProblem(await get('&limit=-5'), 400, 'validation_failed');
    expect(negative.errors).toEqual([{ field: 'limit', message: 'must be between 1 and 100' }]);
  });

  test('the Link header walks every issue exactly once, newest first, and the last page has none', async () => {
    let url: string | null = `/api/issues?project_id=${pageProject}&limit=100`;
    const seen: { id: string; created_at: string }[] = [];
    let pages = 0;
    while (url) {
      const response = await t.call('GET', url, { token });
      expect(response.status).toBe(200);
      seen.push(...(await response.json()));
      pages++;
      const link = response.headers.get('link');
      const next = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : null;
      url = next ? next.replace('http://localhost:4000', '') : null;
      if (next) expect(new URL(next).searchParams.get('limit')).toBe('100');
    }
    expect(pages).toBe(3);
    expect(seen).toHaveLength(230);
    expect(new Set(seen.map((i) => i.id)).size).toBe(230);
    const times = seen.map((i) => Date.parse(i.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
  });

  test('a cursor that is not ours is a 400, not a 500', async () => {
    for (const cursor of ['garbage', Buffer.from('GPC:S:not-a-uuid').toString('base64'), '%%%']) {
      const response = await t.call(
        'GET',
        `/api/issues?project_id=${pageProject}&cursor=${encodeURIComponent(cursor)}`,
        { token },
      );
      expect(response.status).toBe(400);
    }
  });

  test('a foreign or missing project is 404, the same answer for both; project_id neither an id nor a key is 400', async () => {
    // One X-Request-Id for both: problem bodies echo it, and the bodies are compared whole.
    const headers = { 'x-request-id': 'foreign-or-missing' };
    const foreign = await t.call('GET', `/api/issues?project_id=${t.org('globex').projects[0]!.id}`, {
      token,
      headers,
    });
    const missing = await t.call('GET', '/api/issues?project_id=00000000-0000-4000-8000-000000000000', {
      token,
      headers,
    });
    expect(foreign.status).toBe(404);
    const missingBody = { ...(await missing.json()), request_id: null };
    expect({ ...(await foreign.json()), request_id: null }).toEqual(missingBody);
    // A foreign project's key answers like its id: the key is looked up in the caller's organization only.
    const foreignKey = await t.call('GET', `/api/issues?project_id=${t.org('globex').projects[0]!.key}`, {
      token,
      headers,
    });
    expect(foreignKey.status).toBe(404);
    expect({ ...(await foreignKey.json()), request_id: null }).toEqual(missingBody);
    const bad = await expectProblem(
      await t.call('GET', '/api/issues?project_id=no-pe', { token }),
      400,
      'validation_failed',
    );
    expect(bad.errors).toEqual([{ field: 'project_id', message: 'must be a project id (UUID) or key (such as WEB)' }]);
  });

  test('without project_id: the issues of the whole bound organization, none of another', async () => {
    const all = await (await t.call('GET', '/api/issues?limit=100', { token })).json();
    const acme = t.org('acme').projects.map((p) => p.id);
    expect(all.length).toBe(100);
    const orgOf = new Set(
      (
        await t.app.db.prisma.issue.findMany({
          where: { id: { in: all.map((i: { id: string }) => i.id) } },
          select: { orgId: true },
        })
      ).map((i) => i.orgId),
    );
    expect([...orgOf]).toEqual([t.org('acme').id]);
    const globex = await (await t.call('GET', '/api/issues', { token: t.user('bella', 'globex').token })).json();
    expect(globex.every((i: { project_id: string }) => !acme.includes(i.project_id))).toBe(true);
    expect(globex.length).toBeGreaterThan(0);
  });

  test('a viewer can read', async () => {
    expect((await t.call('GET', `/api/issues?project_id=${projectId}`, { token: t.user('victor').token })).status).toBe(
      200,
    );
  });
});
