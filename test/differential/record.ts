import { readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../src/config.js';
import { MemoryStore } from '../../src/limits/memory-store.js';
import { sealSecret } from '../../src/webhooks/secret-box.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { obtainTokens } from '../support/oauth.js';

/**
 * What the differential corpora share: a freshly seeded app with pinned times, the callers, the
 * labels that replace ids, times, tokens and cursors by stable names, the reduction of an answer
 * to what must not change (status, the headers a client reads, the body), and the webhook
 * payloads the corpus' writes queued. Each surface (rest, graphql, mcp, pages: `<surface>.test.ts`) lists
 * its requests; `npm run corpus:record` (RECORD_CORPUS=1 on PGlite) writes the
 * JSON files anew (look at the diff), otherwise the tests replay them.
 */

export interface Recorded {
  request: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export type Caller =
  | 'owner'
  | 'admin'
  | 'manager'
  | 'member'
  | 'viewer'
  | 'globex'
  | 'session'
  | 'oauthRead'
  | 'oauthWrite'
  | 'anonymous'
  | 'badToken';
export const CALLERS: Caller[] = [
  'owner',
  'admin',
  'manager',
  'member',
  'viewer',
  'globex',
  'session',
  'oauthRead',
  'oauthWrite',
  'anonymous',
  'badToken',
];

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
/** A time as pages show it. */
const PAGE_TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/g;
/**
 * Keys whose values are made up for each request or each key: a key's hint is the end of its
 * random token; an OAuth client's registration time is in seconds, not a labelled time.
 */
const RANDOM_KEYS = new Set(['hint', 'request_id', 'client_id_issued_at']);
/** Keys whose values are opaque cursors (GraphQL connections, MCP pages): labelled by what they decode to. */
const CURSOR_KEYS = new Set(['cursor', 'startCursor', 'endCursor', 'next_cursor', 'nextCursor']);

/** Stable names for the ids of a seeded database, and numbered ones for rows the corpus creates. */
class Labels {
  private readonly names = new Map<string, string>();
  private created = 0;

  async load(t: TestApp): Promise<void> {
    const db = t.app.db.prisma;
    for (const org of await db.organization.findMany()) this.names.set(org.id, `org:${org.slug}`);
    for (const user of await db.user.findMany()) this.names.set(user.id, `user:${user.username}`);
    for (const p of await db.project.findMany({ include: { org: true } }))
      this.names.set(p.id, `project:${p.org.slug}/${p.key}`);
    for (const i of await db.issue.findMany({ include: { project: { include: { org: true } } } })) {
      this.names.set(i.id, `issue:${i.project.org.slug}/${i.project.key}-${i.number}`);
    }
    for (const m of await db.membership.findMany({ include: { user: true, org: true } }))
      this.names.set(m.id, `membership:${m.user.username}@${m.org.slug}`);
    for (const k of await db.apiKey.findMany({ include: { membership: { include: { user: true, org: true } } } })) {
      this.names.set(k.id, `key:${k.membership.user.username}@${k.membership.org.slug}/${k.name}`);
    }
    for (const w of await db.webhook.findMany({ include: { org: true } }))
      this.names.set(w.id, `webhook:${w.org.slug}/${w.description}`);
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
    return (
      value
        .replace(/tok_live_[0-9A-Za-z]{32}/g, '<token>')
        .replace(/tok_live_…[0-9A-Za-z]{4}/g, 'tok_live_…<hint>')
        .replace(/inv_[0-9A-Za-z_-]{24}/g, '<invite-code>')
        .replace(/whsec_[A-Za-z0-9+/]{43}=/g, '<webhook-secret>')
        .replace(/eyJ[\w-]*\.[\w-]+\.[\w-]+/g, '<jwt>')
        .replace(/\brt_[\w-]{43}\b/g, '<refresh-token>')
        .replace(/client_[\w-]{22}(?![\w-])/g, '<oauth-client>')
        .replace(/([?&]cursor=)([A-Za-z0-9_-]+)/g, (_m, p: string, c: string) => `${p}<cursor:${this.cursor(c)}>`)
        // A cursor inside JSON text: a request's variables or arguments, an MCP tool's text content.
        .replace(/((?:next_cursor|cursor|after|before)\\?":\s*\\?")([A-Za-z0-9_-]{16,})/g, (m, p: string, c: string) =>
          this.isCursor(c) ? `${p}<cursor:${this.cursor(c)}>` : m,
        )
        .replace(UUID, (id) => `<${this.label(id)}>`)
        .replace(TIME, '<time>')
        .replace(PAGE_TIME, '<time>')
    );
  }

  /** The service's cursors are base64url JSON arrays. */
  isCursor(text: string): boolean {
    return Buffer.from(text, 'base64url').toString('utf8').startsWith('[');
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
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [
          k,
          RANDOM_KEYS.has(k)
            ? `<${k}>`
            : CURSOR_KEYS.has(k) && typeof v === 'string'
              ? `<cursor:${this.cursor(v)}>`
              : this.value(v),
        ]),
      );
    }
    return value;
  }
}

/** Distinct titles and fixed, distinct times for the seeded issues, so that list orders never hang on random ids. */
async function pinTimes(t: TestApp): Promise<void> {
  const issues = await t.app.db.prisma.issue.findMany({
    include: { project: true },
    orderBy: [{ project: { key: 'asc' } }, { number: 'asc' }],
  });
  for (const [n, issue] of issues.entries()) {
    const at = new Date(Date.UTC(2026, 0, 1, 0, n));
    await t.app.db.prisma.issue.update({
      where: { id: issue.id },
      data: {
        title: `${issue.title} (${issue.project.key})`,
        createdAt: at,
        updatedAt: new Date(at.getTime() + 30_000),
      },
    });
  }
}

/** The webhooks' sealing key: no delivery worker runs, so their secrets are only stored. */
const WEBHOOKS = {
  allowPrivateNetworks: true,
  secretKey: 'differential corpus key for sealing webhook secrets',
  worker: false,
  leaseSeconds: 60,
};

/**
 * An endpoint for every event of each seeded organization, and one for issue updates only, so
 * that every write of a corpus leaves its payloads in the outbox (webhook_deliveries). Written
 * to the database directly: a request would draw from a caller's rate limit.
 */
async function addWebhooks(t: TestApp): Promise<void> {
  const hooks = [
    { org: 'acme', events: ['*'], description: 'all' },
    { org: 'acme', events: ['issue.updated'], description: 'updates' },
    { org: 'globex', events: ['*'], description: 'all' },
  ];
  for (const hook of hooks) {
    await t.app.db.prisma.webhook.create({
      data: {
        orgId: t.org(hook.org).id,
        url: `http://127.0.0.1:9/${hook.org}/${hook.description}`,
        events: hook.events,
        description: hook.description,
        secret: sealSecret(`whsec_${Buffer.alloc(32).toString('base64')}`, WEBHOOKS.secretKey),
      },
    });
  }
}

export interface World {
  t: TestApp;
  labels: Labels;
  /** Ids the requests name: projects web, mob, res (globex), issue web1, orgs acme and globex, users olivia and bella. */
  ids: Record<string, string>;
  credentials: Record<Caller, Record<string, string>>;
}

/** A freshly seeded app, its webhooks, pinned times, labels and every caller's credentials. */
async function openWorld(overrides: Partial<Config>): Promise<World> {
  // The limits count on a clock that stands still: however slow the machine, the corpus runs in
  // one window, so the remaining counts and waits it records do not hang on its speed.
  const startedAt = Date.now();
  const t = await startTestApp(
    { webhooks: WEBHOOKS, ...overrides },
    { limiterStore: new MemoryStore({ now: () => startedAt }) },
  );
  await pinTimes(t);
  await addWebhooks(t);
  const labels = new Labels();
  await labels.load(t);
  const acme = t.org('acme');
  const globex = t.org('globex');
  const web = acme.projects.find((p) => p.key === 'WEB')!.id;
  const mob = acme.projects.find((p) => p.key === 'MOB')!.id;
  const res = globex.projects[0]!.id;
  const web1 = (await t.app.db.prisma.issue.findFirst({ where: { projectId: web, number: 1 } }))!.id;
  const ids: Record<string, string> = {
    web,
    mob,
    res,
    web1,
    acme: acme.id,
    globex: globex.id,
    olivia: t.user('olivia').id,
    bella: t.user('bella', 'globex').id,
  };

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
  return { t, labels, ids, credentials };
}

/** A (finished) event stream as its events, each data parsed when it is JSON: so that what it holds is labelled. */
function eventsOf(stream: string): unknown[] {
  return stream
    .split(/\n\n+/)
    .filter((block) => block.trim())
    .map((block) => {
      const fields: Record<string, unknown> = {};
      for (const line of block.split('\n')) {
        const [name, ...rest] = line.split(':');
        const value = rest.join(':').replace(/^ /, '');
        try {
          fields[name!] = name === 'data' ? JSON.parse(value) : value;
        } catch {
          fields[name!] = value;
        }
      }
      return fields;
    });
}

export interface Sent {
  /** How the request is named in the corpus (labelled). */
  request: string;
  response: Response;
  /** The body: parsed when it is JSON, else the text. */
  parsed: unknown;
  recorded: Recorded;
}

/** Sends one request as `caller` through the real stack and reduces the answer. */
export async function send(
  world: World,
  caller: Caller,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Sent> {
  const { t, labels } = world;
  const all: Record<string, string> = { ...world.credentials[caller], ...headers };
  if (body !== undefined) all['content-type'] ??= 'application/json';
  const url = path.startsWith('http') ? path : `${t.app.config.baseUrl}${path}`;
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  const response = await t.app.fetch(new Request(url, { method, headers: all, body: text }));
  const answer = await response.text();
  let parsed: unknown = answer;
  try {
    parsed = answer ? JSON.parse(answer) : null;
  } catch {
    // Not JSON: kept as text, or an event stream's events with their JSON data.
    if (response.headers.get('content-type')?.startsWith('text/event-stream')) parsed = eventsOf(answer);
  }
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) kept[name] = labels.text(value);
  }
  const request = labels.text(
    `${caller} ${method} ${path.replace(t.app.config.baseUrl, '')}${text === undefined ? '' : ` ${text}`}`,
  );
  return {
    request,
    response,
    parsed,
    recorded: { request, status: response.status, headers: kept, body: labels.value(parsed) },
  };
}

interface Delivery {
  webhook: string;
  type: string;
  order_key: string | null;
  payload: unknown;
}

/** Every payload the corpus' writes queued, in the order they were queued, labelled. */
async function deliveries(world: World): Promise<Delivery[]> {
  const rows = await world.t.app.db.prisma.webhookDelivery.findMany({
    orderBy: { seq: 'asc' },
    include: { webhook: true },
  });
  // One event queued for several webhooks is queued in the order of their (random) ids: ordered here by the webhooks' names.
  const first = new Map<string, number>();
  for (const [n, row] of rows.entries()) if (!first.has(row.messageId)) first.set(row.messageId, n);
  rows.sort(
    (a, b) =>
      first.get(a.messageId)! - first.get(b.messageId)! || a.webhook.description.localeCompare(b.webhook.description),
  );
  return rows.map((row) => ({
    webhook: world.labels.text(row.webhookId),
    type: row.eventType,
    order_key: row.orderKey === null ? null : world.labels.text(row.orderKey),
    payload: world.labels.value(JSON.parse(row.payload)),
  }));
}

function compare(file: URL, answers: { request?: string }[]): void {
  const recorded = JSON.parse(readFileSync(file, 'utf8')) as { request?: string }[];
  for (const [n, answer] of answers.entries())
    expect(answer, `${n}: ${recorded[n]?.request ?? ''}`).toEqual(recorded[n]);
  expect(answers.length).toBe(recorded.length);
}

/**
 * The test of one surface's corpus: its answers replay `<name>.json` and the webhook payloads of
 * its writes `<name>-webhooks.json` (recorded on PGlite, replayed on both databases).
 */
export function describeCorpus(
  name: string,
  run: (world: World) => Promise<Recorded[]>,
  overrides: Partial<Config> = {},
): void {
  const answersFile = new URL(`./${name}.json`, import.meta.url);
  const webhooksFile = new URL(`./${name}-webhooks.json`, import.meta.url);
  describe(`differential corpus: ${name}`, () => {
    let world: World;
    let answers: Recorded[];
    let payloads: Delivery[];
    beforeAll(async () => {
      world = await openWorld(overrides);
      answers = await run(world);
      payloads = await deliveries(world);
      if (process.env.RECORD_CORPUS === '1' && process.env.TEST_DB !== 'postgres') {
        writeFileSync(answersFile, `${JSON.stringify(answers, null, 1)}\n`);
        writeFileSync(webhooksFile, `${JSON.stringify(payloads, null, 1)}\n`);
      }
    }, 600_000);
    afterAll(() => world?.t.close());

    it('answers every recorded request exactly as recorded', () => compare(answersFile, answers));
    it('queues every recorded webhook payload exactly as recorded', () => compare(webhooksFile, payloads as never));
  });
}
