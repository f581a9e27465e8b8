import type { TestApp } from '../support/app.js';
import { obtainTokens } from '../support/oauth.js';

/**
 * A differential corpus: a few hundred REST requests (every route, every caller kind, errors,
 * filters, cursors) sent in a fixed order to a freshly seeded app, each answer reduced to what
 * must not change when the code behind it is restructured (status, the headers a client reads,
 * the body), with ids, times, tokens and cursors replaced by stable labels.
 * `npm run -s corpus:record` writes test/differential/corpus.json; the test replays it.
 */

export interface Recorded {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

type Caller = 'owner' | 'admin' | 'manager' | 'member' | 'viewer' | 'globex' | 'session' | 'oauthRead' | 'oauthWrite' | 'anonymous' | 'badToken';
const CALLERS: Caller[] = ['owner', 'admin', 'manager', 'member', 'viewer', 'globex', 'session', 'oauthRead', 'oauthWrite', 'anonymous', 'badToken'];

interface Step {
  caller: Caller;
  method: string;
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
}

/** The headers a client reads; the rest (content-length and the like) follow from the body. */
const KEPT_HEADERS = [
  'content-type',
  'location',
  'link',
  'allow',
  'accept-post',
  'www-authenticate',
  'retry-after',
  'cache-control',
  'x-content-type-options',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'ratelimit-policy',
];

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/** Stable names for the ids of a seeded database, and numbered ones for rows the corpus creates. */
class Labels {
  private readonly names = new Map<string, string>();
  private created = 0;

  async load(t: TestApp): Promise<void> {
    const db = t.app.db.prisma;
    for (const org of await db.organization.findMany()) this.names.set(org.id, `org:${org.slug}`);
    for (const user of await db.user.findMany()) this.names.set(user.id, `user:${user.username}`);
    for (const p of await db.project.findMany({ include: { org: true } })) this.names.set(p.id, `project:${p.org.slug}/${p.key}`);
    for (const i of await db.issue.findMany({ include: { project: { include: { org: true } } } })) {
      this.names.set(i.id, `issue:${i.project.org.slug}/${i.project.key}-${i.number}`);
    }
    for (const m of await db.membership.findMany({ include: { user: true, org: true } })) this.names.set(m.id, `membership:${m.user.username}@${m.org.slug}`);
    for (const k of await db.apiKey.findMany({ include: { membership: { include: { user: true, org: true } } } })) {
      this.names.set(k.id, `key:${k.membership.user.username}@${k.membership.org.slug}/${k.name}`);
    }
  }

  label(id: string): string {
    const key = id.toLowerCase();
    let name = this.names.get(key);
    if (!name) {
      name = `new:${++this.created}`;
      this.names.set(key, name);
    }
    return name;
  }

  text(value: string): string {
    return value
      .replace(/tok_live_[0-9A-Za-z]{32}/g, '<token>')
      .replace(/inv_[0-9A-Za-z_-]{24}/g, '<invite-code>')
      .replace(/([?&]cursor=)([A-Za-z0-9_-]+)/g, (_m, p: string, c: string) => `${p}<cursor:${this.cursor(c)}>`)
      .replace(UUID, (id) => `<${this.label(id)}>`)
      .replace(TIME, '<time>');
  }

  cursor(cursor: string): string {
    try {
      return this.text(Buffer.from(cursor, 'base64url').toString('utf8'));
    } catch {
      return cursor;
    }
  }

  value(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.value(v));
    // A key's hint is the end of its random token; a request id is made up for each request.
    const random = new Set(['hint', 'request_id']);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, random.has(k) ? `<${k}>` : this.value(v)]));
    return value;
  }
}

/** Distinct titles and fixed, distinct times for the seeded issues, so that list orders never hang on random ids. */
async function pinTimes(t: TestApp): Promise<void> {
  const issues = await t.app.db.prisma.issue.findMany({ include: { project: true }, orderBy: [{ project: { key: 'asc' } }, { number: 'asc' }] });
  for (const [n, issue] of issues.entries()) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, n));
    await t.app.db.prisma.issue.update({
      where: { id: issue.id },
      data: { title: `${issue.title} (${issue.project.key})`, createdAt: at, updatedAt: new Date(at.getTime() + 30_000) },
    });
  }
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
  add('member', 'POST', '/api/issues', { project_id: ids.web, title: 'Full', status: 'In Progress', priority: 'low', description: 'd', assignee_id: ids.olivia });
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

  // Projects.
  CALLERS.forEach((caller, n) => add(caller, 'POST', '/api/projects', { name: `Corpus ${caller}`, key: `C${n}X` }));
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
  for (const caller of CALLERS) add(caller, 'POST', '/api/orgs', { name: `Corpus ${caller}`, slug: `corpus-${caller.toLowerCase()}` });
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
  return all;
}

/** Sends the corpus to a freshly seeded app and returns every answer, labelled. */
export async function runCorpus(t: TestApp): Promise<Recorded[]> {
  await pinTimes(t);
  const labels = new Labels();
  await labels.load(t);
  const acme = t.org('acme');
  const globex = t.org('globex');
  const web = acme.projects.find((p) => p.key === 'WEB')!.id;
  const mob = acme.projects.find((p) => p.key === 'MOB')!.id;
  const res = globex.projects[0]!.id;
  const web1 = (await t.app.db.prisma.issue.findFirst({ where: { projectId: web, number: 1 } }))!.id;
  const ids: Record<string, string> = { web, mob, res, web1, acme: acme.id, globex: globex.id, olivia: t.user('olivia').id, bella: t.user('bella', 'globex').id };

  const cookie = await t.signIn('olivia@example.com');
  // Olivia's session acts in acme (her only organization); OAuth tokens are bound to acme too.
  const read = await obtainTokens(t.app, cookie, acme.id, 'read');
  const write = await obtainTokens(t.app, cookie, acme.id, 'read write');
  const credentials: Record<Caller, Record<string, string>> = {
    owner: { authorization: `Bearer ${t.user('olivia').token}` },
    admin: { authorization: `Bearer ${t.user('adam').token}` },
    manager: { authorization: `Bearer ${t.user('maya').token}` },
    member: { authorization: `Bearer ${t.user('mark').token}` },
    viewer: { authorization: `Bearer ${t.user('victor').token}` },
    globex: { authorization: `Bearer ${t.user('bella', 'globex').token}` },
    session: { cookie, origin: new URL(t.app.config.baseUrl).origin },
    oauthRead: { authorization: `Bearer ${read.tokens.access_token}` },
    oauthWrite: { authorization: `Bearer ${write.tokens.access_token}` },
    anonymous: {},
    badToken: { authorization: 'Bearer tok_live_00000000000000000000000000000000' },
  };

  const out: Recorded[] = [];
  let next = '';
  let newKey = '';
  let invite = '';
  for (const step of steps(ids)) {
    let path = step.path === '<next>' ? next : step.path;
    path = path.replace('<new-key>', newKey);
    const body = step.body && typeof step.body === 'object' ? JSON.parse(JSON.stringify(step.body).replace('<invite>', invite)) : step.body;
    const headers: Record<string, string> = { ...credentials[step.caller], ...step.headers };
    if (body !== undefined) headers['content-type'] ??= 'application/json';
    const url = path.startsWith('http') ? path : `${t.app.config.baseUrl}${path}`;
    const response = await t.app.fetch(
      new Request(url, { method: step.method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) }),
    );
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // Not JSON: kept as text.
    }
    const link = response.headers.get('link');
    if (link) next = /<([^>]+)>/.exec(link)![1]!;
    if (step.method === 'POST' && path === '/api/api-keys' && response.status === 201) newKey = (parsed as { id: string }).id;
    if (path === '/api/invitations' && response.status === 201) invite = (parsed as { invite_code: string }).invite_code;
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) kept[name] = labels.text(value);
    }
    out.push({
      request: labels.text(`${step.caller} ${step.method} ${path.replace(t.app.config.baseUrl, '')}${body === undefined ? '' : ` ${typeof body === 'string' ? body : JSON.stringify(body)}`}`),
      status: response.status,
      headers: kept,
      body: labels.value(parsed),
    });
  }
  return out;
}
