import { scryptSync } from 'node:crypto';
import { describe, expect, test } from 'vitest';
import { AuthError } from '../src/auth/auth-error.js';
import { authenticate, presentedCredentials, reauthenticate, type AuthDeps } from '../src/auth/authenticate.js';
import { hashPassword, verifyPassword } from '../src/auth/password.js';
import { PAT_CACHE_MAX_ENTRIES, PAT_CACHE_TTL_MS, PatCache, type CachedPat } from '../src/auth/pat-cache.js';
import { generatePat, hashToken } from '../src/auth/pat-token.js';
import {
  clearedSessionCookie,
  endSession,
  readSessionCookie,
  resolveSession,
  SESSION_ABSOLUTE_MS,
  SESSION_IDLE_MS,
  sessionCookie,
  sessionCookieName,
  startSession,
} from '../src/auth/session.js';
import { testConfig } from '../src/config.js';
import type { Db } from '../src/db/client.js';
import { selected } from './support/prisma-select.js';
import type { SigningKeys } from '../src/auth/oauth/signing-keys.js';

// The credential strategies one rule at a time, over an in-memory stand-in for the two tables
// they read, so that mutation testing (stryker/credentials.config.mjs) judges each change to them
// in milliseconds. The same rules through the whole stack and a real database:
// test/sessions.test.ts, test/pat-auth.test.ts, test/pat-cache.test.ts.

const http = testConfig({ baseUrl: 'http://localhost:4000' });
const https = testConfig({ baseUrl: 'https://work.example.test' });
const ORG_A = 'aaaaaaaa-0000-4000-8000-000000000001';
const ORG_B = 'bbbbbbbb-0000-4000-8000-000000000002';
const HOUR = 3600 * 1000;
const T0 = new Date('2026-01-01T00:00:00Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

interface SessionRow {
  id: string;
  userId: string;
  tokenHash: Uint8Array;
  createdAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
  absoluteExpiresAt: Date;
}

/** The `session` table in memory, with each user's memberships: what the session functions touch. */
function sessionStore(memberships: { orgId: string; role: 'viewer' | 'member' | 'owner' }[] = []) {
  const rows: SessionRow[] = [];
  const updates: unknown[] = [];
  const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));
  const db = {
    session: {
      async create({ data }: { data: Omit<SessionRow, 'id'> }) {
        const row = { id: `s${rows.length + 1}`, ...data };
        rows.push(row);
        return row;
      },
      async findUnique({ where, select }: { where: { tokenHash: Uint8Array }; select: Record<string, unknown> }) {
        const row = rows.find((r) => same(r.tokenHash, where.tokenHash));
        return row ? selected({ ...row, user: { memberships } }, select) : null;
      },
      async delete({ where }: { where: { id: string } }) {
        // As Prisma: deleting a row that is not there is an error.
        const index = rows.findIndex((r) => r.id === where.id);
        if (index < 0) throw new Error('No record was found for a delete.');
        rows.splice(index, 1);
      },
      async deleteMany({ where }: { where: { tokenHash: Uint8Array } }) {
        for (let i = rows.length - 1; i >= 0; i--) if (same(rows[i]!.tokenHash, where.tokenHash)) rows.splice(i, 1);
      },
      async update({ where, data }: { where: { id: string }; data: Partial<SessionRow> }) {
        updates.push({ where, data });
        Object.assign(rows.find((r) => r.id === where.id)!, data);
      },
    },
  };
  return { db: db as unknown as Db, rows, updates };
}

describe('the session cookie', () => {
  test('is __Host- prefixed and Secure over https, plain over http; HttpOnly, SameSite=Lax, Path=/ always', () => {
    expect(sessionCookieName(https)).toBe('__Host-wm_session');
    expect(sessionCookieName(http)).toBe('wm_session');
    const secure = sessionCookie(https, 'tok', at(HOUR), T0);
    expect(secure).toBe('__Host-wm_session=tok; Max-Age=3600; Path=/; HttpOnly; Secure; SameSite=Lax');
    expect(sessionCookie(http, 'tok', at(HOUR), T0)).toBe(
      'wm_session=tok; Max-Age=3600; Path=/; HttpOnly; SameSite=Lax',
    );
  });

  test('lives until the session expires, in whole seconds, never a negative Max-Age', () => {
    expect(sessionCookie(http, 'tok', at(1999), T0)).toContain('Max-Age=1;');
    expect(sessionCookie(http, 'tok', at(-5000), T0)).toContain('Max-Age=0;');
  });

  test('is cleared with the same attributes and Max-Age=0', () => {
    expect(clearedSessionCookie(https)).toBe('__Host-wm_session=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax');
    expect(clearedSessionCookie(http)).toBe('wm_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax');
  });

  test('is read by its own name only; an empty one is none', () => {
    const read = (config: typeof http, cookie?: string) =>
      readSessionCookie(config, new Headers(cookie ? { cookie } : {}));
    expect(read(http, 'a=1; wm_session=abc; b=2')).toBe('abc');
    expect(read(https, 'wm_session=abc')).toBeNull();
    expect(read(https, '__Host-wm_session=xyz')).toBe('xyz');
    expect(read(http, 'wm_session=')).toBeNull();
    expect(read(http)).toBeNull();
  });
});

describe('sessions', () => {
  test('last 30 days from their last use and never more than 90 days from sign-in', () => {
    expect(SESSION_IDLE_MS).toBe(30 * 24 * HOUR);
    expect(SESSION_ABSOLUTE_MS).toBe(90 * 24 * HOUR);
  });

  test('start with a fresh random token, of which only the hash is stored', async () => {
    const { db, rows } = sessionStore();
    const first = await startSession(db, 'u1', T0);
    const second = await startSession(db, 'u1', T0);
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(second.token).not.toBe(first.token);
    expect(rows[0]).toMatchObject({
      userId: 'u1',
      createdAt: T0,
      lastSeenAt: T0,
      expiresAt: at(SESSION_IDLE_MS),
      absoluteExpiresAt: at(SESSION_ABSOLUTE_MS),
    });
    expect(Buffer.from(rows[0]!.tokenHash).equals(Buffer.from(hashToken(first.token)))).toBe(true);
  });

  test('resolve to their user and memberships; an unknown token is none', async () => {
    const memberships = [{ orgId: ORG_A, role: 'member' as const }];
    const { db, rows } = sessionStore(memberships);
    const { token } = await startSession(db, 'u1', T0);
    expect(await resolveSession(db, token, at(1000))).toEqual({
      id: rows[0]!.id,
      userId: 'u1',
      memberships,
      refreshedUntil: null,
    });
    expect(await resolveSession(db, 'not-a-session', at(1000))).toBeNull();
  });

  test('end at their idle expiry, and the row is deleted', async () => {
    const { db, rows } = sessionStore();
    const { token } = await startSession(db, 'u1', T0);
    expect(await resolveSession(db, token, at(SESSION_IDLE_MS - 1))).not.toBeNull();
    const { db: db2, rows: rows2 } = sessionStore();
    const again = await startSession(db2, 'u1', T0);
    expect(await resolveSession(db2, again.token, at(SESSION_IDLE_MS))).toBeNull();
    expect(rows2).toHaveLength(0);
    expect(rows).toHaveLength(1);
  });

  test('end at their absolute expiry however recently used', async () => {
    const { db, rows } = sessionStore();
    const { token } = await startSession(db, 'u1', T0);
    rows[0]!.expiresAt = at(SESSION_ABSOLUTE_MS + HOUR);
    expect(await resolveSession(db, token, at(SESSION_ABSOLUTE_MS))).toBeNull();
    expect(rows).toHaveLength(0);
  });

  test('slide their expiry at most once an hour, never past the absolute expiry', async () => {
    const { db, rows, updates } = sessionStore();
    const { token } = await startSession(db, 'u1', T0);
    expect((await resolveSession(db, token, at(HOUR - 1)))!.refreshedUntil).toBeNull();
    expect(updates).toHaveLength(0);
    const refreshed = await resolveSession(db, token, at(HOUR));
    expect(refreshed!.refreshedUntil).toEqual(at(HOUR + SESSION_IDLE_MS));
    expect(rows[0]).toMatchObject({ lastSeenAt: at(HOUR), expiresAt: at(HOUR + SESSION_IDLE_MS) });
    // Near the end of its life the session is pushed only to its absolute expiry.
    const late = SESSION_ABSOLUTE_MS - 24 * HOUR;
    rows[0]!.expiresAt = at(late + HOUR);
    rows[0]!.lastSeenAt = at(late - HOUR);
    expect((await resolveSession(db, token, at(late)))!.refreshedUntil).toEqual(at(SESSION_ABSOLUTE_MS));
    expect(rows[0]!.expiresAt).toEqual(at(SESSION_ABSOLUTE_MS));
  });

  test('end everywhere on sign-out: the row is gone', async () => {
    const { db, rows } = sessionStore();
    const { token } = await startSession(db, 'u1', T0);
    await startSession(db, 'u1', T0);
    await endSession(db, token);
    expect(rows).toHaveLength(1);
    expect(await resolveSession(db, token, T0)).toBeNull();
  });
});

describe('passwords', () => {
  test('are stored as scrypt with its parameters and a random salt, and only the right one verifies', async () => {
    const stored = await hashPassword('correct horse');
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    expect([scheme, n, r, p]).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(salt!, 'base64')).toHaveLength(16);
    expect(Buffer.from(hash!, 'base64')).toHaveLength(32);
    expect(await hashPassword('correct horse')).not.toBe(stored);
    expect(await verifyPassword('correct horse', stored)).toBe(true);
    expect(await verifyPassword('correct horsE', stored)).toBe(false);
  });

  // Made with N=1024, r=4, p=2 and a 24-byte key: a hash from before a parameter change still verifies.
  const salt = Buffer.alloc(16, 7);
  const old = [
    'scrypt',
    1024,
    4,
    2,
    salt.toString('base64'),
    scryptSync('old one', salt, 24, { N: 1024, r: 4, p: 2 }).toString('base64'),
  ];

  test('verify with the parameters stored with them', async () => {
    expect(await verifyPassword('old one', old.join('$'))).toBe(true);
    expect(await verifyPassword('old two', old.join('$'))).toBe(false);
  });

  test('another scheme, or one without salt or hash, never verifies', async () => {
    expect(await verifyPassword('old one', ['bcrypt', ...old.slice(1)].join('$'))).toBe(false);
    expect(await verifyPassword('old one', [...old.slice(0, 4), '', old[5]].join('$'))).toBe(false);
    expect(await verifyPassword('old one', old.slice(0, 5).join('$'))).toBe(false);
    expect(await verifyPassword('old one', '')).toBe(false);
  });
});

describe('presented credentials', () => {
  const presented = (headers: Record<string, string>, config = http) =>
    presentedCredentials(config, new Headers(headers));
  const refusal = (headers: Record<string, string>) => (presented(headers).token as AuthError).code;

  test('a Bearer token or X-Auth-Token; the cookie only without a token', () => {
    expect(presented({ authorization: 'Bearer abc', cookie: 'wm_session=s' })).toEqual({
      token: 'abc',
      sessionToken: null,
      requestedOrgId: null,
    });
    expect(presented({ authorization: 'bearer   abc  ' }).token).toBe('abc');
    expect(presented({ 'x-auth-token': ' abc ' }).token).toBe('abc');
    expect(presented({ authorization: 'Bearer abc', 'x-auth-token': 'abc' }).token).toBe('abc');
    expect(presented({ cookie: 'wm_session=s' })).toEqual({ token: null, sessionToken: 's', requestedOrgId: null });
    expect(presented({ 'x-auth-token': '  ', cookie: 'wm_session=s' })).toMatchObject({
      token: null,
      sessionToken: 's',
    });
  });

  test('a malformed Authorization is refused, not ignored', () => {
    for (const authorization of [
      'Basic abc',
      'Bearer',
      'Bearer ',
      'Bearer a b',
      'Bearerabc',
      'xBearer abc',
      'Bearer\tabc',
    ]) {
      expect(refusal({ authorization }), authorization).toBe('token_malformed');
    }
  });

  test('two credentials are refused: different tokens, or a field sent twice', () => {
    expect(refusal({ authorization: 'Bearer abc', 'x-auth-token': 'abd' })).toBe('conflicting_credentials');
    expect(refusal({ authorization: 'Bearer abc, Bearer def' })).toBe('conflicting_credentials');
    expect(refusal({ 'x-auth-token': 'abc, def' })).toBe('conflicting_credentials');
    expect(refusal({ authorization: 'Bearer abc', 'x-auth-token': 'abc, abc' })).toBe('conflicting_credentials');
  });

  test('X-Org-Id is trimmed and lower-cased; empty is none', () => {
    expect(presented({ 'x-org-id': ` ${ORG_A.toUpperCase()} ` }).requestedOrgId).toBe(ORG_A);
    expect(presented({ 'x-org-id': '  ' }).requestedOrgId).toBeNull();
  });
});

describe('authenticate', () => {
  const JWT = 'aaa.bbb.ccc';
  function deps(db: Db, verifyAccess?: AuthDeps['verifyAccess']): AuthDeps {
    return {
      db,
      keys: undefined as never,
      config: http,
      patCache: null,
      verifyAccess: verifyAccess ?? (async () => Promise.reject(new Error('bad signature'))),
    };
  }
  const credentials = (c: {
    token?: string | AuthError | null;
    sessionToken?: string | null;
    requestedOrgId?: string | null;
  }) => ({
    token: null,
    sessionToken: null,
    requestedOrgId: null,
    ...c,
  });

  test('nothing presented is the anonymous; a malformed token is its refusal', async () => {
    const { db } = sessionStore();
    expect(await authenticate(deps(db), credentials({}))).toEqual({ kind: 'anonymous' });
    const malformed = new AuthError('token_malformed', 'x');
    expect(await authenticate(deps(db), credentials({ token: malformed, sessionToken: 's' }))).toBe(malformed);
  });

  test('a token no strategy knows is refused, even with a live session cookie beside it', async () => {
    const { db } = sessionStore([{ orgId: ORG_A, role: 'owner' }]);
    const { token: session } = await startSession(db, 'u1', new Date());
    for (const token of ['opaque', JWT]) {
      const result = await authenticate(deps(db), credentials({ token, sessionToken: session }));
      expect(result).toBeInstanceOf(AuthError);
      expect((result as AuthError).code).toBe('token_invalid');
    }
  });

  test('an OAuth access token is checked against its grant', async () => {
    const claims = {
      sub: 'u1',
      client_id: 'c1',
      scope: 'read write',
      org_id: ORG_A,
      grant_id: 'g1',
      exp: 0,
      iat: 0,
      jti: 'j',
    };
    const grant = {
      revokedAt: null,
      orgId: ORG_A,
      userId: 'u1',
      lastUsedAt: new Date(),
      membership: { role: 'member' },
    };
    const db = { oAuthGrant: { findUnique: async () => grant, update: async () => ({}) } } as unknown as Db;
    const result = await authenticate(
      deps(db, async () => claims),
      credentials({ token: JWT }),
    );
    expect(result).toMatchObject({
      kind: 'user',
      userId: 'u1',
      credential: { kind: 'oauth', id: 'g1' },
      org: { id: ORG_A, role: 'member' },
      orgBound: true,
      scopes: ['read', 'write'],
    });
  });

  test('a session acts in the organization X-Org-Id names, which must be one of its own', async () => {
    const { db, rows } = sessionStore([
      { orgId: ORG_A, role: 'member' },
      { orgId: ORG_B, role: 'owner' },
    ]);
    const { token } = await startSession(db, 'u1', T0);
    const now = at(1000);
    expect(await authenticate(deps(db), credentials({ sessionToken: token, requestedOrgId: ORG_B }), now)).toEqual({
      kind: 'user',
      userId: 'u1',
      credential: { kind: 'session', id: rows[0]!.id },
      org: { id: ORG_B, role: 'owner' },
      orgBound: false,
      sessionRefreshedUntil: null,
    });
    // With two organizations and none named, it acts in none: nothing is guessed.
    expect(await authenticate(deps(db), credentials({ sessionToken: token }), now)).toMatchObject({
      kind: 'user',
      org: null,
    });
    const outsider = await authenticate(
      deps(db),
      credentials({ sessionToken: token, requestedOrgId: 'cccccccc-0000-4000-8000-000000000003' }),
      now,
    );
    expect(outsider).toBeInstanceOf(AuthError);
    expect(outsider).toMatchObject({ status: 403, code: 'org_forbidden' });
  });

  test('a session with one organization acts in it; with none, in none', async () => {
    const one = sessionStore([{ orgId: ORG_A, role: 'viewer' }]);
    const { token } = await startSession(one.db, 'u1', T0);
    expect(await authenticate(deps(one.db), credentials({ sessionToken: token }), at(1000))).toMatchObject({
      org: { id: ORG_A, role: 'viewer' },
    });
    const none = sessionStore([]);
    const other = await startSession(none.db, 'u1', T0);
    expect(await authenticate(deps(none.db), credentials({ sessionToken: other.token }), at(1000))).toMatchObject({
      kind: 'user',
      org: null,
    });
    const named = await authenticate(
      deps(none.db),
      credentials({ sessionToken: other.token, requestedOrgId: ORG_A }),
      at(1000),
    );
    expect(named).toMatchObject({ code: 'org_forbidden' });
  });

  test('an unknown or expired session is the anonymous (the browser signs in again)', async () => {
    const { db } = sessionStore([{ orgId: ORG_A, role: 'owner' }]);
    const { token } = await startSession(db, 'u1', T0);
    expect(await authenticate(deps(db), credentials({ sessionToken: 'unknown' }), at(1000))).toEqual({
      kind: 'anonymous',
    });
    expect(await authenticate(deps(db), credentials({ sessionToken: token }), at(SESSION_IDLE_MS))).toEqual({
      kind: 'anonymous',
    });
  });

  test('a session used after an hour says until when it was pushed, so its cookie is sent again', async () => {
    const { db } = sessionStore([{ orgId: ORG_A, role: 'owner' }]);
    const { token } = await startSession(db, 'u1', T0);
    expect(await authenticate(deps(db), credentials({ sessionToken: token }), at(HOUR))).toMatchObject({
      sessionRefreshedUntil: at(HOUR + SESSION_IDLE_MS),
    });
  });
});

describe('reauthenticate', () => {
  const claims = { sub: 'u1', client_id: 'c1', scope: 'read', org_id: ORG_A, grant_id: 'g1', exp: 0, iat: 0, jti: 'j' };
  const grant = { revokedAt: null, orgId: ORG_A, userId: 'u1', lastUsedAt: new Date(), membership: { role: 'member' } };
  const db = { oAuthGrant: { findUnique: async () => grant, update: async () => ({}) } } as unknown as Db;

  test("verifies an access token again rather than reusing the request's verification", async () => {
    const credentials = { token: 'aaa.bbb.ccc', sessionToken: null, requestedOrgId: null };
    const keys = (valid: boolean) =>
      ({ verify: async () => (valid ? claims : Promise.reject(new Error('revoked key'))) }) as unknown as SigningKeys;
    const auth = (valid: boolean) => ({
      db,
      keys: keys(valid),
      config: http,
      tokenHash: hashToken,
      verifyAccess: async () => claims,
      patCache: null,
      patEpoch: null,
    });
    const epoch = { read: () => 1 };
    expect(await reauthenticate(auth(true), credentials, epoch)).toMatchObject({
      kind: 'user',
      credential: { kind: 'oauth', id: 'g1' },
    });
    expect(await reauthenticate(auth(false), credentials, epoch)).toMatchObject({ code: 'token_invalid' });
  });

  test('reads the credential epoch afresh for the PAT cache, never the one the request began with', async () => {
    const pat = generatePat();
    const cache = new PatCache();
    const key = Buffer.from(hashToken(pat)).toString('latin1');
    cache.set(
      key,
      {
        id: 'k1',
        orgId: ORG_A,
        userId: 'u1',
        role: 'owner',
        expiresAt: null,
        lastUsedAt: new Date(),
        filledAt: Date.now(),
      },
      'now',
    );
    const auth = {
      db,
      keys: undefined as never,
      config: http,
      tokenHash: hashToken,
      verifyAccess: async () => claims,
      patCache: cache,
      patEpoch: 'then',
    };
    const presented = { token: pat, sessionToken: null, requestedOrgId: null };
    expect(await reauthenticate(auth, presented, { read: () => 'now' })).toMatchObject({
      kind: 'user',
      credential: { kind: 'pat', id: 'k1' },
      org: { id: ORG_A, role: 'owner' },
    });
    expect(cache.hits).toBe(1);
  });
});

describe('the PAT cache', () => {
  const entry = (id: string, filledAt = 0): CachedPat => ({
    id,
    orgId: ORG_A,
    userId: 'u1',
    role: 'member',
    expiresAt: null,
    lastUsedAt: null,
    filledAt,
  });

  test('holds at most 10,000 keys for 60 seconds by default', () => {
    expect(PAT_CACHE_MAX_ENTRIES).toBe(10_000);
    expect(PAT_CACHE_TTL_MS).toBe(60_000);
    const cache = new PatCache();
    expect([cache.maxEntries, cache.ttlMs]).toEqual([10_000, 60_000]);
  });

  test('answers a key filled under the current epoch until its TTL, counting hits and misses', () => {
    const cache = new PatCache(10, 1000);
    cache.set('h1', entry('k1', 5000), 1);
    expect(cache.get('h1', 1, 5000)).toMatchObject({ id: 'k1' });
    expect(cache.get('h1', 1, 5999)).toMatchObject({ id: 'k1' });
    expect([cache.hits, cache.misses]).toEqual([2, 0]);
    expect(cache.get('h1', 1, 6000)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.get('h2', 1, 6000)).toBeUndefined();
    expect([cache.hits, cache.misses]).toEqual([2, 2]);
  });

  test('an entry from the future (a clock set back) is not trusted', () => {
    const cache = new PatCache(10, 1000);
    cache.set('h1', entry('k1', 5000), 1);
    expect(cache.get('h1', 1, 4999)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  test('a new epoch empties it: a revocation anywhere is seen on the next lookup', () => {
    const cache = new PatCache(10, 1000);
    cache.set('h1', entry('k1'), 1);
    cache.set('h2', entry('k2'), 1);
    expect(cache.get('h1', 2, 0)).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.get('h2', 1, 0)).toBeUndefined();
  });

  test('an entry read under an epoch the cache has moved past is not kept', () => {
    const cache = new PatCache(10, 1000);
    cache.set('h1', entry('k1'), 1);
    cache.get('h1', 2, 0);
    cache.set('h2', entry('k2'), 1);
    expect(cache.size).toBe(0);
    cache.set('h3', entry('k3'), 2);
    expect(cache.get('h3', 2, 0)).toMatchObject({ id: 'k3' });
  });

  test('a key set again counts as the most recently used', () => {
    const cache = new PatCache(2, 1000);
    cache.set('h1', entry('k1'), 1);
    cache.set('h2', entry('k2'), 1);
    cache.set('h1', entry('k1'), 1);
    cache.set('h3', entry('k3'), 1);
    expect(cache.get('h1', 1, 0)).toMatchObject({ id: 'k1' });
    expect(cache.get('h2', 1, 0)).toBeUndefined();
  });

  test('past its size it drops the least recently used key', () => {
    const cache = new PatCache(2, 1000);
    cache.set('h1', entry('k1'), 1);
    cache.set('h2', entry('k2'), 1);
    cache.get('h1', 1, 0);
    cache.set('h3', entry('k3'), 1);
    expect(cache.size).toBe(2);
    expect(cache.get('h2', 1, 0)).toBeUndefined();
    expect(cache.get('h1', 1, 0)).toMatchObject({ id: 'k1' });
    expect(cache.get('h3', 1, 0)).toMatchObject({ id: 'k3' });
    // Setting a key again replaces it rather than adding a second entry.
    cache.set('h3', entry('k3b'), 1);
    expect(cache.size).toBe(2);
    expect(cache.get('h3', 1, 0)).toMatchObject({ id: 'k3b' });
    expect(cache.get('h1', 1, 0)).toMatchObject({ id: 'k1' });
  });
});
