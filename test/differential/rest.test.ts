import { CALLERS, describeCorpus, send, type Caller, type Recorded, type World } from './record.js';

/**
 * The REST corpus: a few hundred requests (every route, every caller kind, errors, filters,
 * cursors) in a fixed order. A step's path `<next>` follows the previous answer's Link,
 * `<new-key>` names the last key created, `<new-comment>` the member's last comment, and
 * `<invite>` in a body the last invite code.
 */

interface Step {
  caller: Caller;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

function steps(ids: Record<string, string>): Step[] {
  const all: Step[] = [];
  const add = (caller: Caller, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    all.push({ caller, method, path, body, headers });
  const reads = [
    '/api/me',
    '/api/me/orgs',
    '/api/orgs',
    '/api/projects',
    `/api/projects/${ids.web}`,
    `/api/projects/${ids.res}`,
    '/api/projects/not-a-uuid',
    '/api/issues',
    `/api/issues?project_id=${ids.web}&limit=3`,
    `/api/issues/${ids.web1}`,
    '/api/issues/WEB-2',
    '/api/issues/web-3',
    '/api/issues/RES-1',
    '/api/issues/nonsense',
    '/api/api-keys',
    '/api/api-keys?all=true',
    '/api/orgs/search?q=ac',
    '/api/people/search?q=m',
    '/api/palette/search?q=web',
  ];
  for (const caller of CALLERS) for (const path of reads) add(caller, 'GET', path);

  // The issue list: filters, sorts, pages, and wrong parameters.
  const lists = [
    '?status=Todo,Done',
    '?status=Todo&status=Backlog&priority=urgent',
    '?priority=high,low&sort=priority',
    `?assignee_id=${ids.olivia}`,
    '?assignee_id=none',
    '?q=login',
    '?q=DEMO%20issue',
    '?created_after=2026-01-01T00:03:00Z',
    '?created_before=2026-01-01&created_after=2025-12-01',
    '?updated_after=2026-01-01T00:02:00%2B00:00',
    '?sort=title&direction=asc',
    '?sort=status',
    '?sort=status&direction=desc',
    '?sort=updated_at&direction=asc&limit=2',
    '?sort=number',
    '?sort=created_at&limit=1',
    '?limit=100',
    '?status=Nope',
    '?priority=NOPE',
    '?limit=0',
    '?limit=101',
    '?limit=abc',
    '?limit=-1',
    '?sort=foo',
    '?direction=up',
    '?cursor=garbage',
    '?project_id=not-a-uuid',
    `?project_id=${ids.res}`,
    '?assignee_id=bob',
    '?created_after=yesterday',
    '?q=',
    '?limit=1&limit=2',
    '?status=Nope&limit=0&sort=foo',
  ];
  for (const query of lists) add('member', 'GET', `/api/issues${query}`);
  add('viewer', 'GET', `/api/issues?project_id=${ids.web}&limit=2`);
  // Follow the pages: the recorder substitutes the previous answer's Link.
  for (let n = 0; n < 3; n++) add('viewer', 'GET', '<next>');
  add('viewer', 'GET', '/api/issues?sort=priority&limit=3');
  for (let n = 0; n < 2; n++) add('viewer', 'GET', '<next>');

  // Issue writes.
  const issue = { project_id: ids.web, title: 'Corpus issue', priority: 'high' };
  for (const caller of CALLERS) add(caller, 'POST', '/api/issues', { ...issue, title: `Corpus issue by ${caller}` });
  add('member', 'POST', '/api/issues', {
    project_id: ids.web,
    title: 'Full',
    status: 'In Progress',
    priority: 'low',
    description: 'd',
    assignee_id: ids.olivia,
  });
  add('member', 'POST', '/api/issues', { project_id: ids.web, title: '' });
  add('member', 'POST', '/api/issues', { project_id: ids.web, title: 'x'.repeat(201) });
  add('member', 'POST', '/api/issues', { project_id: ids.web });
  add('member', 'POST', '/api/issues', {});
  add('member', 'POST', '/api/issues', { project_id: ids.web, title: 'Bad', status: 'Nope', priority: 'nope' });
  add('member', 'POST', '/api/issues', { project_id: ids.web, title: 'Unknown', colour: 'red' });
  add('member', 'POST', '/api/issues', { project_id: ids.res, title: 'Other org' });
  add('member', 'POST', '/api/issues', { project_id: 'nope', title: 'Bad id' });
  add('member', 'POST', '/api/issues', { project_id: ids.web, title: 'Outsider', assignee_id: ids.bella });
  add('member', 'POST', '/api/issues', { project_id: ids.web, title: 7, status: null });
  add('member', 'POST', '/api/issues', '{"title":');
  add('member', 'POST', '/api/issues', '[1,2]');
  add('member', 'POST', '/api/issues', 'title=x', { 'content-type': 'application/x-www-form-urlencoded' });
  for (const caller of CALLERS) add(caller, 'PATCH', '/api/issues/WEB-1', { status: 'Done' });
  add('member', 'PATCH', '/api/issues/WEB-2', { title: 'Renamed', description: null, assignee_id: null });
  add('member', 'PATCH', '/api/issues/WEB-2', { title: null });
  add('member', 'PATCH', '/api/issues/WEB-2', { status: 'Nope', priority: 'nope', title: '' });
  add('member', 'PATCH', '/api/issues/WEB-2', { number: 9 });
  add('member', 'PATCH', '/api/issues/RES-1', { title: 'Other org' });
  add('member', 'PATCH', `/api/issues/${ids.web1}`, { assignee_id: ids.bella });
  add('member', 'PATCH', '/api/issues/WEB-2', {});
  for (const caller of CALLERS) add(caller, 'DELETE', '/api/issues/WEB-4');
  add('manager', 'DELETE', '/api/issues/WEB-4');
  add('manager', 'DELETE', '/api/issues/RES-1');

  // Labels, and the labels of an issue.
  for (const caller of CALLERS) add(caller, 'POST', '/api/labels', { name: `corpus-${caller}`, color: '#D73A4A' });
  add('manager', 'POST', '/api/labels', { name: 'CORPUS-MANAGER', color: '#000000' });
  add('manager', 'POST', '/api/labels', { name: 'a,b', color: 'red', extra: 1 });
  for (const caller of CALLERS) add(caller, 'GET', '/api/labels');
  add('viewer', 'GET', '/api/labels/CORPUS-OWNER');
  add('member', 'GET', '/api/labels/corpus-globex');
  add('manager', 'PATCH', '/api/labels/corpus-admin', { color: '#0e8a16', description: 'Changed' });
  add('manager', 'PATCH', '/api/labels/corpus-admin', { name: 'corpus-owner' });
  for (const caller of CALLERS)
    add(caller, 'POST', '/api/issues/WEB-2/labels', { labels: ['corpus-owner', 'CORPUS-ADMIN'] });
  add('member', 'POST', '/api/issues/WEB-2/labels', { labels: ['corpus-globex', 'nope'] });
  add('member', 'PUT', '/api/issues/WEB-3/labels', { labels: ['corpus-manager'] });
  add('member', 'PUT', '/api/issues/RES-2/labels', { labels: [] });
  add('viewer', 'GET', '/api/issues?label=corpus-owner,Corpus-Manager');
  add('viewer', 'GET', '/api/issues?label=nope');
  add('viewer', 'GET', '/api/issues/WEB-2');
  add('member', 'DELETE', '/api/issues/WEB-2/labels/corpus-owner');
  add('manager', 'DELETE', '/api/labels/corpus-admin');
  add('viewer', 'GET', '/api/issues/WEB-2');
  add('viewer', 'GET', '/api/issues/WEB-2/history');

  // Projects.
  for (const [n, caller] of CALLERS.entries())
    add(caller, 'POST', '/api/projects', { name: `Corpus ${caller}`, key: `C${n}X` });
  add('manager', 'POST', '/api/projects', { name: 'Dup', key: 'WEB' });
  add('manager', 'POST', '/api/projects', { name: 'Lower', key: 'low1' });
  add('manager', 'POST', '/api/projects', { name: '', key: '1A' });
  add('manager', 'POST', '/api/projects', { name: 'x'.repeat(101), key: 'TOOLONGKEY99' });
  add('manager', 'POST', '/api/projects', {});
  add('manager', 'POST', '/api/projects', { name: 'Extra', key: 'EXT', color: 'red' });
  add('manager', 'PUT', `/api/projects/${ids.mob}`, { name: 'Mobile' });
  add('manager', 'PUT', `/api/projects/${ids.mob}`, { key: 'WEB' });
  add('manager', 'PUT', `/api/projects/${ids.mob}`, { key: '!' });
  add('manager', 'PUT', `/api/projects/${ids.res}`, { name: 'Theirs' });
  add('member', 'PUT', `/api/projects/${ids.mob}`, { name: 'Member' });
  add('manager', 'DELETE', `/api/projects/${ids.mob}`);
  add('manager', 'DELETE', `/api/projects/${ids.mob}?force=yes`);
  add('manager', 'DELETE', `/api/projects/${ids.mob}?force=true`);
  add('manager', 'DELETE', `/api/projects/${ids.mob}`);
  add('manager', 'DELETE', `/api/projects/${ids.res}`);

  // API keys.
  for (const caller of CALLERS) add(caller, 'POST', '/api/api-keys', { name: `corpus ${caller}` });
  add('session', 'POST', '/api/api-keys', { name: '' });
  add('session', 'POST', '/api/api-keys', { name: 'ttl', expires_in_days: 0 });
  add('session', 'POST', '/api/api-keys', { name: 'ttl', expires_in_days: 30 });
  add('session', 'GET', '/api/api-keys');
  add('session', 'DELETE', '/api/api-keys/<new-key>');
  add('session', 'DELETE', '/api/api-keys/<new-key>');
  add('session', 'DELETE', '/api/api-keys/not-a-uuid');
  add('owner', 'DELETE', '/api/api-keys/<new-key>');

  // Organizations and invitations.
  for (const caller of CALLERS) add(caller, 'POST', '/api/invitations', { role: 'member' });
  add('session', 'POST', '/api/invitations', { role: 'owner', expires_in_days: 3 });
  add('session', 'POST', '/api/invitations', { role: 'king', expires_in_days: 0 });
  add('session', 'POST', '/api/invitations', { role: 'member', unknown: 1 });
  add('session', 'POST', '/api/invitations', {});
  add('globex', 'POST', '/api/orgs/join', { invite_code: '<invite>' });
  add('session', 'POST', '/api/orgs/join', { invite_code: 'inv_nope' });
  add('session', 'POST', '/api/orgs/join', {});
  for (const caller of CALLERS)
    add(caller, 'POST', '/api/orgs', { name: `Corpus ${caller}`, slug: `corpus-${caller.toLowerCase()}` });
  add('session', 'POST', '/api/orgs', { name: 'Dup', slug: 'acme' });
  add('session', 'POST', '/api/orgs', { name: '', slug: '-bad-' });
  add('session', 'POST', '/api/orgs', { name: 'Private', slug: 'private-co', is_public: false });
  add('session', 'GET', '/api/orgs/search?q=');
  add('session', 'GET', '/api/orgs/search');
  add('session', 'GET', '/api/orgs/search?q=corpus');
  add('session', 'GET', '/api/orgs');
  add('session', 'GET', '/api/people/search');
  add('session', 'GET', '/api/palette/search?q=WEB-1');
  add('session', 'GET', '/api/palette/search?q=');

  // Paths and methods that do not exist, and X-Org-Id.
  add('owner', 'GET', '/api/nowhere');
  add('owner', 'PATCH', '/api/projects');
  add('owner', 'POST', '/api/me');
  add('owner', 'PUT', '/api/issues/WEB-1', { title: 'x' });
  add('owner', 'GET', '/api/me', undefined, { 'x-org-id': ids.globex! });
  add('owner', 'GET', '/api/me', undefined, { 'x-org-id': ids.acme! });
  add('session', 'GET', '/api/projects', undefined, { 'x-org-id': ids.globex! });
  add('owner', 'GET', '/api/me?access_token=abc');
  add('anonymous', 'GET', '/api/me', undefined, { authorization: 'Basic abc' });
  add('anonymous', 'GET', '/api/me', undefined, { authorization: 'Bearer a', 'x-auth-token': 'b' });
  for (const caller of CALLERS) add(caller, 'GET', '/api/me');

  // Comments: every caller writes and reads; the author, a manager and an admin edit and delete;
  // `<new-comment>` names the member's last comment.
  for (const caller of CALLERS) add(caller, 'POST', '/api/issues/WEB-2/comments', { body: `Comment by ${caller}` });
  add('member', 'POST', '/api/issues/web-2/comments', { body: '**Markdown** <b>kept as text</b>' });
  add('member', 'POST', '/api/issues/WEB-2/comments', { body: '   ' });
  add('member', 'POST', '/api/issues/WEB-2/comments', { body: 'x'.repeat(10_001) });
  add('member', 'POST', '/api/issues/WEB-2/comments', { body: 7, author_id: ids.olivia });
  add('member', 'POST', '/api/issues/WEB-2/comments', {});
  add('member', 'POST', '/api/issues/RES-1/comments', { body: 'Other org' });
  add('member', 'POST', '/api/issues/nonsense/comments', { body: 'Nowhere' });
  for (const caller of CALLERS) add(caller, 'GET', '/api/issues/WEB-2/comments?limit=3');
  for (let n = 0; n < 3; n++) add('viewer', 'GET', '<next>');
  add('viewer', 'GET', '/api/issues/WEB-2/comments?limit=0');
  add('viewer', 'GET', '/api/issues/WEB-2/comments?cursor=garbage');
  add('viewer', 'GET', '/api/issues/RES-1/comments');
  add('member', 'POST', '/api/issues/WEB-2/comments', { body: 'Mine to change' });
  add('manager', 'PATCH', '/api/issues/WEB-2/comments/<new-comment>', { body: 'Not yours' });
  add('member', 'PATCH', '/api/issues/WEB-2/comments/<new-comment>', { body: 'Changed' });
  add('member', 'PATCH', '/api/issues/WEB-2/comments/<new-comment>', { body: '' });
  add('member', 'PATCH', '/api/issues/WEB-3/comments/<new-comment>', { body: 'Wrong issue' });
  add('admin', 'PATCH', '/api/issues/WEB-2/comments/<new-comment>', { body: 'Moderated' });
  add('member', 'PATCH', '/api/issues/WEB-2/comments/not-a-uuid', { body: 'x' });
  add('viewer', 'DELETE', '/api/issues/WEB-2/comments/<new-comment>');
  add('manager', 'DELETE', '/api/issues/WEB-2/comments/<new-comment>');
  add('member', 'DELETE', '/api/issues/WEB-2/comments/<new-comment>');
  add('member', 'DELETE', '/api/issues/WEB-2/comments/<new-comment>');
  add('globex', 'GET', '/api/issues/WEB-2/comments');
  add('viewer', 'GET', '/api/issues/WEB-2/history?limit=3');
  // Bulk changes of issues, last, so that every answer above stays as it was.
  for (const caller of CALLERS)
    add(caller, 'POST', '/api/issues/bulk', { ids: ['WEB-2', 'web-3'], change: { priority: 'low' } });
  add('member', 'POST', '/api/issues/bulk', {
    issues: [
      { project_id: ids.web, title: 'Bulk A' },
      { project_id: 'WEB', title: 'Bulk B', status: 'Todo' },
    ],
  });
  add('member', 'POST', '/api/issues/bulk', {
    ids: ['WEB-2', 'RES-1', 'WEB-999', 'web-2'],
    change: { status: 'Todo' },
  });
  add('member', 'POST', '/api/issues/bulk', { ids: ['WEB-2'], change: { status: 'Nope', colour: 'red' } });
  add('member', 'POST', '/api/issues/bulk', { issues: [{ project_id: ids.res, title: 'Theirs' }, { title: '' }] });
  add('member', 'POST', '/api/issues/bulk', { ids: ['WEB-2'], change: {}, issues: [] });
  add('member', 'POST', '/api/issues/bulk', {});
  return all;
}

async function run(world: World): Promise<Recorded[]> {
  const out: Recorded[] = [];
  let next = '';
  let newKey = '';
  let invite = '';
  let newComment = '';
  for (const step of steps(world.ids)) {
    const path = (step.path === '<next>' ? next : step.path)
      .replace('<new-key>', newKey)
      .replace('<new-comment>', newComment);
    const body =
      step.body && typeof step.body === 'object'
        ? JSON.parse(JSON.stringify(step.body).replace('<invite>', invite))
        : step.body;
    const { response, parsed, recorded } = await send(world, step.caller, step.method, path, body, step.headers);
    const link = response.headers.get('link');
    if (link) next = /<([^>]+)>/.exec(link)![1]!;
    if (step.method === 'POST' && path === '/api/api-keys' && response.status === 201)
      newKey = (parsed as { id: string }).id;
    if (step.caller === 'member' && path.endsWith('/comments') && response.status === 201)
      newComment = (parsed as { id: string }).id;
    if (path === '/api/invitations' && response.status === 201)
      invite = (parsed as { invite_code: string }).invite_code;
    out.push(recorded);
  }
  return out;
}

describeCorpus('rest', run);
