import { createHash } from 'node:crypto';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { Principal } from '../src/auth/principal.js';
import type { Db } from '../src/db/client.js';
import { QUERY_LIMITS } from '../src/limits/graphql-query.js';
import { isGraphqlQuery } from '../src/idempotency/graphql-reads.js';
import { idempotentRequest, REPLAYED_HEADER } from '../src/idempotency/http.js';
import { KEY_MAX_LENGTH, KEY_TTL_MS, LEASE_MS, parseIdempotencyKey } from '../src/idempotency/key.js';
import {
  answerBytes,
  MAX_ANSWER_BYTES,
  MAX_BYTES_PER_USER,
  MAX_KEYS_PER_USER,
  overQuota,
} from '../src/idempotency/quota.js';
import { fingerprint, idempotent, keyScope } from '../src/idempotency/run.js';
import {
  claimKey,
  completeKey,
  deleteExpiredKeys,
  findKey,
  omitAnswer,
  releaseKey,
  sweepExpiredKeys,
  type KeyScope,
  type StoredResponse,
} from '../src/idempotency/store.js';
import { Response } from '../src/http/fetch-api.js';

// Idempotency-Key handling one module at a time, on an in-memory stand-in for the
// idempotency_key table, so that mutation testing (stryker/idempotency.config.mjs) judges each
// change in milliseconds. The same rules through the whole stack: test/idempotency.test.ts and
// test/idempotency-bounds.test.ts.

type Row = {
  id: string;
  userId: string;
  orgId: string;
  key: string;
  fingerprint: string;
  status: number | null;
  headers: unknown;
  body: string | null;
  bytes: number;
  createdAt: Date;
  expiresAt: Date;
  committedAt: Date | null;
  opaque: boolean;
  leaseUntil: Date;
};
type Where = Record<string, unknown>;

/** Whether a row matches a Prisma `where` of equalities and `{ lte }` / `{ gt }` / `{ lt }` on dates. */
function matches(row: Row, where: Where): boolean {
  return Object.entries(where).every(([field, wanted]) => {
    const value = (row as Record<string, unknown>)[field];
    if (wanted instanceof Object && !(wanted instanceof Date)) {
      const { lte, gt, lt } = wanted as { lte?: Date; gt?: Date; lt?: Date };
      const time = (value as Date).getTime();
      if (lte !== undefined && !(time <= lte.getTime())) return false;
      if (gt !== undefined && !(time > gt.getTime())) return false;
      if (lt !== undefined && !(time < lt.getTime())) return false;
      return true;
    }
    return value === wanted;
  });
}

/** The idempotency_key table in memory: the unique index on (userId, orgId, key) decides claims. */
function table(hooks: { afterRefusedCreate?: (rows: Row[]) => void } = {}) {
  let rows: Row[] = [];
  const calls: string[] = [];
  const idempotencyKey = {
    async createMany({
      data,
      skipDuplicates,
    }: {
      data: Omit<Row, 'status' | 'headers' | 'body' | 'bytes' | 'committedAt'>[];
      skipDuplicates: boolean;
    }) {
      expect(skipDuplicates).toBe(true);
      calls.push('createMany');
      let count = 0;
      for (const row of data) {
        if (rows.some((r) => r.userId === row.userId && r.orgId === row.orgId && r.key === row.key)) continue;
        rows.push({ status: null, headers: null, body: null, bytes: 0, committedAt: null, ...row });
        count++;
      }
      if (count === 0) hooks.afterRefusedCreate?.(rows);
      return { count };
    },
    async deleteMany({ where }: { where: Where }) {
      calls.push('deleteMany');
      const before = rows.length;
      rows = rows.filter((r) => !matches(r, where));
      return { count: before - rows.length };
    },
    async findUnique({ where }: { where: { userId_orgId_key: Where } }) {
      const row = rows.find((r) => matches(r, where.userId_orgId_key));
      return row ? { ...row } : null;
    },
    async updateMany({ where, data }: { where: Where; data: Partial<Row> }) {
      const found = rows.filter((r) => matches(r, where));
      for (const row of found) Object.assign(row, data);
      return { count: found.length };
    },
    async aggregate(args: { where: Where; _count: unknown; _sum: unknown; _min: unknown }) {
      expect(args).toMatchObject({ _count: { _all: true }, _sum: { bytes: true }, _min: { expiresAt: true } });
      const found = rows.filter((r) => matches(r, args.where));
      const min = found.reduce<Date | null>((m, r) => (m === null || r.expiresAt < m ? r.expiresAt : m), null);
      return {
        _count: { _all: found.length },
        _sum: { bytes: found.length ? found.reduce((s, r) => s + r.bytes, 0) : null },
        _min: { expiresAt: min },
      };
    },
  };
  return { db: { idempotencyKey } as unknown as Db, rows: () => rows, calls };
}

const scope = (key = 'k1', userId = 'u1', orgId = 'o1'): KeyScope => ({ userId, orgId, key });
const answer = (
  status = 201,
  body = '{"id":1}',
  headers: Record<string, string> = { 'content-type': 'application/json' },
): StoredResponse => ({
  status,
  headers,
  body,
});
const NOW = new Date('2026-01-01T00:00:00Z');
const later = (ms: number) => new Date(NOW.getTime() + ms);

afterEach(() => {
  vi.useRealTimers();
});

describe('parseIdempotencyKey', () => {
  const parse = (value?: string) =>
    parseIdempotencyKey(new Headers(value === undefined ? {} : { 'idempotency-key': value }));
  const SHAPE =
    'Idempotency-Key must be one quoted string ("a1b2...") or one token of visible ASCII characters, sent once.';
  const LENGTH = `Idempotency-Key must be 1 to ${KEY_MAX_LENGTH} characters.`;

  test('no header: null', () => expect(parse()).toBeNull());

  test('a quoted string, with its escapes undone; a bare token; surrounding spaces dropped', () => {
    expect(parse('"abc-1"')).toEqual({ key: 'abc-1' });
    expect(parse('"a\\"b\\\\c d"')).toEqual({ key: 'a"b\\c d' });
    expect(parse('  "x"  ')).toEqual({ key: 'x' });
    expect(parse('abc-1_~!')).toEqual({ key: 'abc-1_~!' });
    expect(parse(' tok ')).toEqual({ key: 'tok' });
  });

  test('lists, stray quotes, spaces and unknown escapes are refused', () => {
    for (const value of ['"a", "b"', 'a,b', 'a b', 'a"b', '"a', '"a\\b"', '"a"b"', 'a;"b"'])
      expect(parse(value)).toEqual({ error: SHAPE });
  });

  test(`1 to ${KEY_MAX_LENGTH} characters`, () => {
    expect(KEY_MAX_LENGTH).toBe(255);
    expect(parse('""')).toEqual({ error: LENGTH });
    expect(parse(`"${'a'.repeat(255)}"`)).toEqual({ key: 'a'.repeat(255) });
    expect(parse('a'.repeat(255))).toEqual({ key: 'a'.repeat(255) });
    expect(parse(`"${'a'.repeat(256)}"`)).toEqual({ error: LENGTH });
    expect(parse('a'.repeat(256))).toEqual({ error: LENGTH });
    // Escapes count once undone: 255 characters sent as 510.
    expect(parse(`"${'\\"'.repeat(255)}"`)).toEqual({ key: '"'.repeat(255) });
  });
});

describe('isGraphqlQuery', () => {
  const body = (value: unknown) => new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));

  test('a query is a read; a mutation or subscription is not', () => {
    expect(isGraphqlQuery(body({ query: '{ me { id } }' }))).toBe(true);
    expect(isGraphqlQuery(body({ query: 'query Q { me { id } }', operationName: null }))).toBe(true);
    expect(isGraphqlQuery(body({ query: 'mutation M { x }' }))).toBe(false);
    expect(isGraphqlQuery(body({ query: 'subscription S { x }' }))).toBe(false);
  });

  test('the operation is picked as yoga picks it: by operationName, or the only one', () => {
    const doc = 'query A { a } mutation B { b }';
    expect(isGraphqlQuery(body({ query: doc, operationName: 'A' }))).toBe(true);
    expect(isGraphqlQuery(body({ query: doc, operationName: 'B' }))).toBe(false);
    expect(isGraphqlQuery(body({ query: doc }))).toBe(false);
    expect(isGraphqlQuery(body({ query: doc, operationName: 'C' }))).toBe(false);
    expect(isGraphqlQuery(body({ query: '{ a }', operationName: 5 }))).toBe(false);
  });

  test('anything unreadable is a write', () => {
    for (const value of [
      '{',
      'null',
      '[{"query":"{ a }"}]',
      '"{ a }"',
      '{"extensions":{"persistedQuery":{}}}',
      { query: 5 },
      { query: '{ a' },
    ])
      expect(isGraphqlQuery(body(value))).toBe(false);
  });

  test("a document past yoga's token limit is not walked", () => {
    const fields = (n: number) => `{ ${'a '.repeat(n - 2)}}`;
    expect(isGraphqlQuery(body({ query: fields(QUERY_LIMITS.maxTokens) }))).toBe(true);
    expect(isGraphqlQuery(body({ query: fields(QUERY_LIMITS.maxTokens + 1) }))).toBe(false);
  });

  test('reads the bytes of a view, not its whole buffer', () => {
    const whole = new TextEncoder().encode(`xx${JSON.stringify({ query: '{ a }' })}yy`);
    expect(isGraphqlQuery(whole.subarray(2, whole.length - 2))).toBe(true);
  });
});

describe('the store', () => {
  test('claimKey writes the row with its lifetime; a second claim of the same key is refused', async () => {
    const { db, rows } = table();
    const claimed = await claimKey(db, scope(), 'print', NOW);
    expect(claimed).toEqual({ id: expect.any(String) });
    expect(rows()).toEqual([
      expect.objectContaining({
        id: claimed!.id,
        ...scope(),
        fingerprint: 'print',
        createdAt: NOW,
        expiresAt: later(KEY_TTL_MS),
      }),
    ]);
    expect(KEY_TTL_MS).toBe(24 * 60 * 60 * 1000);
    expect(await claimKey(db, scope(), 'print', later(KEY_TTL_MS - 1))).toBeNull();
    // Other users, organizations and keys are other scopes.
    expect(await claimKey(db, scope('k1', 'u2'), 'print', NOW)).not.toBeNull();
    expect(await claimKey(db, scope('k1', 'u1', 'o2'), 'print', NOW)).not.toBeNull();
    expect(await claimKey(db, scope('k2'), 'print', NOW)).not.toBeNull();
    expect(rows()).toHaveLength(4);
  });

  test('a claim costs one statement; one refused by a live row two (nothing expired to make room)', async () => {
    const { db, calls } = table();
    await claimKey(db, scope(), 'p', NOW);
    expect(calls).toEqual(['createMany']);
    calls.length = 0;
    expect(await claimKey(db, scope(), 'p', NOW)).toBeNull();
    expect(calls).toEqual(['createMany', 'deleteMany']);
  });

  test('an expired row in the way (at its expiry) is deleted and the key claimed again; only that scope is touched', async () => {
    const { db, rows } = table();
    await claimKey(db, scope(), 'old', NOW);
    await claimKey(db, scope('k2'), 'other', NOW);
    const claimed = await claimKey(db, scope(), 'new', later(KEY_TTL_MS));
    expect(claimed).not.toBeNull();
    expect(rows().map((r) => [r.key, r.fingerprint])).toEqual([
      ['k2', 'other'],
      ['k1', 'new'],
    ]);
  });

  test('findKey: running, answered, or answered too large to keep', async () => {
    const { db } = table();
    expect(await findKey(db, scope())).toBeNull();
    const { id } = (await claimKey(db, scope(), 'p', NOW))!;
    expect(await findKey(db, scope())).toEqual({
      id,
      fingerprint: 'p',
      createdAt: NOW,
      expiresAt: later(KEY_TTL_MS),
      response: null,
      omitted: null,
      committed: false,
      opaque: false,
      leaseUntil: later(LEASE_MS),
    });
    await completeKey(db, id, answer(201, 'b', { x: 'y' }), 42);
    expect(await findKey(db, scope())).toMatchObject({
      response: { status: 201, headers: { x: 'y' }, body: 'b' },
      omitted: null,
    });
    expect(await findKey(db, scope('k1', 'u2'))).toBeNull();

    const other = (await claimKey(db, scope('k2'), 'p', NOW))!;
    await omitAnswer(db, other.id, 200);
    expect(await findKey(db, scope('k2'))).toMatchObject({ response: null, omitted: { status: 200 } });
  });

  test('completeKey keeps the answer and its bytes; an answer kept without headers replays with none', async () => {
    const { db, rows } = table();
    const { id } = (await claimKey(db, scope(), 'p', NOW))!;
    await completeKey(db, id, answer(200, ''), 7);
    expect(rows()[0]).toMatchObject({
      status: 200,
      body: '',
      headers: { 'content-type': 'application/json' },
      bytes: 7,
    });
    rows()[0]!.headers = null;
    expect((await findKey(db, scope()))!.response).toEqual({ status: 200, headers: {}, body: '' });
  });

  test('releaseKey frees that key only', async () => {
    const { db, rows } = table();
    const a = (await claimKey(db, scope('a'), 'p', NOW))!;
    await claimKey(db, scope('b'), 'p', NOW);
    await releaseKey(db, a.id);
    expect(rows().map((r) => r.key)).toEqual(['b']);
  });

  test('deleteExpiredKeys deletes the keys at or past their expiry and counts them', async () => {
    const { db, rows } = table();
    await claimKey(db, scope('a'), 'p', NOW);
    await claimKey(db, scope('b'), 'p', later(1));
    expect(await deleteExpiredKeys(db, later(KEY_TTL_MS))).toBe(1);
    expect(rows().map((r) => r.key)).toEqual(['b']);
    expect(await deleteExpiredKeys(db, later(KEY_TTL_MS))).toBe(0);
  });

  test('sweepExpiredKeys runs at most once a minute per database', async () => {
    const { db, rows } = table();
    await claimKey(db, scope('a'), 'p', NOW);
    await claimKey(db, scope('b'), 'p', later(10));
    await claimKey(db, scope('c'), 'p', later(60_001));
    await sweepExpiredKeys(db, later(KEY_TTL_MS));
    expect(rows().map((r) => r.key)).toEqual(['b', 'c']);
    await sweepExpiredKeys(db, later(KEY_TTL_MS + 59_999));
    expect(rows().map((r) => r.key)).toEqual(['b', 'c']);
    await sweepExpiredKeys(db, later(KEY_TTL_MS + 60_000));
    expect(rows().map((r) => r.key)).toEqual(['c']);
    // Another database has its own minute.
    const second = table();
    await claimKey(second.db, scope('a'), 'p', NOW);
    await sweepExpiredKeys(second.db, later(KEY_TTL_MS));
    expect(second.rows()).toEqual([]);
  });

  test('sweepExpiredKeys defaults to now', async () => {
    const { db, rows } = table();
    await claimKey(db, scope('a'), 'p', new Date(Date.now() - KEY_TTL_MS - 1));
    await sweepExpiredKeys(db);
    expect(rows()).toEqual([]);
  });
});

describe('the quota', () => {
  test('answerBytes counts the body and the headers as stored, in bytes', () => {
    expect(answerBytes(answer(200, 'é', { a: 'b' }))).toBe(2 + '{"a":"b"}'.length);
    expect(answerBytes(answer(200, '', {}))).toBe(2);
  });

  test(`at most ${MAX_KEYS_PER_USER} live keys per user, counting the one just claimed`, async () => {
    expect(MAX_KEYS_PER_USER).toBe(10_000);
    const { db, rows } = table();
    // Written straight into the table: claiming ten thousand keys one by one would cost seconds per mutant.
    for (let i = 0; i < MAX_KEYS_PER_USER; i++) {
      const createdAt = later(i * 1000);
      const expiresAt = new Date(createdAt.getTime() + KEY_TTL_MS);
      rows().push({
        id: `r${i}`,
        ...scope(`k${i}`),
        fingerprint: 'p',
        status: null,
        committedAt: null,
        opaque: false,
        leaseUntil: createdAt,
        headers: null,
        body: null,
        bytes: 0,
        createdAt,
        expiresAt,
      });
    }
    // Expired keys and other users' keys do not count.
    await claimKey(db, scope('gone'), 'p', later(-KEY_TTL_MS));
    await claimKey(db, scope('x', 'u2'), 'p', NOW);
    expect(await overQuota(db, 'u1', NOW)).toBeNull();
    await claimKey(db, scope('one-more'), 'p', NOW);
    // The oldest live key expires first: in 24 h, in seconds.
    expect(await overQuota(db, 'u1', NOW)).toBe(KEY_TTL_MS / 1000);
    expect(await overQuota(db, 'u1', later(1500))).toBe(KEY_TTL_MS / 1000 - 1);
    expect(await overQuota(db, 'u2', NOW)).toBeNull();
    expect(rows().length).toBe(MAX_KEYS_PER_USER + 3);
  });

  test(`at most ${MAX_BYTES_PER_USER} bytes of kept answers per user`, async () => {
    expect(MAX_BYTES_PER_USER).toBe(64 * 1024 * 1024);
    const { db } = table();
    const a = (await claimKey(db, scope('a'), 'p', NOW))!;
    await completeKey(db, a.id, answer(), MAX_BYTES_PER_USER - 1);
    expect(await overQuota(db, 'u1', NOW)).toBeNull();
    const b = (await claimKey(db, scope('b'), 'p', later(-KEY_TTL_MS + 500)))!;
    expect(await overQuota(db, 'u1', NOW)).toBeNull();
    await completeKey(db, b.id, answer(), 1);
    // The oldest key expires in half a second: at least one second.
    expect(await overQuota(db, 'u1', NOW)).toBe(1);
    expect(await overQuota(db, 'u1', later(-1600))).toBe(3);
  });

  test('defaults to now', async () => {
    const { db } = table();
    const a = (await claimKey(db, scope('a'), 'p', new Date(Date.now() - KEY_TTL_MS + 3_000)))!;
    await completeKey(db, a.id, answer(), MAX_BYTES_PER_USER);
    const wait = await overQuota(db, 'u1');
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(3);
  });
});

describe('keyScope and fingerprint', () => {
  const user = (org: { id: string } | null): Principal =>
    ({
      kind: 'user',
      userId: 'u1',
      credential: { kind: 'pat', id: 'c' },
      org: org && { ...org, role: 'member' },
      orgBound: true,
    }) as Principal;

  test("a user's keys are per organization ('' for none); others get no idempotency", () => {
    expect(keyScope(user({ id: 'o1' }), 'k')).toEqual({ userId: 'u1', orgId: 'o1', key: 'k' });
    expect(keyScope(user(null), 'k')).toEqual({ userId: 'u1', orgId: '', key: 'k' });
    expect(keyScope({ kind: 'anonymous' }, 'k')).toBeNull();
    expect(keyScope({ kind: 'operator', org: { id: 'o1', role: 'owner' } } as Principal, 'k')).toBeNull();
  });

  test('SHA-256 of each part with its length, so that parts cannot run into each other', () => {
    const sha = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(fingerprint('POST', '/a')).toBe(sha('4:POST2:/a'));
    expect(fingerprint('é', new TextEncoder().encode('é'))).toBe(sha('1:é2:é'));
    expect(fingerprint('ab', 'c')).not.toBe(fingerprint('a', 'bc'));
  });
});

describe('idempotent', () => {
  const keepAll = () => true;

  test('runs once per key: a retry gets the first answer, another request with the key is a mismatch', async () => {
    const { db, rows } = table();
    let runs = 0;
    const execute = async () => answer(201, `run ${++runs}`);
    expect(await idempotent(db, scope(), 'p', execute, keepAll)).toEqual({
      kind: 'fresh',
      response: answer(201, 'run 1'),
    });
    expect(await idempotent(db, scope(), 'p', execute, keepAll)).toEqual({
      kind: 'replay',
      response: answer(201, 'run 1'),
    });
    expect(await idempotent(db, scope(), 'other', execute, keepAll)).toEqual({ kind: 'mismatch' });
    expect(runs).toBe(1);
    expect(rows()[0]!.bytes).toBe(answerBytes(answer(201, 'run 1')));
  });

  test('an answer not worth keeping frees the key: the retry runs again', async () => {
    const { db, rows } = table();
    let runs = 0;
    const execute = async () => answer(++runs === 1 ? 503 : 201);
    const keep = (response: StoredResponse) => response.status < 500;
    expect(await idempotent(db, scope(), 'p', execute, keep)).toEqual({ kind: 'fresh', response: answer(503) });
    expect(rows()).toEqual([]);
    expect(await idempotent(db, scope(), 'p', execute, keep)).toEqual({ kind: 'fresh', response: answer(201) });
    expect(runs).toBe(2);
  });

  test('an exception frees the key and is rethrown', async () => {
    const { db, rows } = table();
    const boom = new Error('boom');
    await expect(idempotent(db, scope(), 'p', async () => Promise.reject(boom), keepAll)).rejects.toBe(boom);
    expect(rows()).toEqual([]);
  });

  test('an answer larger than kept is sent once; retries are told its status', async () => {
    const { db } = table();
    const big = answer(201, 'x'.repeat(100), {});
    const size = answerBytes(big);
    expect(await idempotent(db, scope('fits'), 'p', async () => big, keepAll, { maxAnswerBytes: size })).toEqual({
      kind: 'fresh',
      response: big,
    });
    expect(await idempotent(db, scope('fits'), 'p', async () => big, keepAll)).toEqual({
      kind: 'replay',
      response: big,
    });
    expect(await idempotent(db, scope('big'), 'p', async () => big, keepAll, { maxAnswerBytes: size - 1 })).toEqual({
      kind: 'fresh',
      response: big,
    });
    expect(await idempotent(db, scope('big'), 'p', async () => big, keepAll)).toEqual({
      kind: 'answer_too_large',
      status: 201,
    });
    expect(MAX_ANSWER_BYTES).toBe(512 * 1024);
    const huge = answer(200, 'y'.repeat(MAX_ANSWER_BYTES), {});
    await idempotent(db, scope('huge'), 'p', async () => huge, keepAll);
    expect(await idempotent(db, scope('huge'), 'p', async () => huge, keepAll)).toEqual({
      kind: 'answer_too_large',
      status: 200,
    });
  });

  test('over the quota nothing runs, the key is freed, and the wait is told', async () => {
    const { db, rows } = table();
    const full = (await claimKey(db, scope('full'), 'p', new Date(Date.now() - KEY_TTL_MS + 10_000)))!;
    await completeKey(db, full.id, answer(), MAX_BYTES_PER_USER);
    let runs = 0;
    const outcome = await idempotent(db, scope(), 'p', async () => answer(201, String(++runs)), keepAll);
    expect(outcome).toMatchObject({ kind: 'quota_exceeded' });
    expect(runs).toBe(0);
    expect(rows().map((r) => r.key)).toEqual(['full']);
  });

  test('a duplicate waits for the first to finish, then gets its answer', async () => {
    const { db } = table();
    let finish!: () => void;
    const first = idempotent(
      db,
      scope(),
      'p',
      () => new Promise<StoredResponse>((resolve) => (finish = () => resolve(answer(201, 'one')))),
      keepAll,
    );
    await vi.waitFor(() => expect(finish).toBeDefined());
    let secondRuns = 0;
    const second = idempotent(db, scope(), 'p', async () => answer(201, String(++secondRuns)), keepAll, { pollMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    finish();
    expect(await first).toEqual({ kind: 'fresh', response: answer(201, 'one') });
    expect(await second).toEqual({ kind: 'replay', response: answer(201, 'one') });
    expect(secondRuns).toBe(0);
  });

  test('a duplicate whose first request fails meanwhile runs itself', async () => {
    const { db } = table();
    let fail!: () => void;
    const first = idempotent(
      db,
      scope(),
      'p',
      () => new Promise<StoredResponse>((_, reject) => (fail = () => reject(new Error('x')))),
      keepAll,
    );
    await vi.waitFor(() => expect(fail).toBeDefined());
    const second = idempotent(db, scope(), 'p', async () => answer(201, 'two'), keepAll, { pollMs: 1 });
    await new Promise((resolve) => setTimeout(resolve, 20));
    fail();
    await expect(first).rejects.toThrow('x');
    expect(await second).toEqual({ kind: 'fresh', response: answer(201, 'two') });
  });

  test('a key freed between the refused claim and the read is claimed again', async () => {
    let freed = false;
    const { db } = table({
      afterRefusedCreate: (rows) => {
        if (freed) return;
        freed = true;
        rows.splice(0, rows.length);
      },
    });
    await claimKey(db, scope(), 'p');
    expect(await idempotent(db, scope(), 'p', async () => answer(201, 'again'), keepAll)).toEqual({
      kind: 'fresh',
      response: answer(201, 'again'),
    });
  });

  test('a first request still running after the wait: in_progress; older than any request runs: unknown', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const { db } = table();
    await claimKey(db, scope(), 'p', new Date(NOW.getTime() - 1000));
    const execute = async () => answer();
    expect(await idempotent(db, scope(), 'p', execute, keepAll, { waitMs: 0, staleMs: 1000 })).toEqual({
      kind: 'in_progress',
    });
    expect(await idempotent(db, scope(), 'p', execute, keepAll, { waitMs: 0, staleMs: 999 })).toEqual({
      kind: 'unknown',
    });
    // The defaults: two minutes make a request dead; a duplicate waits a while first.
    expect(await idempotent(db, scope('k2'), 'p', execute, keepAll)).toMatchObject({ kind: 'fresh' });
    await claimKey(db, scope('old'), 'p', new Date(NOW.getTime() - 120_001));
    // Opaque: it ran a write that could not mark the key (src/idempotency/claim.ts), so it is never taken over.
    await db.idempotencyKey.updateMany({ where: { key: 'old' }, data: { opaque: true } });
    expect(await idempotent(db, scope('old'), 'p', execute, keepAll)).toEqual({ kind: 'unknown' });
  });

  test('the default wait polls until the first finishes', async () => {
    const { db } = table();
    const { id } = (await claimKey(db, scope(), 'p'))!;
    setTimeout(() => void completeKey(db, id, answer(201, 'late'), 1), 60);
    expect(await idempotent(db, scope(), 'p', async () => answer(), keepAll)).toEqual({
      kind: 'replay',
      response: answer(201, 'late'),
    });
  });
});

describe('idempotentRequest', () => {
  const principal = {
    kind: 'user',
    userId: 'u1',
    credential: { kind: 'pat', id: 'c' },
    org: { id: 'o1', role: 'member' },
    orgBound: true,
  } as Principal;
  const post = (path: string, body: string, key: string | null = '"k1"', method = 'POST') =>
    new Request(`http://127.0.0.1${path}`, {
      method,
      body: method === 'GET' ? undefined : body,
      headers: key === null ? {} : { 'idempotency-key': key },
    });

  function handler(answers: (n: number, request: Request) => Response) {
    let runs = 0;
    const handle = async (request: Request) => answers(++runs, request);
    return { handle, runs: () => runs };
  }
  const created = (n: number) =>
    new Response(JSON.stringify({ n }), {
      status: 201,
      headers: { 'content-type': 'application/json', 'x-n': String(n) },
    });
  const problem = async (response: Response) => ({
    status: response.status,
    ...((await response.json()) as { code: string }),
  });

  test('a retry gets the first answer again, marked replayed', async () => {
    const { db } = table();
    const h = handler(created);
    const first = await idempotentRequest(db, principal, post('/api/issues', '{"a":1}'), h.handle);
    expect(first.status).toBe(201);
    expect(first.headers.get('x-n')).toBe('1');
    expect(first.headers.get(REPLAYED_HEADER)).toBeNull();
    expect(await first.json()).toEqual({ n: 1 });
    const retry = await idempotentRequest(db, principal, post('/api/issues', '{"a":1}'), h.handle);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('x-n')).toBe('1');
    expect(retry.headers.get('content-type')).toBe('application/json');
    expect(REPLAYED_HEADER).toBe('idempotent-replayed');
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await retry.json()).toEqual({ n: 1 });
    expect(h.runs()).toBe(1);
  });

  test('the same key with another body, path or query: 422', async () => {
    const { db } = table();
    const h = handler(created);
    await idempotentRequest(db, principal, post('/api/issues?x=1', '{"a":1}'), h.handle);
    for (const request of [
      post('/api/issues?x=1', '{"a":2}'),
      post('/api/projects?x=1', '{"a":1}'),
      post('/api/issues?x=2', '{"a":1}'),
    ]) {
      const response = await idempotentRequest(db, principal, request, h.handle);
      const body = await problem(response);
      expect(body).toMatchObject({ status: 422, code: 'idempotency_key_reused' });
      expect(JSON.stringify(body)).toContain('used in the last 24 hours for a different request');
    }
    expect(h.runs()).toBe(1);
  });

  test('passed through: other methods, no key, no user; a malformed key is 400', async () => {
    const { db, rows } = table();
    const h = handler(created);
    await idempotentRequest(db, principal, post('/api/issues/1', '{}', '"k1"', 'PUT'), h.handle);
    await idempotentRequest(db, principal, post('/api/issues', '{}', null), h.handle);
    await idempotentRequest(db, { kind: 'anonymous' }, post('/api/issues', '{}'), h.handle);
    expect(h.runs()).toBe(3);
    expect(rows()).toEqual([]);
    const bad = await idempotentRequest(db, principal, post('/api/issues', '{}', 'a b'), h.handle);
    expect(await problem(bad)).toMatchObject({ status: 400, code: 'invalid_idempotency_key' });
    expect(h.runs()).toBe(3);
  });

  test('a GraphQL query is passed through (nothing kept); a mutation is kept', async () => {
    const { db, rows } = table();
    const h = handler(() => new Response('{"data":{}}', { status: 200 }));
    await idempotentRequest(db, principal, post('/api/graphql', JSON.stringify({ query: '{ a }' })), h.handle);
    expect(rows()).toEqual([]);
    // The same body elsewhere is no GraphQL request.
    await idempotentRequest(db, principal, post('/api/other', JSON.stringify({ query: '{ a }' })), h.handle);
    expect(rows()).toHaveLength(1);
    await idempotentRequest(
      db,
      principal,
      post('/api/graphql', JSON.stringify({ query: 'mutation { a }' }), '"k2"'),
      h.handle,
    );
    expect(rows()).toHaveLength(2);
    expect(rows()[1]).toMatchObject({ status: 200, body: '{"data":{}}' });
  });

  test('answers worth retrying are not kept: 5xx, 406, 415, 429, GraphQL top-level errors', async () => {
    for (const [path, status, body] of [
      ['/api/issues', 500, '{}'],
      ['/api/issues', 503, '{}'],
      ['/api/issues', 406, '{}'],
      ['/api/issues', 415, '{}'],
      ['/api/issues', 429, '{}'],
      ['/api/graphql', 200, '{"errors":[{"message":"rate limited"}]}'],
      ['/api/graphql', 200, 'not json'],
    ] as const) {
      const { db, rows } = table();
      const h = handler(() => new Response(body, { status }));
      const response = await idempotentRequest(db, principal, post(path, '{"query":"mutation { a }"}'), h.handle);
      expect(response.status).toBe(status);
      expect(rows()).toEqual([]);
    }
  });

  test('final answers are kept: 4xx refusals, 499, typed GraphQL results, a REST body that says errors', async () => {
    for (const [path, status, body] of [
      ['/api/issues', 404, '{}'],
      ['/api/issues', 400, '{}'],
      ['/api/issues', 499, '{}'],
      ['/api/issues', 201, '{"errors":[]}'],
      ['/api/graphql', 200, '{"data":{"a":{"__typename":"Error"}}}'],
    ] as const) {
      const { db, rows } = table();
      const h = handler(() => new Response(body, { status }));
      await idempotentRequest(db, principal, post(path, '{"query":"mutation { a }"}'), h.handle);
      expect(rows()).toEqual([expect.objectContaining({ status, body })]);
    }
  });

  test('a replayed 204 has no body', async () => {
    const { db } = table();
    const h = handler(() => new Response(null, { status: 204 }));
    await idempotentRequest(db, principal, post('/api/x', '{}'), h.handle);
    const retry = await idempotentRequest(db, principal, post('/api/x', '{}'), h.handle);
    expect(retry.status).toBe(204);
    expect(retry.body).toBeNull();
    expect(retry.headers.get(REPLAYED_HEADER)).toBe('true');
  });

  test('in progress, unknown, too large and over quota are problems with their status and code', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    const { db } = table();
    const h = handler(created);
    const request = post('/api/issues', '{}');
    const print = fingerprint('POST', '/api/issues', new TextEncoder().encode('{}'));
    await claimKey(db, scope('k1'), print, NOW);
    const busy = await idempotentRequest(db, principal, request, h.handle, { waitMs: 0 });
    const busyBody = await problem(busy);
    expect(busyBody).toMatchObject({ status: 409, code: 'idempotency_key_in_use' });
    expect(JSON.stringify(busyBody)).toContain('still being processed');
    expect(busy.headers.get('retry-after')).toBe('1');
    const dead = await idempotentRequest(db, principal, post('/api/issues', '{}'), h.handle, {
      waitMs: 0,
      staleMs: -1,
    });
    const deadBody = await problem(dead);
    expect(deadBody).toMatchObject({ status: 409, code: 'idempotency_outcome_unknown' });
    expect(JSON.stringify(deadBody)).toContain('whether it took effect is unknown');

    await idempotentRequest(db, principal, post('/api/issues', '{}', '"k2"'), h.handle, { maxAnswerBytes: 1 });
    const large = await idempotentRequest(db, principal, post('/api/issues', '{}', '"k2"'), h.handle);
    const body = await problem(large);
    expect(body).toMatchObject({ status: 409, code: 'idempotency_answer_too_large' });
    expect(JSON.stringify(body)).toContain('answered 201');

    const full = (await claimKey(db, scope('full'), 'p', new Date(NOW.getTime() - KEY_TTL_MS + 42_000)))!;
    await completeKey(db, full.id, answer(), MAX_BYTES_PER_USER);
    const over = await idempotentRequest(db, principal, post('/api/issues', '{}', '"k3"'), h.handle);
    const overBody = await problem(over);
    expect(overBody).toMatchObject({ status: 429, code: 'idempotency_quota_exceeded' });
    expect(JSON.stringify(overBody)).toContain('Retry after 42 seconds');
    expect(over.headers.get('retry-after')).toBe('42');
    expect(h.runs()).toBe(1);
  });
});
